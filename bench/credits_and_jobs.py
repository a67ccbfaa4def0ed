#!/usr/bin/env python
"""Credits and jobs benchmark (issue 4 targets; docs/benchmarks.md, "Credits, jobs and the local AI provider").

    .venv/bin/python bench/credits_and_jobs.py [--pairs 2000] [--reservations 1000] [--threads 50] [--jobs 60]

Each part runs on its own fresh deployment (``tests.live_server.server_environment``) in a child
process of this script, so that both profiles can be measured in one run:

1. Ledger, on PostgreSQL: p50/p95 of one ``reserve`` + ``settle`` pair (sequential), against the
   very statements of one pair replayed on the same connection in the same transactions, in
   alternating blocks (``pair_over_replay``: issue 20 asks for at most 3), then
   ``--reservations`` reservations of 1 credit from ``--threads`` threads at once against an
   account holding half as many credits: exactly half succeed, nothing is lost, the balance never
   goes negative (checked from the rows: balance = sum of transactions, reserved = held).
2. Jobs, on Redis + PostgreSQL and on the embedded profile (filesystem transport + SQLite): a
   Celery worker as ``manage.py serve`` starts it; ``--jobs`` jobs started one after another, each
   awaited; the time from the request (the job row's ``created_at``) to ``running``
   (``started_at``), p50/p95.

Needs PostgreSQL and Redis (``scripts/services-up`` prints their URLs; defaults below).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from tests.live_server import celery_worker, server_environment  # noqa: E402  (the repository root is on the path only from here)

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/inkwell"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
        "n": len(ordered),
    }


def _setup_django():
    import django

    django.setup()


def _recorded_statements(connection, work) -> list[tuple[int | None, str, tuple]]:
    """The SQL ``work`` sends, each statement with the transaction it ran in (None: autocommit)."""
    statements = []
    transactions = iter(range(1_000_000))
    current = {"block": None, "id": None}

    def record(execute, sql, params, many, context):
        block = connection.atomic_blocks[0] if connection.atomic_blocks else None
        if block is not current["block"]:
            current.update(block=block, id=None if block is None else next(transactions))
        statements.append((current["id"], sql, tuple(params or ())))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        work()
    return statements


def _replayed(connection, statements, times: int) -> list[float]:
    """Seconds per replay of ``statements`` on Django's own connection, with the same transactions
    (BEGIN ... COMMIT around each group): the database's share of one pair, without Python."""
    timings = []
    raw = connection.connection
    raw.autocommit = False  # Django's connection autocommits; the groups need their transactions
    with raw.cursor() as cursor:
        for _ in range(times):
            started = time.perf_counter()
            open_transaction = None
            for transaction_id, sql, params in statements:
                if transaction_id != open_transaction:
                    if open_transaction is not None:
                        raw.commit()
                    open_transaction = transaction_id
                cursor.execute(sql, params)
                if transaction_id is None:
                    raw.commit()
            if open_transaction is not None:
                raw.commit()
            timings.append(time.perf_counter() - started)
    raw.autocommit = True
    return timings


def inner_ledger(args) -> dict:
    _setup_django()
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from django.db.models import Sum

    from inkwell.api.exceptions import InsufficientCredits
    from inkwell.billing import services
    from inkwell.billing.models import CreditLedger, CreditReservation, CreditTransaction, ReservationStatus
    from inkwell.tenancy.services import account_register

    account = account_register(email="bench-ledger@example.com", password="bench-password-1").account
    services.grant(account=account, amount=args.pairs * 4)

    def pair():
        services.settle(reservation=services.reserve(account=account, operation_type="clustering", amount=1))

    statements = _recorded_statements(connection, pair)
    timings, replays = [], []
    for _block in range(10):  # the pairs and their replays alternate, so both sample the same moments
        for _ in range(args.pairs // 10):
            started = time.perf_counter()
            pair()
            timings.append(time.perf_counter() - started)
        replays += _replayed(connection, statements, args.pairs // 10)

    racer = account_register(email="bench-race@example.com", password="bench-password-1").account
    ledger = CreditLedger.objects.for_account(racer).get()
    funds = args.reservations // 2
    services.grant(account=racer, amount=funds - ledger.balance) if funds > ledger.balance else services.spend(account=racer, operation_type="linking", amount=ledger.balance - funds)

    def reserve(_):
        try:
            services.reserve(account=racer, operation_type="clustering", amount=1)
            return True
        except InsufficientCredits:
            return False
        finally:
            connection.close()

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.threads) as pool:
        outcomes = list(pool.map(reserve, range(args.reservations)))
    race_seconds = time.perf_counter() - started
    ledger = CreditLedger.objects.for_account(racer).get()
    held = CreditReservation.objects.for_account(racer).filter(status=ReservationStatus.HELD).aggregate(total=Sum("amount"))["total"] or 0
    transactions = CreditTransaction.objects.for_account(racer).aggregate(total=Sum("amount"))["total"]
    return {
        "reserve_settle_pair": percentiles(timings),
        "same_statements_replayed": {**percentiles(replays), "statements": len(statements)},
        "pair_over_replay": round(statistics.median(timings) / statistics.median(replays), 2),
        "race": {
            "reservations": args.reservations,
            "threads": args.threads,
            "credits": funds,
            "succeeded": sum(outcomes),
            "refused": len(outcomes) - sum(outcomes),
            "balance": ledger.balance,
            "reserved": ledger.reserved,
            "held_reservations": held,
            "sum_of_transactions": transactions,
            "seconds": round(race_seconds, 2),
            "consistent": sum(outcomes) == funds == ledger.reserved == held and ledger.balance == transactions and ledger.balance >= ledger.reserved,
        },
    }


def inner_jobs(args) -> dict:
    _setup_django()
    from inkwell.jobs.models import Job, JobStatus
    from inkwell.jobs.services import start_job
    from inkwell.tenancy.services import account_register
    from tests.job_handlers import ECHO_KIND

    account = account_register(email="bench-jobs@example.com", password="bench-password-1").account
    latencies = []
    for index in range(args.jobs + 3):
        job = start_job(account=account, kind=ECHO_KIND, params={"value": index})
        deadline = time.monotonic() + 30
        while (row := Job.objects.for_account(account).values("status", "created_at", "started_at").get(pk=job.pk))["status"] != JobStatus.SUCCEEDED:
            if time.monotonic() > deadline:
                raise RuntimeError(f"job {job.pk} is still {row['status']} after 30 s")
            time.sleep(0.005)
        if index >= 3:  # the first jobs warm the worker's connections
            latencies.append((row["started_at"] - row["created_at"]).total_seconds())
    return {"request_to_running": percentiles(latencies)}


def run_inner(part: str, env: dict, args) -> dict:
    command = [sys.executable, __file__, "--inner", part, "--pairs", str(args.pairs), "--reservations", str(args.reservations), "--threads", str(args.threads), "--jobs", str(args.jobs)]
    result = subprocess.run(command, cwd=REPO_ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "inkwell.settings"}, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"{part} failed:\n{result.stdout}\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--reservations", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--inner", choices=["ledger", "jobs"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps((inner_ledger if args.inner == "ledger" else inner_jobs)(args)))
        return

    os.environ["DATABASE_URL"] = args.database_url
    os.environ["REDIS_URL"] = args.redis_url
    results = {}
    with server_environment() as env:
        results["ledger (PostgreSQL)"] = run_inner("ledger", env, args)
    for label, embedded in (("jobs (Redis + PostgreSQL)", False), ("jobs (embedded: filesystem transport + SQLite)", True)):
        with server_environment(embedded=embedded) as env, celery_worker(env, beat=False):
            results[label] = run_inner("jobs", env, args)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
