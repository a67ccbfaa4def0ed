"""Real server processes for tests: the API under gunicorn, as in production, on loopback.

``server_environment()`` prepares what one deployment needs: its own database (a fresh
PostgreSQL database when the test run uses PostgreSQL, else a SQLite file), its own data folder
and cache key prefix, migrated. ``gunicorn_server(env)`` starts one gunicorn on that environment;
start it twice to get two server groups sharing the database and the cache. ``live_server()``
does both for the common case of one server.
"""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import requests
from psycopg import sql

REPO_ROOT = Path(__file__).resolve().parent.parent
# A loaded machine (shared CI, several test runs at once) may take longer to import Django.
STARTUP_TIMEOUT_SECONDS = int(os.environ.get("INKWELL_TEST_STARTUP_SECONDS", "60"))
STOP_TIMEOUT_SECONDS = 10
DEFAULT_PASSWORD = "correct-horse-1"

# Every scope of settings.INKWELL_RATE_LIMITS, raised far beyond what a test sends.
HIGH_RATE_LIMITS = {
    "RATE_LIMIT_AI": "100000",
    "RATE_LIMIT_CONTENT": "100000",
    "RATE_LIMIT_AUTH": "100000",
    "RATE_LIMIT_GENERAL": "100000",
}


@dataclass(frozen=True)
class LiveServer:
    base_url: str
    log_file: Path

    def url(self, path: str) -> str:
        return self.base_url + path

    def log(self) -> str:
        return self.log_file.read_text(errors="replace")


def _is_postgresql(database_url: str) -> bool:
    return urlsplit(database_url).scheme in {"postgres", "postgresql", "pgsql"}


@contextmanager
def _postgresql_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the test run's PostgreSQL server; dropped afterwards."""
    name = f"inkwell_live_{uuid.uuid4().hex[:12]}"
    # Connected to the maintenance database, as Django's test runner does to create its own.
    admin_url = urlsplit(server_url)._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlsplit(server_url)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            # FORCE: a connection a killed worker left behind must not keep the database alive.
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def manage(env: dict[str, str], *args: str, timeout: int = 120) -> str:
    """Runs ``manage.py`` for a deployment other than the test process's own (also used by bench/); returns its output."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result.stdout


@contextmanager
def server_environment(*, embedded: bool = False, **overrides: str) -> Iterator[dict[str, str]]:
    """The environment of one deployment, with its database created and migrated.

    Servers and workers started with it share the database, the data folder (so the secret key
    that signs tokens), the Celery queue and, through ``CACHE_KEY_PREFIX``, the cache: counters
    and queued work of other test runs in the same Redis database are invisible to them.
    ``embedded`` gives the profile of ``make run`` (SQLite file, database cache, Celery on the
    filesystem transport) whatever the test run uses. ``overrides`` are extra variables, e.g.
    ``RATE_LIMIT_GENERAL="10"``.
    """
    with tempfile.TemporaryDirectory(prefix="inkwell-live-") as data_dir:
        env = dict(os.environ)
        if embedded:
            env.pop("DATABASE_URL", None)
            env.pop("REDIS_URL", None)
        env.update(
            INKWELL_DATA_DIR=data_dir,
            CACHE_KEY_PREFIX=f"live-{uuid.uuid4().hex[:12]}",
            CELERY_QUEUE=f"live-{uuid.uuid4().hex[:12]}",
            PYTHONUNBUFFERED="1",
        )
        env.update(overrides)
        test_database_url = env.get("DATABASE_URL", "")
        if _is_postgresql(test_database_url):
            database = _postgresql_database(test_database_url)
        else:
            database = nullcontext(f"sqlite:///{Path(data_dir) / 'live.sqlite3'}")
        with database as database_url:
            env["DATABASE_URL"] = database_url
            manage(env, "migrate", "--noinput")
            manage(env, "createcachetable")
            yield env


def _listening_socket() -> socket.socket:
    """A socket bound to a free loopback port, handed to gunicorn as ``fd://``.

    Binding here rather than picking a port number for gunicorn to bind leaves no window in
    which a parallel test (pytest-xdist) could take the same port.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock


def stop_process_group(process: subprocess.Popen) -> None:
    """Stops a server started with ``start_new_session=True`` and its workers (also used by bench/)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _wait_until_healthy(server: LiveServer, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode} before answering:\n{server.log()}")
        try:
            if requests.get(server.url("/healthz"), timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not answer /healthz within {STARTUP_TIMEOUT_SECONDS} s:\n{server.log()}")


@contextmanager
def gunicorn_server(env: dict[str, str], *, workers: int = 2) -> Iterator[LiveServer]:
    """``gunicorn inkwell.wsgi`` on a free loopback port, stopped (its whole process group) afterwards."""
    sock = _listening_socket()
    port = sock.getsockname()[1]
    log_file = Path(env["INKWELL_DATA_DIR"]) / f"gunicorn-{port}.log"
    with sock, log_file.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "inkwell.wsgi",
                "--bind", f"fd://{sock.fileno()}", "--workers", str(workers), "--access-logfile", "-",
            ],
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=[sock.fileno()],
            start_new_session=True,
        )
    server = LiveServer(base_url=f"http://127.0.0.1:{port}", log_file=log_file)
    try:
        _wait_until_healthy(server, process)
        yield server
    finally:
        stop_process_group(process)


@contextmanager
def celery_worker(
    env: dict[str, str], *, include: str = "tests.job_handlers", beat: bool = True, concurrency: int = 2, cwd: Path = REPO_ROOT
) -> Iterator[subprocess.Popen]:
    """A Celery worker (threads pool, as ``make run`` starts it, ``concurrency`` threads) on the
    deployment ``env``; it also loads the job kinds of ``include``. Stopped with its process
    group afterwards. ``cwd``: the source tree it runs (a benchmark's older code)."""
    data_dir = Path(env["INKWELL_DATA_DIR"])
    log_file = data_dir / f"celery-{uuid.uuid4().hex[:6]}.log"
    command = [sys.executable, "-m", "celery", "-A", "inkwell", "worker", "--pool", "threads", "--concurrency", str(concurrency), "--loglevel", "INFO", "-I", include]
    command += ["--hostname", f"worker-{uuid.uuid4().hex[:6]}@%h"]  # two workers of one test are two nodes
    if beat:
        command += ["--beat", "--schedule", str(data_dir / f"beat-{uuid.uuid4().hex[:6]}")]
    with log_file.open("wb") as log:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    process.log_file = log_file
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while b" ready." not in log_file.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Celery worker did not start:\n{log_file.read_text(errors='replace')}")
            time.sleep(0.1)
        yield process
    finally:
        stop_process_group(process)


@contextmanager
def live_server(**overrides: str) -> Iterator[LiveServer]:
    """One gunicorn server on its own fresh deployment (see ``server_environment``)."""
    with server_environment(**overrides) as env, gunicorn_server(env) as server:
        yield server


def register_and_login(server: LiveServer, *, email: str | None = None, password: str = DEFAULT_PASSWORD) -> str:
    """Signs a new owner up over HTTP and returns their access token."""
    email = email or f"live-{uuid.uuid4().hex[:10]}@example.com"
    response = requests.post(server.url("/api/v1/auth/register/"), json={"email": email, "password": password}, timeout=10)
    assert response.status_code == 201, response.text
    response = requests.post(server.url("/api/v1/auth/login/"), json={"email": email, "password": password}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["data"]["access"]
