"""Jobs on real Celery workers, in both profiles: Redis broker with PostgreSQL (production) and
the filesystem transport with SQLite (the embedded default of ``make run``).

Each test runs its own deployment: gunicorn for the API, a Celery worker process (threads pool,
embedded beat, as ``manage.py serve`` starts it) and jobs of the engine's own test kinds.
"""

import os
import signal
import time
import uuid

import pytest
import requests

from tests.job_handlers import ECHO_KIND, SLEEP_KIND
from tests.live_server import celery_worker, gunicorn_server, manage, register_and_login, server_environment

pytestmark = pytest.mark.live_server_process

PROFILES = [pytest.param(False, id="redis-postgresql"), pytest.param(True, id="embedded-filesystem-sqlite")]


def _start_job(env, email: str, kind: str, params: dict) -> int:
    """Starts a job for the account of ``email`` as a domain service would, in its own process."""
    code = (
        "from tests import job_handlers; from inkwell.jobs.services import start_job; from inkwell.tenancy.models import User; "
        f"user = User.dangerously_unscoped.get(email={email!r}); "
        f"job = start_job(account=user.account, kind={kind!r}, params={params!r}, user=user); print('JOB', job.pk)"
    )
    output = manage(env, "shell", "-c", code)
    return int(output.split("JOB ")[1].split()[0])


def _job(server, token: str, job_id: int) -> dict:
    response = requests.get(server.url(f"/api/v1/jobs/{job_id}/"), headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def _wait_for(server, token: str, job_id: int, statuses: set[str], timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = _job(server, token, job_id)
        if job["status"] in statuses:
            return job
        assert time.monotonic() < deadline, f"job {job_id} is still {job['status']} after {timeout} s"
        time.sleep(0.1)


@pytest.fixture
def deployment(request):
    embedded = request.param
    if not embedded and not os.environ.get("REDIS_URL"):
        pytest.skip("the Redis profile runs in the production pass of `make test`")
    with server_environment(embedded=embedded, JOB_HEARTBEAT_SECONDS="1") as env, gunicorn_server(env) as server:
        email = f"jobs-{uuid.uuid4().hex[:8]}@example.com"
        yield env, server, email, register_and_login(server, email=email)


@pytest.mark.parametrize("deployment", PROFILES, indirect=True)
def test_a_worker_runs_a_job_to_its_result(deployment):
    env, server, email, token = deployment
    with celery_worker(env):
        job_id = _start_job(env, email, ECHO_KIND, {"value": "hello"})
        job = _wait_for(server, token, job_id, {"succeeded", "failed"})
    assert (job["status"], job["result"], job["progress"]) == ("succeeded", {"echo": "hello", "attempt": 1}, 100)


@pytest.mark.parametrize("deployment", PROFILES, indirect=True)
def test_a_job_whose_worker_is_killed_is_run_again_by_the_next_worker(deployment):
    env, server, email, token = deployment
    with celery_worker(env) as doomed:
        job_id = _start_job(env, email, SLEEP_KIND, {"seconds": 60})
        _wait_for(server, token, job_id, {"running"})
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()
    assert _job(server, token, job_id)["status"] == "running"
    time.sleep(2.5)  # longer than the stale limit below: the dead worker's heartbeat is now old
    with celery_worker({**env, "JOB_STALE_AFTER_SECONDS": "2"}):
        job = _wait_for(server, token, job_id, {"succeeded", "failed"})
    assert (job["status"], job["result"]) == ("succeeded", {"slept": 0, "attempt": 2})


def test_a_job_whose_worker_is_killed_on_its_last_attempt_fails_instead_of_running_forever():
    with server_environment(embedded=True, JOB_HEARTBEAT_SECONDS="1", JOB_MAX_ATTEMPTS="1") as env, gunicorn_server(env) as server:
        email = f"jobs-{uuid.uuid4().hex[:8]}@example.com"
        token = register_and_login(server, email=email)
        with celery_worker(env) as doomed:
            job_id = _start_job(env, email, SLEEP_KIND, {"seconds": 60})
            _wait_for(server, token, job_id, {"running"})
            os.killpg(doomed.pid, signal.SIGKILL)
            doomed.wait()
        time.sleep(2.5)
        with celery_worker({**env, "JOB_STALE_AFTER_SECONDS": "2"}):
            job = _wait_for(server, token, job_id, {"succeeded", "failed"})
    assert (job["status"], job["error"]["code"]) == ("failed", "worker_lost")
