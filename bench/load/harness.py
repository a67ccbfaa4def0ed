"""The load test with faults (docs/benchmarks.md, "Load test with faults"): run it through ``bench/load/run``.

It starts a private production profile on loopback: its own PostgreSQL (``--pg-port``) and Redis
(``--redis-port``) with data folders under the run's folder, gunicorn, a Celery beat and a Celery
worker, and a counting CMS (the WordPress-faithful test server). Locust then drives the content
team mix (bench/load/locustfile.py) for ``--duration`` seconds, while the faults are set off on a
timeline: SIGKILL the worker and start another, restart Redis, restart PostgreSQL, make the CMS
answer 500s and then time out. After the load, the run waits for the background work to drain,
reads the metrics, stops everything and checks:

- no answer >= 500 outside the seconds PostgreSQL was down, and in them only the 503 envelope
  (no traceback, no hang: a request that got no answer at all fails the check anywhere);
- every job ended succeeded or failed (none queued or running);
- every content scheduled during the run is published, as exactly one post on the CMS, and no
  content of the run has two posts;
- every account's balance is the sum of its ledger transactions, none below zero, no credits
  reserved and no reservation held;
- every request id in the logs has its response line.

The exit status is 0 only when every check holds. The report (tables per endpoint, requests per
second, the fault timeline, the metrics, the checks) is printed and written to ``report.md`` in
the run's folder.
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import requests
from prometheus_client.parser import text_string_to_metric_families

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO_ROOT))

from inkwell.cms.tests.cms_server import WordPressTestServer  # noqa: E402  (the repository root is on the path only from here)

PYTHON = sys.executable
BIN = Path(PYTHON).parent
FAULTS = ("worker", "redis", "postgres", "cms")
# When each fault starts, as a share of the load's duration.
FAULT_AT = {"worker": 0.10, "redis": 0.25, "postgres": 0.40, "cms": 0.55}
CMS_ERROR_SECONDS, CMS_TIMEOUT_SECONDS = 30, 60
# The CMS client gives up after CMS_TIMEOUT; a timing-out CMS answers (and creates the post) later.
CMS_CLIENT_TIMEOUT = 3
# How long PostgreSQL stays down in its restart: long enough for requests to meet the outage.
DATABASE_DOWN_SECONDS = 5
# Seconds around a PostgreSQL restart in which a 503 is the expected answer (the restart's own
# window is measured; this covers a request that started just before it).
DATABASE_GRACE_SECONDS = 3
# An answer slower than this is a hang, whatever its status.
HANG_SECONDS = 30
REFERENCE = re.compile(r"inkwell:ref:(\d+)-(\d+)")

# The deployment under load: production settings, with the background timings shortened so that
# what a fault disturbs is recovered within the run (the same mechanisms, minutes made seconds).
DEPLOYMENT = {
    "LOG_FORMAT": "json",
    "AI_PROVIDER": "local",
    "AI_IMAGE_PROVIDER": "local",
    "CMS_ALLOW_PRIVATE_URLS": "true",
    "CMS_TIMEOUT_SECONDS": str(CMS_CLIENT_TIMEOUT),
    "PUBLISH_SWEEP_SECONDS": "5",
    "PUBLISH_RETRY_SECONDS": "5",
    "PUBLISH_MAX_ATTEMPTS": "8",
    "PUBLISH_STALE_SECONDS": "20",
    "JOB_HEARTBEAT_SECONDS": "2",
    "JOB_STALE_AFTER_SECONDS": "10",
    "JOB_SWEEP_SECONDS": "5",
    "JOB_REQUEUE_AFTER_SECONDS": "20",
    "JOB_RETRY_BACKOFF_SECONDS": "2",
    "WORKER_HEARTBEAT_SECONDS": "10",
    "INKWELL_SIGNUP_CREDITS": "5000",
    # Every team signs up and logs in from the same loopback address, the auth scope's key.
    "RATE_LIMIT_AUTH": "100",
    "JWT_ACCESS_TTL_SECONDS": "7200",
    "CELERY_QUEUE": "inkwell-load",
    "PYTHONUNBUFFERED": "1",
}


def log(message: str) -> None:
    print(f"[load {datetime.now(UTC):%H:%M:%S}] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(check, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:  # noqa: BLE001  (not up yet)
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not come up within {timeout} s")


# -- the private services -------------------------------------------------------------------


class PrivatePostgres:
    """A throwaway PostgreSQL cluster on its own port and folder (as scripts/services-up makes one).

    The folder is a new one under the system's temporary folder, owned by the ``postgres`` user
    when the run is root's (PostgreSQL refuses to run as root, and the run's own folder may be
    closed to other users); its server log is copied into the run's folder at the end."""

    def __init__(self, port: int):
        self.port = port
        self.base = Path(tempfile.mkdtemp(prefix=f"inkwell-load-pg-{port}-"))
        self.bin = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(n) for n in re.findall(r"\d+", p)])[-1])
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/inkwell"

    def _ctl(self, *args: str) -> None:
        subprocess.run([*self.as_postgres, str(self.bin / "pg_ctl"), "-D", str(self.base / "data"), *args], check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        if self.as_postgres:
            shutil.chown(self.base, "postgres", "postgres")
        subprocess.run([*self.as_postgres, str(self.bin / "initdb"), "-D", str(self.base / "data"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8"], check=True, capture_output=True, timeout=120)
        self._up()
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE inkwell")

    def _up(self) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.base} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        self._ctl("-l", str(self.base / "server.log"), "-w", "-o", options, "start")

    def stop(self) -> None:
        self._ctl("-m", "fast", "-w", "stop")

    def restart(self, down_seconds: float) -> None:
        self.stop()
        time.sleep(down_seconds)
        self._up()

    def connect(self):
        return psycopg.connect(self.url, autocommit=True, connect_timeout=5)

    def remove(self, keep_log_in: Path) -> None:
        if (self.base / "server.log").exists():
            shutil.copy(self.base / "server.log", keep_log_in / "postgresql.log")
        shutil.rmtree(self.base, ignore_errors=True)


class PrivateRedis:
    def __init__(self, port: int, base: Path):
        self.port, self.base = port, base
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        log_file = (self.base / "redis.log").open("ab")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(self.base)],
            stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
        )
        wait_for(lambda: subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True).stdout.strip() == "PONG", "Redis")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def restart(self) -> None:
        self.stop()
        self.start()


# -- the deployment's processes -------------------------------------------------------------


@dataclass
class Processes:
    env: dict
    out: Path
    web_workers: int
    port: int = field(default_factory=free_port)
    running: dict = field(default_factory=dict)
    workers_started: int = 0

    def spawn(self, name: str, command: list[str]) -> subprocess.Popen:
        log_file = (self.out / f"{name}.log").open("ab")
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=self.env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
        self.running[name] = process
        return process

    def start_web(self) -> None:
        self.spawn("web", [PYTHON, "-m", "gunicorn", "inkwell.wsgi", "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.web_workers), "--timeout", "60", "--no-control-socket"])
        wait_for(lambda: requests.get(f"{self.base_url}/healthz", timeout=1).status_code == 200, "gunicorn")

    def start_beat(self) -> None:
        self.spawn("beat", [PYTHON, "-m", "celery", "-A", "inkwell", "beat", "--loglevel", "INFO", "--schedule", str(self.out / "beat-schedule")])

    def start_worker(self) -> str:
        self.workers_started += 1
        name = f"worker-{self.workers_started}"
        self.spawn(name, [PYTHON, "-m", "celery", "-A", "inkwell", "worker", "--pool", "threads", "--concurrency", "2", "--loglevel", "INFO", "-n", f"{name}@%h"])
        wait_for(lambda: b" ready." in (self.out / f"{name}.log").read_bytes(), f"Celery {name}")
        return name

    def kill(self, name: str) -> None:
        os.killpg(self.running.pop(name).pid, signal.SIGKILL)

    def restart_exited_workers(self) -> list[str]:
        """What a process supervisor (systemd's Restart=always) does in production: a worker that
        exited by itself is started again. Returns what happened, for the timeline."""
        restarted = []
        for name, process in list(self.running.items()):
            if name.startswith("worker-") and process.poll() is not None:
                del self.running[name]
                restarted.append(f"{name} exited by itself (status {process.returncode}); the supervisor started {self.start_worker()}")
        return restarted

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop_all(self) -> None:
        for process in self.running.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.running.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def manage(env: dict, *args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=REPO_ROOT, env=env, check=True, capture_output=True, timeout=300)


class Supervisor(threading.Thread):
    """Checks every second that the workers still run and starts again any that exited."""

    def __init__(self, processes: Processes, started: float):
        super().__init__(name="supervisor", daemon=True)
        self.processes, self.started = processes, started
        self.events: list[tuple[float, str]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(1):
            for event in self.processes.restart_exited_workers():
                log(event)
                self.events.append((time.time() - self.started, event))


# -- the faults -------------------------------------------------------------------------------


@dataclass
class Fault:
    name: str
    detail: str
    started: float
    ended: float = 0.0


class FaultTimeline(threading.Thread):
    def __init__(self, *, faults, duration, started, processes, redis, postgres, cms):
        super().__init__(name="faults", daemon=True)
        self.plan = sorted((started + FAULT_AT[name] * duration, name) for name in faults)
        self.duration = duration
        self.processes, self.redis, self.postgres, self.cms = processes, redis, postgres, cms
        self.done: list[Fault] = []
        self.errors: list[str] = []

    def run(self) -> None:
        for at, name in self.plan:
            time.sleep(max(0.0, at - time.time()))
            try:
                getattr(self, f"_{name}")()
            except Exception as error:  # noqa: BLE001  (reported as a failed check)
                self.errors.append(f"{name}: {type(error).__name__}: {error}")

    def _timed(self, name: str, detail: str, action) -> None:
        fault = Fault(name, detail, time.time())
        log(f"fault: {detail}")
        action()
        fault.ended = time.time()
        self.done.append(fault)

    def _worker(self) -> None:
        # Killed in the middle of a job when one comes within 20 s, so that a job is lost with it.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not self._running_jobs():
            time.sleep(0.05)
        victim = next(name for name in self.processes.running if name.startswith("worker-"))
        self._timed("worker", f"SIGKILL {victim} ({self._running_jobs()} jobs running), start another", lambda: (self.processes.kill(victim), self.processes.start_worker()))

    def _running_jobs(self) -> int:
        with self.postgres.connect() as conn:
            return conn.execute("SELECT count(*) FROM jobs_job WHERE status = 'running'").fetchone()[0]

    def _redis(self) -> None:
        self._timed("redis", "restart Redis (no persistence: the broker's queue is lost)", self.redis.restart)

    def _postgres(self) -> None:
        self._timed("postgres", f"restart PostgreSQL (pg_ctl stop -m fast, {DATABASE_DOWN_SECONDS} s down, start)", lambda: self.postgres.restart(DATABASE_DOWN_SECONDS))

    def _cms(self) -> None:
        errors, timeouts = min(CMS_ERROR_SECONDS, self.duration * 0.05), min(CMS_TIMEOUT_SECONDS, self.duration * 0.1)

        def outage() -> None:
            self.cms.fail_for(errors, status=500)
            time.sleep(errors)
            self.cms.fail_for(timeouts, status=None, delay=CMS_CLIENT_TIMEOUT + 2)
            time.sleep(timeouts)

        self._timed("cms", f"CMS answers 500 for {errors:.0f} s, then times out for {timeouts:.0f} s", outage)

    def database_down(self) -> list[tuple[float, float]]:
        return [(fault.started - DATABASE_GRACE_SECONDS, fault.ended + DATABASE_GRACE_SECONDS) for fault in self.done if fault.name == "postgres"]


# -- after the load ---------------------------------------------------------------------------


def drain(postgres: PrivatePostgres, timeout: float) -> float:
    """Waits until no job is queued or running and no content is scheduled or being published."""
    started = time.monotonic()
    settled = 0
    while time.monotonic() - started < timeout:
        try:
            with postgres.connect() as conn:
                jobs = conn.execute("SELECT count(*) FROM jobs_job WHERE status IN ('queued', 'running')").fetchone()[0]
                publishing = conn.execute("SELECT count(*) FROM writer_content WHERE site_status IN ('scheduled', 'publishing')").fetchone()[0]
        except psycopg.Error:
            jobs = publishing = -1
        settled = settled + 1 if jobs == publishing == 0 else 0
        if settled >= 2:
            break
        time.sleep(2)
    return time.monotonic() - started


def read_events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def check_server_errors(events: list[dict], down: list[tuple[float, float]]) -> list[str]:
    problems = []
    for event in events:
        status, at = event["status"], event["t"]
        if status == 0 or event["ms"] > HANG_SECONDS * 1000:
            problems.append(f"no answer (hang or connection error) for {event['name']} at {at:.0f}: {event.get('error', '')}")
            continue
        if status < 500:
            continue
        if not any(start <= at <= end for start, end in down):
            problems.append(f"{status} for {event['name']} at {at:.0f}, outside a database restart: {event.get('body', '')[:200]}")
            continue
        try:
            body = json.loads(event.get("body") or "")
        except ValueError:
            body = {}
        if status != 503 or body.get("success") is not False or body.get("code") != "service_unavailable" or not body.get("request_id"):
            problems.append(f"{status} during the database restart for {event['name']} is not the 503 envelope: {event.get('body', '')[:200]}")
    return problems


def check_jobs(conn) -> tuple[dict, list[str]]:
    counts = dict(conn.execute("SELECT status, count(*) FROM jobs_job GROUP BY status").fetchall())
    counts["ran more than once"] = conn.execute("SELECT count(*) FROM jobs_job WHERE attempts > 1").fetchone()[0]
    stuck = {status: n for status, n in counts.items() if status in ("queued", "running", "cancelled")}
    return counts, [f"jobs not ended: {stuck}"] if stuck else []


def check_publishing(conn, events: list[dict], cms: WordPressTestServer) -> tuple[dict, list[str]]:
    scheduled = {event["content_id"] for event in events if event["name"].endswith("/schedule/") and event["status"] == 200 and event.get("content_id")}
    references = Counter(f"{m.group(1)}-{m.group(2)}" for post in cms.posts for m in [REFERENCE.search(post["content"]["raw"])] if m)
    contents = {row[0]: row[1:] for row in conn.execute("SELECT id, account_id, site_status FROM writer_content WHERE id = ANY(%s)", [list(scheduled)]).fetchall()}
    problems = [f"content {cid}: {n} posts on the CMS" for cid, n in ((ref, n) for ref, n in references.items() if n > 1)]
    for content_id in sorted(scheduled):
        account_id, site_status = contents[content_id]
        posts = references.get(f"{account_id}-{content_id}", 0)
        if site_status != "published" or posts != 1:
            problems.append(f"scheduled content {content_id}: {site_status}, {posts} posts on the CMS")
    summary = {"scheduled": len(scheduled), "posts_on_cms": sum(references.values()), "post_requests": cms.count("POST", "/wp/v2/posts")}
    return summary, problems


def check_ledgers(conn) -> tuple[int, list[str]]:
    rows = conn.execute(
        """
        SELECT l.account_id, l.balance, l.reserved,
               COALESCE((SELECT sum(amount) FROM billing_credittransaction t WHERE t.account_id = l.account_id), 0),
               (SELECT count(*) FROM billing_creditreservation r WHERE r.account_id = l.account_id AND r.status = 'held')
        FROM billing_creditledger l
        """
    ).fetchall()
    problems = []
    for account_id, balance, reserved, ledger_sum, held in rows:
        if balance != ledger_sum or balance < 0 or reserved != 0 or held:
            problems.append(f"account {account_id}: balance {balance}, grants - charges {ledger_sum}, reserved {reserved}, reservations held {held}")
    return len(rows), problems


def check_logs(paths: list[Path]) -> tuple[dict, list[str]]:
    seen, answered, lines, job_lines = set(), set(), 0, 0
    for path in paths:
        for raw in path.read_text(errors="replace").splitlines():
            if not raw.startswith("{"):
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            lines += 1
            job_lines += "job_id" in line
            request_id = line.get("request_id", "-")
            if request_id == "-":
                continue
            seen.add(request_id)
            if line.get("event") == "response":
                answered.add(request_id)
    missing = seen - answered
    problems = [f"{len(missing)} request ids without a response line, e.g. {sorted(missing)[:3]}"] if missing else []
    return {"json_lines": lines, "lines_with_a_job_id": job_lines, "request_ids": len(seen)}, problems


# -- the report -------------------------------------------------------------------------------


def endpoint_table(stats_csv: Path) -> list[str]:
    rows = list(csv.DictReader(stats_csv.open()))
    lines = ["| endpoint | requests | failures | p50 ms | p95 ms | p99 ms |", "|---|---:|---:|---:|---:|---:|"]
    for row in sorted(rows, key=lambda r: (r["Name"] == "Aggregated", -int(r["Request Count"]))):
        name = "**all**" if row["Name"] == "Aggregated" else f"{row['Type']} {row['Name']}"
        lines.append(f"| {name} | {row['Request Count']} | {row['Failure Count']} | {row['50%']} | {row['95%']} | {row['99%']} |")
    return lines


def throughput(events: list[dict], started: float, duration: float) -> dict:
    buckets = Counter(int((event["t"] - started) // 10) for event in events if 0 <= event["t"] - started < duration)
    per_window = [buckets.get(index, 0) / 10 for index in range(1, int(duration // 10))]  # the first window is the ramp-up
    return {
        "requests": len(events),
        "rps": round(len(events) / duration, 2),
        "rps_10s_min": min(per_window, default=0),
        "rps_10s_median": statistics.median(per_window) if per_window else 0,
        "rps_10s_max": max(per_window, default=0),
        "errors_5xx": sum(1 for event in events if event["status"] >= 500),
        "no_answer": sum(1 for event in events if event["status"] == 0),
    }


def metrics_summary(text: str) -> list[str]:
    """The service's own metrics, summed over the labels that would make the list long."""
    lines = []
    for family in text_string_to_metric_families(text):
        if not family.name.startswith("inkwell_"):
            continue
        totals: dict[str, float] = defaultdict(float)
        for sample in family.samples:
            if sample.name.endswith(("_bucket", "_created")):
                continue
            labels = dict(sample.labels)
            if family.name.startswith("inkwell_http_request"):
                labels = {"status": labels.get("status", "")}
            key = sample.name + ("{" + ",".join(f"{k}={v}" for k, v in sorted(labels.items())) + "}" if labels else "")
            totals[key] += sample.value
        lines += [f"{key} {value:g}" for key, value in sorted(totals.items())]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=600, help="seconds of load (default 600)")
    parser.add_argument("--users", type=int, default=10, help="simulated content teams (default 10)")
    parser.add_argument("--spawn-rate", type=float, default=2)
    parser.add_argument("--faults", default=",".join(FAULTS), help=f"comma-separated, of {', '.join(FAULTS)}; empty for none")
    parser.add_argument("--pg-port", type=int, default=5441)
    parser.add_argument("--redis-port", type=int, default=6391)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--drain-timeout", type=int, default=300, help="seconds to wait for the background work after the load")
    parser.add_argument("--out", type=Path, default=None, help="the run's folder (default /tmp/inkwell-load-<time>)")
    args = parser.parse_args()
    faults = [name for name in args.faults.split(",") if name]
    unknown = set(faults) - set(FAULTS)
    if unknown:
        parser.error(f"unknown faults: {', '.join(sorted(unknown))}")

    out = (args.out or Path(f"/tmp/inkwell-load-{datetime.now(UTC):%Y%m%d-%H%M%S}")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics").mkdir()
    postgres = PrivatePostgres(args.pg_port)
    redis = PrivateRedis(args.redis_port, out / "redis")
    cms = WordPressTestServer().start()
    env = dict(os.environ)
    env.update(DEPLOYMENT)
    env.update(
        DATABASE_URL=postgres.url,
        REDIS_URL=redis.url,
        INKWELL_DATA_DIR=str(out / "data"),
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        METRICS_TOKEN=secrets.token_urlsafe(24),
        PROMETHEUS_MULTIPROC_DIR=str(out / "metrics"),
    )
    processes = Processes(env=env, out=out, web_workers=args.web_workers)
    problems: list[str] = []
    report: list[str] = []
    try:
        log(f"run folder {out}; PostgreSQL on {args.pg_port}, Redis on {args.redis_port}")
        postgres.start()
        redis.start()
        manage(env, "migrate", "--noinput")
        log("migrated")
        manage(env, "import_keywords", "--demo", "--if-empty", "--no-progress")
        processes.start_web()
        processes.start_beat()
        processes.start_worker()
        log(f"serving on {processes.base_url}; {args.users} teams for {args.duration} s, faults: {', '.join(faults) or 'none'}")

        events_file = out / "events.jsonl"
        locust_env = dict(os.environ, LOAD_EVENTS_FILE=str(events_file), LOAD_CMS_URL=cms.url, LOAD_CMS_USER=cms.user, LOAD_CMS_PASSWORD=cms.app_password)
        started = time.time()
        locust = subprocess.Popen(
            [
                str(BIN / "locust"), "-f", str(REPO_ROOT / "bench/load/locustfile.py"), "--headless", "--only-summary",
                "-u", str(args.users), "-r", str(args.spawn_rate), "-t", f"{args.duration}s", "--stop-timeout", "10",
                "--host", processes.base_url, "--csv", str(out / "locust"), "--loglevel", "WARNING",
            ],
            cwd=REPO_ROOT, env=locust_env, stdout=(out / "locust.log").open("wb"), stderr=subprocess.STDOUT,
        )
        timeline = FaultTimeline(faults=faults, duration=args.duration, started=started, processes=processes, redis=redis, postgres=postgres, cms=cms)
        timeline.start()
        supervisor = Supervisor(processes, started)
        supervisor.start()
        locust.wait(timeout=args.duration + 120)
        timeline.join(timeout=180)
        log("load over; waiting for the background work to drain")
        drained = drain(postgres, args.drain_timeout)
        supervisor.stopping.set()
        supervisor.join(timeout=30)
        metrics_text = requests.get(f"{processes.base_url}/metrics", headers={"Authorization": f"Bearer {env['METRICS_TOKEN']}"}, timeout=30).text
        (out / "metrics.txt").write_text(metrics_text)
        processes.stop_all()

        events = read_events(events_file)
        problems += [f"fault {error}" for error in timeline.errors]
        problems += check_server_errors(events, timeline.database_down())
        with postgres.connect() as conn:
            job_counts, found = check_jobs(conn)
            problems += found
            publishing, found = check_publishing(conn, events, cms)
            problems += found
            accounts, found = check_ledgers(conn)
            problems += found
        log_summary, found = check_logs(sorted([*out.glob("web.log"), *out.glob("worker-*.log"), *out.glob("beat.log")]))
        problems += found
        rates = throughput(events, started, args.duration)

        report += [f"# Load run {datetime.fromtimestamp(started, UTC):%Y-%m-%d %H:%M} UTC: {args.users} teams, {args.duration} s", ""]
        report += ["## Per endpoint", "", *endpoint_table(out / "locust_stats.csv"), ""]
        report += ["## Throughput", "", json.dumps(rates), ""]
        report += ["## Fault timeline (seconds after the start of the load)", ""]
        report += [f"- {fault.started - started:6.1f} – {fault.ended - started:6.1f}: {fault.detail}" for fault in timeline.done] or ["- none"]
        report += [f"- {at:6.1f}: {event}" for at, event in supervisor.events]
        report += ["", f"Drained in {drained:.0f} s. Jobs: {job_counts}. Publishing: {publishing}. Accounts: {accounts}. Logs: {log_summary}.", ""]
        report += ["## Metrics at the end", "", "```", *metrics_summary(metrics_text), "```", ""]
        report += ["## Checks", ""] + ([f"- FAILED: {problem}" for problem in problems] or ["- all hold"])
        text = "\n".join(report) + "\n"
        (out / "report.md").write_text(text)
        print(text, flush=True)
    finally:
        processes.stop_all()
        cms.stop()
        redis.stop()
        try:
            postgres.stop()
        except Exception:  # noqa: BLE001  (already down)
            pass
        postgres.remove(keep_log_in=out)
    if problems:
        log(f"{len(problems)} checks FAILED (report: {out / 'report.md'})")
        return 1
    log(f"every check holds (report: {out / 'report.md'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
