"""A real WordPress for tests: the ``wordpress`` fixture, and ``allow_private_cms``.

``scripts/test`` starts WordPress once (``scripts/wordpress-up``) and exports
``INKWELL_TEST_WP_URL``/``_USER``/``_APP_PASSWORD``, or ``INKWELL_TEST_WP_ERROR`` with the reason
it could not start (then nothing here tries again); without any of them, the first test that needs
WordPress runs ``scripts/wordpress-up`` itself (under a file lock: xdist workers ask at once),
which leaves it running for the next run. When WordPress cannot be started, the tests that need it
are skipped with a reason that says so, and the run's summary repeats it in capitals.

Tests that use the fixture are marked ``wordpress``. WordPress listens on loopback, which the CMS
address rules refuse by default: such tests also take ``allow_private_cms``. The instance is
shared by every test (and both test passes): tests name what they create uniquely and never
count what others may have made.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from inkwell.cms.base import CMSCredentials

ENV_PREFIX = "INKWELL_TEST_WP_"
WORDPRESS_UP = Path(__file__).resolve().parents[3] / "scripts" / "wordpress-up"
LOCK_FILE = Path("/tmp/inkwell-wordpress-up.lock")
START_TIMEOUT_SECONDS = 600  # a cold start installs Debian packages
SKIP_PREFIX = "WordPress could not be started"


@dataclass(frozen=True)
class WordPress:
    url: str
    user: str
    app_password: str

    @property
    def credentials(self) -> CMSCredentials:
        return CMSCredentials(base_url=self.url, username=self.user, app_password=self.app_password)

    def client(self) -> httpx2.Client:
        """A client for direct checks: relative URLs go to ``/wp-json``, authenticated."""
        return httpx2.Client(base_url=f"{self.url}/wp-json", auth=(self.user, self.app_password), timeout=30)


def _from_environment() -> WordPress | None:
    values = [os.environ.get(f"{ENV_PREFIX}{name}", "") for name in ("URL", "USER", "APP_PASSWORD")]
    return WordPress(*values) if all(values) else None


def _first_line(text: str) -> str:
    """The line that explains a failed start: wordpress-up's own last word, else the last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    own = [line for line in lines if line.startswith("[wordpress-up]")]
    return (own or lines or ["no output"])[-1]


def _start() -> WordPress:
    LOCK_FILE.touch(exist_ok=True)
    with LOCK_FILE.open("r") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            result = subprocess.run([str(WORDPRESS_UP)], capture_output=True, text=True, timeout=START_TIMEOUT_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            pytest.skip(f"{SKIP_PREFIX}: {_first_line(str(error))} — the real-CMS tests did not run")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    values = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    if result.returncode != 0 or not all(values.get(name) for name in ("WP_URL", "WP_USER", "WP_APP_PASSWORD")):
        reason = _first_line(result.stderr) if result.returncode else "wordpress-up printed no credentials"
        pytest.skip(f"{SKIP_PREFIX}: {reason} — the real-CMS tests did not run")
    return WordPress(values["WP_URL"], values["WP_USER"], values["WP_APP_PASSWORD"])


def running_wordpress() -> WordPress:
    """The WordPress the environment names, else one this process starts; skips when none."""
    error = os.environ.get(f"{ENV_PREFIX}ERROR", "")
    if error:
        pytest.skip(f"{SKIP_PREFIX}: {error} — the real-CMS tests did not run")
    return _from_environment() or _start()


@pytest.fixture(scope="session")
def wordpress() -> WordPress:
    return running_wordpress()


@pytest.fixture
def allow_private_cms(settings):
    """CMS addresses on loopback allowed for this test (the test servers live there)."""
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}
    return settings


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "wordpress" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.wordpress)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = [report for report in terminalreporter.stats.get("skipped", []) if SKIP_PREFIX in str(report.longrepr)]
    if skipped:
        reason = str(skipped[0].longrepr[2]) if isinstance(skipped[0].longrepr, tuple) else str(skipped[0].longrepr)
        terminalreporter.write_sep("!", f"{len(skipped)} REAL-WORDPRESS TESTS DID NOT RUN", red=True, bold=True)
        terminalreporter.write_line(reason.removeprefix("Skipped: "), red=True, bold=True)
