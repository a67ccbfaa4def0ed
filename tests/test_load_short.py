"""The load test's short version (docs/benchmarks.md, "Load test with faults"): one minute of the content team mix on a
private production profile while PostgreSQL restarts, then every check of ``bench/load/run``
(answers, jobs, publishing exactly once, ledgers, logs). It exits non-zero when one fails."""

import socket
import subprocess

import pytest

from tests.live_server import REPO_ROOT

pytestmark = pytest.mark.live_server_process


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_minute_of_load_through_a_database_restart_loses_nothing(tmp_path):
    run = subprocess.run(
        [
            str(REPO_ROOT / "bench/load/run"), "--duration", "60", "--users", "4", "--faults", "postgres",
            "--pg-port", str(free_port()), "--redis-port", str(free_port()), "--drain-timeout", "60", "--out", str(tmp_path / "run"),
        ],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )

    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    report = (tmp_path / "run" / "report.md").read_text()
    assert "- all hold" in report
    assert "restart PostgreSQL" in report
