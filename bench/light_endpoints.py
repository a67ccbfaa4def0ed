#!/usr/bin/env python
"""Light authenticated endpoints against a bare Django view (issue 20; docs/benchmarks.md, "Light authenticated endpoints").

    .venv/bin/python bench/light_endpoints.py [--rounds 3] [--seconds 5] [--connections 8] [--keep-alive]
        [--servers gthread,sync,uvicorn] [--workers 2] [--port-base 20080] [--baseline DIR]

For each server model it starts, side by side on loopback and with the same worker count, the bare
reference (``bench/bare_app.py``: a Django JSON view, a DRF view, and the floors of an endpoint
that reads its data: each of the two with one Redis read, and with one Redis read and ``SELECT 1``)
and Inkwell in the production profile (``DATABASE_URL``, ``REDIS_URL``, no ``DEBUG``, rate limits counted but never reached), and
with ``--baseline DIR`` a second Inkwell served from another checkout (``git archive REV | tar -x
-C DIR``), so that before and after share every round. The
same client, ``wrk`` (installed from Debian's packages when missing), loads each target in turn
with ``--connections`` connections for ``--seconds``, one request per connection unless
``--keep-alive`` (``run_wrk`` says why); the targets alternate for
``--rounds`` rounds, so that every target samples the same moments of a shared machine. The
result is each target's median requests per second and its share of the bare Django view in the
same run. Every answer must be a 200 with the expected body (an unchanged poll a 304 without one),
else the exit code is 1.

Inkwell's data: one account (owner), one site with 12 planner keywords, 40 notifications of which
10 are read, a running job and a running automation run. The JSON endpoints are called with the
owner's Bearer token; the console's polled fragments (the bell, a job's progress, a run's live
part) with the owner's session cookie and ``HX-Request``, as htmx polls them: once as a first poll
(the whole fragment), and once "(unchanged)" as a browser polls a fragment it already holds, naming
its ETag (a 304 without a body while nothing changed). The database is
``DATABASE_URL`` (default below), migrated; the bench's rows get a unique e-mail, and the cache
keys a unique prefix, so the database and Redis may be shared.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from contextlib import ExitStack, contextmanager
from email.message import Message
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from tests.live_server import HIGH_RATE_LIMITS, manage, stop_process_group  # noqa: E402  (the repository root is on the path only from here)

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/inkwell_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
SERVER_MODELS = ("sync", "gthread", "uvicorn")
GTHREAD_THREADS = 4
STARTUP_TIMEOUT_SECONDS = 30
BASELINE_SUFFIX = " (baseline)"
UNCHANGED_SUFFIX = " (unchanged)"
# The floors of an endpoint that authenticates its caller and reads its data (bench/bare_app.py).
FLOORS = {
    "floor: Django + Redis read": "floor/django/redis/",
    "floor: Django + Redis read + SELECT 1": "floor/django/redis-sql/",
    "floor: DRF + Redis read": "floor/drf/redis/",
    "floor: DRF + Redis read + SELECT 1": "floor/drf/redis-sql/",
}


def seed() -> dict:
    """Runs inside a child process with the deployment's environment: the rows the requests read."""
    import django

    django.setup()
    from django.conf import settings
    from django.test import Client

    from inkwell.automation.models import RunStatus
    from inkwell.automation.tests.factories import make_run
    from inkwell.jobs.models import Job, JobStatus
    from inkwell.notifications.models import NotificationReceipt
    from inkwell.notifications.services import notify
    from inkwell.planner.tests.factories import make_keyword, make_seed_keywords, make_sector
    from inkwell.tenancy import tokens
    from inkwell.tenancy.models import Site
    from inkwell.tenancy.services import account_register

    label = uuid.uuid4().hex[:8]
    owner = account_register(email=f"bench-light-{label}@example.com", password="bench-password-1", account_name=f"Bench {label}")
    account = owner.account
    site = Site.objects.create(account=account, name="Bench site", domain=f"{label}.example.com", slug=f"bench-{label}")

    class Tenant:  # what the planner factories read
        pass

    tenant = Tenant()
    tenant.account, tenant.site = account, site
    sector = make_sector(tenant, site)
    for seed_keyword in make_seed_keywords(sector.industry_sector, 12):
        make_keyword(tenant, site=site, sector=sector, seed=seed_keyword)
    notifications = [notify(account=account, notification_type="system_info", title=f"Note {n}", message="Benchmark") for n in range(40)]
    NotificationReceipt.objects.bulk_create(
        NotificationReceipt(account=account, notification=notification, user=owner, read_at=notification.created_at) for notification in notifications[:10]
    )
    job = Job.objects.create(account=account, site=site, kind="planner.cluster_keywords", status=JobStatus.RUNNING, progress_message="Clustering")
    run = make_run(tenant, status=RunStatus.RUNNING)
    browser, baseline_browser = Client(), Client()
    browser.force_login(owner)  # a session as the console's sign-in makes one
    # A checkout from before PrincipalBackend (--baseline) knows only the sessions of ModelBackend.
    baseline_browser.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return {
        "token": tokens.issue_access_token(owner).token,
        "session_cookie": f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}",
        "baseline_session_cookie": f"{settings.SESSION_COOKIE_NAME}={baseline_browser.cookies[settings.SESSION_COOKIE_NAME].value}",
        "site_id": site.pk,
        "job_id": job.pk,
        "run_id": run.pk,
        "unread": 30,
        "keywords": 12,
    }


def ensure_wrk() -> str:
    path = shutil.which("wrk")
    if path:
        return path
    subprocess.run(["apt-get", "install", "-y", "wrk"], check=True, capture_output=True)
    path = shutil.which("wrk")
    if not path:
        raise SystemExit("wrk is not installed and apt-get could not install it")
    return path


def server_command(model: str, *, wsgi: str, asgi: str, port: int, workers: int) -> list[str]:
    bind = f"127.0.0.1:{port}"
    if model == "uvicorn":
        host, _, port_text = bind.partition(":")
        return [
            sys.executable, "-m", "uvicorn", asgi, "--host", host, "--port", port_text, "--workers", str(workers),
            "--no-access-log", "--loop", "uvloop", "--http", "httptools", "--log-level", "warning",
        ]
    command = [sys.executable, "-m", "gunicorn", wsgi, "--bind", bind, "--workers", str(workers), "--worker-class", model]
    if model == "gthread":
        command += ["--threads", str(GTHREAD_THREADS)]
    return command


@contextmanager
def running_server(command: list[str], env: dict, log_path: Path, health_url: str, cwd: Path = REPO_ROOT):
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command[2]} exited before answering:\n{log_path.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(health_url, timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"no answer from {health_url}:\n{log_path.read_text(errors='replace')}")
            time.sleep(0.2)
        yield process
    finally:
        stop_process_group(process)


def fetch(url: str, headers: dict) -> tuple[int, bytes, Message]:
    """The status, body and headers of a GET (a 304 too, which urllib raises). The headers are read
    whatever their case (uvicorn writes ``etag``, gunicorn ``ETag``)."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read(), answer.headers


def unchanged_poll_targets(targets: list[dict]) -> list[dict]:
    """The console's fragments polled as a browser polls them once it holds one: naming its ETag,
    so that a fragment that has not changed is a 304 without a body. A checkout whose fragments
    carry no ETag (the baseline before them) has none of these targets."""
    polled = []
    for target in targets:
        if target["name"].startswith("console"):
            etag = fetch(target["url"], target["headers"])[2].get("ETag")
            if etag:
                polled.append({**target, "name": target["name"] + UNCHANGED_SUFFIX, "headers": {**target["headers"], "If-None-Match": etag}})
    return polled


def check_answers(targets: list[dict], seeded: dict) -> None:
    """Each target answers 200 with the body it should before it is loaded."""
    expected = {
        **dict.fromkeys(["bare Django", "bare DRF", *FLOORS], lambda body: json.loads(body)["data"] == {"count": 0}),  # bench/bare_app.py's BODY
        "unread-count": lambda body: json.loads(body)["data"] == {"count": seeded["unread"]},
        "auth/me": lambda body: json.loads(body)["data"]["role"] == "owner" and json.loads(body)["data"]["account"]["id"] > 0,
        "planner keywords": lambda body: json.loads(body)["count"] == seeded["keywords"] and len(json.loads(body)["results"]) == seeded["keywords"],
        "console bell": lambda body: f'aria-label="Notifications, {seeded["unread"]} unread"'.encode() in body,
        "console job": lambda body: f'id="job-{seeded["job_id"]}"'.encode() in body and b'hx-trigger="every 1s"' in body,
        "console run": lambda body: b'id="run-live"' in body and b'hx-trigger="every 1s"' in body,
    }
    for target in targets:
        status, body, _ = fetch(target["url"], target["headers"])
        name = target["name"].removesuffix(BASELINE_SUFFIX)
        if name.endswith(UNCHANGED_SUFFIX):
            answered = status == 304 and not body
        else:
            answered = status == 200 and expected[name](body)
        if not answered:
            raise SystemExit(f"{target['name']}: unexpected answer {status} {body[:500]!r}")


def knows_principal_backend(checkout: Path) -> bool:
    """Whether the checkout's sessions authenticate through ``PrincipalBackend`` (else ``ModelBackend``)."""
    return "inkwell.tenancy.backends.PrincipalBackend" in (checkout / "inkwell" / "settings.py").read_text()


def inkwell_targets(base_url: str, seeded: dict, *, suffix: str, checkout: Path = REPO_ROOT) -> list[dict]:
    auth = {"Authorization": f"Bearer {seeded['token']}"}
    cookie = seeded["session_cookie" if knows_principal_backend(checkout) else "baseline_session_cookie"]
    polled = {"Cookie": cookie, "HX-Request": "true"}  # as htmx polls a fragment
    return [
        {"name": f"unread-count{suffix}", "url": f"{base_url}/api/v1/notifications/unread-count/", "headers": auth},
        {"name": f"auth/me{suffix}", "url": f"{base_url}/api/v1/auth/me/", "headers": auth},
        {"name": f"planner keywords{suffix}", "url": f"{base_url}/api/v1/planner/keywords/?site_id={seeded['site_id']}", "headers": auth},
        {"name": f"console bell{suffix}", "url": f"{base_url}/app/notifications/bell/", "headers": polled},
        {"name": f"console job{suffix}", "url": f"{base_url}/app/jobs/{seeded['job_id']}/", "headers": polled},
        {"name": f"console run{suffix}", "url": f"{base_url}/app/automation/runs/{seeded['run_id']}/?shown=running", "headers": polled},
    ]


def run_wrk(wrk: str, target: dict, *, seconds: int, connections: int, keep_alive: bool) -> tuple[float, int]:
    """Requests per second, and the number of answers that were not 2xx or failed on the socket.

    Without ``keep_alive`` every request asks for its connection to be closed, so each one is
    accepted anew by whichever worker is free. A gthread worker keeps the keep-alive connections it
    accepted, and wrk opens all of its connections at once: one worker often takes all 8 (and all
    32 with ``--connections 32``), so a CPU-bound target such as the bare Django view then runs on
    one core while the other idles, and its rate halves from one wrk run to the next. Sync workers
    close every connection after one answer whatever the client asks, so for them nothing changes.
    """
    command = [wrk, "-t1", f"-c{connections}", f"-d{seconds}s"]
    if not keep_alive:
        command += ["-H", "Connection: close"]
    for name, value in target["headers"].items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run([*command, target["url"]], check=True, capture_output=True, text=True).stdout
    failures = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    failed = int(failures.group(1)) if failures else 0
    failed += sum(int(count) for count in socket_errors.groups()) if socket_errors else 0
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)), failed


def machine_load() -> str:
    with open("/proc/loadavg") as handle:
        return handle.read().split()[0]


def measure_model(model: str, args, wrk: str, inkwell_env: dict, seeded: dict, log_dir: Path, port: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    bare_env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    bare_env.update(PYTHONPATH=str(REPO_ROOT), DATABASE_URL=inkwell_env["DATABASE_URL"], REDIS_URL=inkwell_env["REDIS_URL"])
    bare_port, inkwell_port, baseline_port = port, port + 1, port + 2
    bare = f"http://127.0.0.1:{bare_port}"
    inkwell = f"http://127.0.0.1:{inkwell_port}"
    baseline = f"http://127.0.0.1:{baseline_port}"
    targets = [
        {"name": "bare Django", "url": f"{bare}/django/", "headers": {}},
        {"name": "bare DRF", "url": f"{bare}/drf/", "headers": {}},
        *({"name": name, "url": f"{bare}/{path}", "headers": {}} for name, path in FLOORS.items()),
        *inkwell_targets(inkwell, seeded, suffix=""),
    ]
    if args.baseline:
        targets += inkwell_targets(baseline, seeded, suffix=BASELINE_SUFFIX, checkout=Path(args.baseline))
    with ExitStack() as stack:
        stack.enter_context(running_server(
            server_command(model, wsgi="bench.bare_app:application", asgi="bench.bare_app:asgi_application", port=bare_port, workers=args.workers),
            bare_env, log_dir / f"bare-{model}.log", f"{bare}/django/",
        ))
        stack.enter_context(running_server(
            server_command(model, wsgi="inkwell.wsgi", asgi="inkwell.asgi:application", port=inkwell_port, workers=args.workers),
            inkwell_env, log_dir / f"inkwell-{model}.log", f"{inkwell}/healthz",
        ))
        if args.baseline:
            stack.enter_context(running_server(
                server_command(model, wsgi="inkwell.wsgi", asgi="inkwell.asgi:application", port=baseline_port, workers=args.workers),
                inkwell_env, log_dir / f"baseline-{model}.log", f"{baseline}/healthz", cwd=args.baseline,
            ))
        targets += unchanged_poll_targets(targets)
        check_answers(targets, seeded)
        for target in targets:  # warm-up: every worker loads its code and opens its connections
            run_wrk(wrk, target, seconds=1, connections=args.connections, keep_alive=args.keep_alive)
        samples: dict[str, list[float]] = {target["name"]: [] for target in targets}
        failed: dict[str, int] = {target["name"]: 0 for target in targets}
        for round_number in range(1, args.rounds + 1):
            for target in targets:
                rate, failures = run_wrk(wrk, target, seconds=args.seconds, connections=args.connections, keep_alive=args.keep_alive)
                samples[target["name"]].append(rate)
                failed[target["name"]] += failures
            line = ", ".join(f"{name} {values[-1]:.0f}" for name, values in samples.items())
            print(f"  {model} round {round_number} (load {machine_load()}): {line}", flush=True)
    return samples, failed


def report(results: dict[str, tuple[dict[str, list[float]], dict[str, int]]]) -> bool:
    """Prints the table; False when any answer failed (its cell says how many)."""
    print()
    models = list(results)
    names = list(dict.fromkeys(name for samples, _ in results.values() for name in samples))  # a model may lack a target
    print("| target | " + " | ".join(f"{model} req/s | {model} share" for model in models) + " |")
    print("|---|" + "---|---|" * len(models))
    all_good = True
    for name in names:
        cells = []
        for model in models:
            samples, failed = results[model]
            if name not in samples:
                cells.append("- | -")
                continue
            median = statistics.median(samples[name])
            # The share per round (both sampled at the same moment), then the median of the rounds.
            shares = [value / bare for value, bare in zip(samples[name], samples["bare Django"], strict=True)]
            note = f" ({failed[name]} failed)" if failed[name] else ""
            all_good = all_good and not failed[name]
            cells.append(f"{median:.0f}{note} | {statistics.median(shares) * 100:.0f}%")
        print(f"| {name} | " + " | ".join(cells) + " |")
    return all_good


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--keep-alive", action="store_true",
        help="keep wrk's connections open (under gthread the result then depends on how the connections fell on the workers: see run_wrk)",
    )
    parser.add_argument("--servers", default="sync,gthread,uvicorn", help=f"comma-separated, of {', '.join(SERVER_MODELS)}")
    parser.add_argument("--port-base", type=int, default=20080, help="three loopback ports per server model from here")
    parser.add_argument(
        "--baseline", type=Path, default=None,
        help="another checkout of Inkwell (same migrations), served beside this one in the same run: before and after side by side",
    )
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL)
    parser.add_argument("--seed", action="store_true", help=argparse.SUPPRESS)  # the child process that seeds
    args = parser.parse_args()
    if args.seed:
        print(json.dumps(seed()))
        return
    models = [model.strip() for model in args.servers.split(",") if model.strip()]
    unknown = set(models) - set(SERVER_MODELS)
    if unknown:
        raise SystemExit(f"unknown server models: {', '.join(sorted(unknown))}")
    if "uvicorn" in models and importlib.util.find_spec("uvicorn") is None:
        raise SystemExit('uvicorn is a benchmark-only dependency: .venv/bin/uv pip install --python .venv/bin/python -e ".[bench]"')
    wrk = ensure_wrk()
    with tempfile.TemporaryDirectory(prefix="inkwell-light-") as data_dir:
        env = dict(os.environ)
        env.update(
            HIGH_RATE_LIMITS,
            DATABASE_URL=args.database_url,
            REDIS_URL=args.redis_url,
            DJANGO_DEBUG="0",
            INKWELL_DATA_DIR=data_dir,
            CACHE_KEY_PREFIX=f"bench-light-{uuid.uuid4().hex[:8]}",
            JWT_ACCESS_TTL_SECONDS="7200",
            LOG_LEVEL="WARNING",
            DJANGO_SETTINGS_MODULE="inkwell.settings",
        )
        manage(env, "migrate", "--noinput")
        seeded = json.loads(subprocess.run(
            [sys.executable, __file__, "--seed"], cwd=REPO_ROOT, env=env, check=True, capture_output=True, text=True
        ).stdout.strip().splitlines()[-1])
        connection_mode = "keep-alive" if args.keep_alive else "one request per connection (Connection: close)"
        print(f"wrk, 1 thread, {args.connections} connections, {connection_mode}, {args.seconds} s per target, {args.rounds} rounds; "
              f"{args.workers} workers per server; load average at start {machine_load()}", flush=True)
        results = {}
        for index, model in enumerate(models):
            results[model] = measure_model(model, args, wrk, env, seeded, Path(data_dir), args.port_base + 3 * index)
        if not report(results):
            raise SystemExit(1)


if __name__ == "__main__":
    main()
