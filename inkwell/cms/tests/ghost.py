"""A real Ghost for tests: the ``ghost`` fixture.

``scripts/test`` starts Ghost once (``scripts/ghost-up``) and exports ``INKWELL_TEST_GHOST_URL``
and ``INKWELL_TEST_GHOST_ADMIN_KEY``, or ``INKWELL_TEST_GHOST_ERROR`` with the reason it could not
start (then nothing here tries again); without any of them, the first test that needs Ghost runs
``scripts/ghost-up`` itself (under a file lock: xdist workers ask at once), which leaves it
running for the next run. When Ghost cannot be started, the tests that need it are skipped with a
reason that says so, and the run's summary repeats it in capitals.

Tests that use the fixture are marked ``ghost``. Ghost listens on loopback, which the CMS address
rules refuse by default: such tests also take ``allow_private_cms``. The instance is shared by
every test (and both test passes): tests name what they create uniquely and never count what
others may have made.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx2
import jwt
import pytest

from inkwell.cms.base import CMSCredentials

ENV_PREFIX = "INKWELL_TEST_GHOST_"
GHOST_UP = Path(__file__).resolve().parents[3] / "scripts" / "ghost-up"
LOCK_FILE = Path("/tmp/inkwell-ghost-up.lock")
START_TIMEOUT_SECONDS = 900  # a cold start installs Ghost from the npm registry (about 3 minutes)
SKIP_PREFIX = "Ghost could not be started"


@dataclass(frozen=True)
class Ghost:
    url: str
    admin_key: str

    @property
    def credentials(self) -> CMSCredentials:
        return CMSCredentials(base_url=self.url, username="", app_password=self.admin_key)

    def token(self) -> str:
        key_id, secret = self.admin_key.split(":")
        now = int(time.time())
        return jwt.encode({"iat": now, "exp": now + 300, "aud": "/admin/"}, bytes.fromhex(secret), algorithm="HS256", headers={"kid": key_id})

    def client(self) -> httpx2.Client:
        """A client for direct checks, independent of the adapter: relative URLs go to the Admin API."""
        return httpx2.Client(
            base_url=f"{self.url}/ghost/api/admin",
            headers={"Authorization": f"Ghost {self.token()}", "Accept-Version": "v5.0"},
            timeout=30,
        )


def _from_environment() -> Ghost | None:
    values = [os.environ.get(f"{ENV_PREFIX}{name}", "") for name in ("URL", "ADMIN_KEY")]
    return Ghost(*values) if all(values) else None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    own = [line for line in lines if line.startswith("[ghost-up")]
    return (own or lines or ["no output"])[-1]


def _start() -> Ghost:
    LOCK_FILE.touch(exist_ok=True)
    with LOCK_FILE.open("r") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            result = subprocess.run([str(GHOST_UP)], capture_output=True, text=True, timeout=START_TIMEOUT_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            pytest.skip(f"{SKIP_PREFIX}: {_first_line(str(error))} — the real-Ghost tests did not run")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    values = dict(pair.split("=", 1) for pair in result.stdout.split() if "=" in pair)
    if result.returncode != 0 or not all(values.get(name) for name in ("GHOST_URL", "GHOST_ADMIN_KEY")):
        reason = _first_line(result.stderr) if result.returncode else "ghost-up printed no credentials"
        pytest.skip(f"{SKIP_PREFIX}: {reason} — the real-Ghost tests did not run")
    return Ghost(values["GHOST_URL"], values["GHOST_ADMIN_KEY"])


_started: list[Ghost] = []


def running_ghost() -> Ghost:
    """The Ghost the environment names, else one this process starts; skips when none."""
    error = os.environ.get(f"{ENV_PREFIX}ERROR", "")
    if error:
        pytest.skip(f"{SKIP_PREFIX}: {error} — the real-Ghost tests did not run")
    found = _from_environment()
    if found is None:
        if not _started:
            _started.append(_start())
        found = _started[0]
    return found


@pytest.fixture(scope="session")
def ghost() -> Ghost:
    return running_ghost()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "ghost" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ghost)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = [report for report in terminalreporter.stats.get("skipped", []) if SKIP_PREFIX in str(report.longrepr)]
    if skipped:
        reason = str(skipped[0].longrepr[2]) if isinstance(skipped[0].longrepr, tuple) else str(skipped[0].longrepr)
        terminalreporter.write_sep("!", f"{len(skipped)} REAL-GHOST TESTS DID NOT RUN", red=True, bold=True)
        terminalreporter.write_line(reason.removeprefix("Skipped: "), red=True, bold=True)
