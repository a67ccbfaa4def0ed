#!/usr/bin/env python
"""Console page benchmark (issue 17): every page that reads, rendered server-side with ``--rows``
rows behind its list.

    .venv/bin/python bench/console_pages.py [--rows 1000] [--requests 30] [--postgres] [--database-url URL]

On a fresh deployment (``tests.live_server.server_environment``; the embedded SQLite profile, or
PostgreSQL with ``--postgres``), in a child process of this script: one site holding ``--rows``
library keywords, planner keywords, clusters, ideas, tasks, articles, revisions of one article,
notifications, automation runs and one run's log lines, credit charges with their transactions, team
members and API keys, and the site's WordPress connection with ``--rows`` sync runs and the articles
on the publishing calendar within ten days of now: a third scheduled, a third published, a third
failed (inkwell/console/tests/seed.py, seed_team.py). Each page is requested ``--requests`` times by its
owner through Django's full request cycle (middleware, session, templates; no network), after one
warm-up request; the API list of the same rows is timed the same way beside it, so the ratio
console/API shows what the HTML costs over the JSON. Prints JSON: per page p50/p95 in
milliseconds, the SQL queries of one request, and the ratio. The exit code is 1 when a page's
p50 is over ``--budget-ms`` (100) or a page did not answer 200.
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

from tests.live_server import HIGH_RATE_LIMITS, server_environment  # noqa: E402  (the repository root is on the path only from here)

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/inkwell"
# The API list beside each console page that shows the same rows.
API_TWINS = {
    "keywords": "/api/v1/planner/keywords/?site_id={site}&page_size=50",
    "clusters": "/api/v1/planner/clusters/?site_id={site}&page_size=50",
    "ideas": "/api/v1/planner/ideas/?site_id={site}&page_size=50",
    "tasks": "/api/v1/writer/tasks/?site_id={site}&page_size=50",
    "content-list": "/api/v1/writer/content/?site_id={site}&page_size=50",
    "notifications": "/api/v1/notifications/?page_size=30",
    "library": "/api/v1/keywords-library/?sector_ids={industry_sector}&page_size=50",
    "automation": "/api/v1/automation/estimate/?site_id={site}",
    "automation-runs": "/api/v1/automation/runs/?site_id={site}&page_size=25",
    "automation-run": "/api/v1/automation/runs/{run}/?site_id={site}",
    "credits": "/api/v1/billing/transactions/?page_size=30",
}


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000, 2)}


def timed(client, path: str, requests: int, **headers) -> tuple[dict, int, int]:
    from django.db import connection

    queries = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    client.get(path, **headers)
    with connection.execute_wrapper(count):
        status = client.get(path, **headers).status_code
    samples = []
    for _ in range(requests):
        start = time.perf_counter()
        client.get(path, **headers)
        samples.append(time.perf_counter() - start)
    return percentiles(samples), len(queries), status


def inner(args) -> dict:
    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    from inkwell.console.tests.seed import console_pages, seed_site
    from inkwell.tenancy import services, tokens
    from inkwell.tenancy.models import Plan, Site, Subscription

    owner = services.account_register(email="bench-console@example.com", password="a long password", account_name="Bench")
    Subscription.objects.for_account(owner.account).update(plan=Plan.objects.get(slug="scale"))
    site = Site.objects.create(account=owner.account, name="Bench site", domain="bench.example.com", slug="bench-site")
    started = time.perf_counter()
    seeded = seed_site(site, owner, args.rows)
    seed_seconds = round(time.perf_counter() - started, 1)
    if connection.vendor == "postgresql":
        # The rows were bulk-inserted a moment ago: give the planner the statistics autovacuum would.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    console = Client()
    console.force_login(owner)
    api = Client()
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue_access_token(owner).token}"}
    pages = {}
    for name, path in console_pages(seeded).items():
        timing, queries, status = timed(console, path, args.requests)
        row = {"path": path, "status": status, **timing, "queries": queries}
        if name in API_TWINS:
            api_path = API_TWINS[name].format(site=site.pk, industry_sector=seeded.sector.industry_sector_id, run=seeded.run.pk)
            api_timing, api_queries, api_status = timed(api, api_path, args.requests, **bearer)
            row["api"] = {"path": api_path, "status": api_status, **api_timing, "queries": api_queries}
            row["ratio_console_to_api"] = round(timing["p50_ms"] / api_timing["p50_ms"], 2)
        pages[name] = row
    return {"rows": args.rows, "requests": args.requests, "seed_seconds": seed_seconds, "pages": pages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--budget-ms", type=float, default=100.0)
    parser.add_argument("--postgres", action="store_true", help="measure on PostgreSQL (a fresh database on --database-url's server)")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps(inner(args)))
        return
    if args.postgres:
        os.environ["DATABASE_URL"] = args.database_url
    with server_environment(embedded=not args.postgres, **HIGH_RATE_LIMITS) as env:
        command = [sys.executable, __file__, "--inner", "--rows", str(args.rows), "--requests", str(args.requests)]
        result = subprocess.run(command, cwd=REPO_ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "inkwell.settings"}, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        sys.exit(f"the benchmark failed:\n{result.stdout}\n{result.stderr}")
    report = json.loads(result.stdout)
    report["profile"] = "postgresql" if args.postgres else "sqlite"
    print(json.dumps(report, indent=2))
    slow = [name for name, row in report["pages"].items() if row["p50_ms"] > args.budget_ms or row["status"] != 200]
    if slow:
        sys.exit(f"pages over {args.budget_ms} ms p50 or not answering 200: {slow}")


if __name__ == "__main__":
    main()
