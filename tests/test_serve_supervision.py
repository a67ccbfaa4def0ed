"""``manage.py serve`` leaves nothing behind, in every order of death: kill the web server, the
worker, the beat or serve itself, and every process it started ends; and a second beat on the
same schedule refuses to start while one runs."""

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import requests

from tests.live_server import REPO_ROOT, server_environment

pytestmark = pytest.mark.live_server_process

START_TIMEOUT = 90
STOP_TIMEOUT = 30


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _living(processes: list[psutil.Process]) -> list[str]:
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(f"{process.pid} {' '.join(process.cmdline())[:120]}")
        except psutil.NoSuchProcess:
            continue
    return alive


class Served:
    """One ``manage.py serve`` on the embedded profile, and the processes it started."""

    def __init__(self, env: dict[str, str]):
        self.env, self.port = env, _free_port()
        self.log = Path(env["INKWELL_DATA_DIR"]) / "serve.log"
        self.lock = Path(env["INKWELL_DATA_DIR"]) / "celerybeat-schedule.lock"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(self.port), "--web-workers", "1"],
                cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        self.serve = psutil.Process(self.process.pid)
        self._wait_until_up()
        self.tree = self.serve.children(recursive=True)

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            if self._beat_holds_the_lock():
                try:
                    if requests.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200:
                        return
                except requests.RequestException:
                    pass
            time.sleep(0.2)
        raise AssertionError(f"serve did not start its web server and beat in time:\n{self.log.read_text()}")

    def _beat_holds_the_lock(self) -> bool:
        try:
            return self.lock.read_text().strip() == str(self.child("beat").pid)
        except (FileNotFoundError, StopIteration, psutil.NoSuchProcess):
            return False

    def child(self, name: str) -> psutil.Process:
        """``web`` (gunicorn's master), ``worker`` or ``beat`` (Celery's)."""
        marker = {"web": " gunicorn ", "worker": " worker ", "beat": " beat "}[name]
        return next(process for process in psutil.Process(self.process.pid).children() if marker in f" {' '.join(process.cmdline())} ")

    def all_processes(self) -> list[psutil.Process]:
        return [self.serve, *self.tree]

    def wait_until_all_gone(self) -> list[str]:
        deadline = time.monotonic() + STOP_TIMEOUT
        while time.monotonic() < deadline and _living(self.all_processes()):
            time.sleep(0.2)
        living = _living(self.all_processes())
        if not living:
            self.process.wait()
        return living

    def kill_everything(self) -> None:
        for process in self.all_processes():
            try:
                process.kill()
            except psutil.NoSuchProcess:
                continue


@pytest.fixture(scope="module")
def deployment():
    """One migrated embedded deployment: each test starts its own serve on it (none survives a test)."""
    with server_environment(embedded=True) as env:
        yield env


@pytest.fixture
def served(deployment):
    started = Served(deployment)
    try:
        yield started
    finally:
        started.kill_everything()


@pytest.mark.parametrize("victim", ["web", "worker", "beat"])
def test_a_child_killed_takes_every_process_serve_started_with_it(served, victim):
    assert len(served.tree) >= 4, "gunicorn's master and worker, Celery's worker and beat"

    served.child(victim).send_signal(signal.SIGKILL)

    assert served.wait_until_all_gone() == []
    assert served.process.returncode not in (None, 0)


def test_serve_killed_takes_every_process_it_started_with_it(served):
    served.process.send_signal(signal.SIGKILL)

    assert served.wait_until_all_gone() == []


def test_a_second_beat_on_the_same_schedule_refuses_to_start(served):
    beat = served.child("beat")

    second = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "inkwell", "beat", "--schedule", str(served.lock.with_suffix("")), "--loglevel", "INFO"],
        cwd=REPO_ROOT, env=served.env, capture_output=True, text=True, timeout=60,
    )

    assert second.returncode != 0
    assert f"another beat (process {beat.pid}) already runs on this schedule" in second.stdout + second.stderr
    assert beat.is_running()
