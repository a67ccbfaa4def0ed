"""Outbound webhooks on real Celery workers, in both profiles (Redis broker with PostgreSQL, and
the filesystem transport with SQLite): nothing is lost when the worker dies between the change and
the delivery, or when the broker loses the kick.

The change is made in its own process (``manage.py shell``, as a request would), the delivery goes
to a real receiver on loopback that verifies its signature with the ``standardwebhooks`` package.
"""

import json
import os
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from inkwell.webhooks.tests.receiver import webhook_receiver
from tests.live_server import celery_worker, manage, server_environment

pytestmark = pytest.mark.live_server_process

PROFILES = [pytest.param(False, id="redis-postgresql"), pytest.param(True, id="embedded-filesystem-sqlite")]

SET_UP = """
import json
from inkwell.tenancy.models import Site
from inkwell.tenancy.services import account_register
from inkwell.webhooks.services import endpoint_create
from inkwell.writer.models import Content
owner = account_register(email="hooks@example.com", password="correct-horse-1", account_name="Hooks")
site = Site.objects.create(account=owner.account, name="Blog", domain="blog.example.com", slug="blog")
content = Content.objects.create(account=owner.account, site=site, title="Tomatoes on a balcony", html="<p>Sun.</p>", status="review")
endpoint, secret = endpoint_create(account=owner.account, url={url!r}, events=["content.approved"])
print("SETUP " + json.dumps({{"content_id": content.pk, "secret": secret}}))
"""

APPROVE = """
from inkwell.tenancy.models import User
from inkwell.writer.models import Content
from inkwell.writer.services import content_update
owner = User.dangerously_unscoped.get(email="hooks@example.com")
content = Content.objects.for_account(owner.account).get(pk={content_id})
content_update(account=owner.account, content=content, user=owner, status="approved")
"""

STATE = """
import json
from inkwell.webhooks.models import WebhookDelivery, WebhookAttempt
delivery = WebhookDelivery.dangerously_unscoped.get()
attempts = list(WebhookAttempt.dangerously_unscoped.filter(delivery=delivery).order_by("number").values("number", "outcome", "error", "response_code"))
print("STATE " + json.dumps({"status": delivery.status, "message_id": delivery.event.message_id, "attempts": attempts}))
"""


def _shell(env, code: str, marker: str) -> dict | None:
    output = manage(env, "shell", "-c", code)
    return json.loads(output.split(f"{marker} ", 1)[1].splitlines()[0]) if marker else None


# The killed-worker test waits past this window for the lost claim. A living send ends within the
# timeout and the window is more than twice that (settings check webhooks.E001), so a slow send on
# a loaded machine is not taken for a lost one and sent twice; the timeout outlasts the moments
# between the first request and the kill (a 4 s one ran out first on a loaded machine, and the
# retry delivered the message before the worker died). The other tests keep the defaults
# (a 120 s window, a 10 s timeout): nothing in them waits for a lost claim.
STALE_SECONDS = 25
TIMEOUT_SECONDS = 10


@contextmanager
def _deployment(embedded: bool, **overrides: str):
    if not embedded and not os.environ.get("REDIS_URL"):
        pytest.skip("the Redis profile runs in the production pass of `make test`")
    overrides = {
        "CMS_ALLOW_PRIVATE_URLS": "true",  # the receiver is on loopback
        "WEBHOOK_SWEEP_SECONDS": "1",
        "WEBHOOK_RETRY_SCHEDULE": "1,1,1,1",
        **overrides,
    }
    with server_environment(embedded=embedded, **overrides) as env:
        yield env


@pytest.fixture
def deployment(request):
    with _deployment(request.param) as env:
        yield env


@pytest.fixture
def deployment_with_short_claims(request):
    with _deployment(request.param, WEBHOOK_STALE_SECONDS=str(STALE_SECONDS), WEBHOOK_TIMEOUT_SECONDS=str(TIMEOUT_SECONDS)) as env:
        yield env


def _wait_for_status(env, status: str, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = _shell(env, STATE, "STATE")
        if state["status"] == status:
            return state
        assert time.monotonic() < deadline, f"the delivery is still {state['status']} after {timeout} s: {state}"
        time.sleep(0.5)


@pytest.mark.parametrize("deployment_with_short_claims", PROFILES, indirect=True)
def test_a_delivery_whose_worker_is_killed_mid_send_is_sent_by_the_next_worker(deployment_with_short_claims):
    env = deployment_with_short_claims
    # The first request hangs long enough for its worker to be killed while sending it.
    with webhook_receiver(answers=[("sleep", 20), 200]) as receiver:
        setup = _shell(env, SET_UP.format(url=receiver.url), "SETUP")
        receiver.verify_with(setup["secret"])
        with celery_worker(env) as doomed:
            _shell(env, APPROVE.format(content_id=setup["content_id"]), "")
            receiver.wait_for(1)
            os.killpg(doomed.pid, signal.SIGKILL)
            doomed.wait()
        assert _shell(env, STATE, "STATE")["status"] == "delivering"
        time.sleep(STALE_SECONDS + 0.5)  # past WEBHOOK_STALE_SECONDS: the dead worker's claim is old now

        with celery_worker(env):
            state = _wait_for_status(env, "succeeded")

        first, second = receiver.requests[:2]
        assert first.verified and second.verified
        assert first.headers["webhook-id"] == second.headers["webhook-id"] == state["message_id"]
        assert second.payload["type"] == "content.approved"
        assert [(attempt["outcome"], attempt["error"], attempt["response_code"]) for attempt in state["attempts"]] == [
            ("failed", "worker_lost", None),
            ("succeeded", "", 200),
        ]


def _lose_the_kicks(env) -> None:
    """The broker dies with the queued kicks: Redis's queue is deleted, or the filesystem
    transport's folder emptied."""
    if env["DATABASE_URL"].startswith("sqlite"):
        queue = Path(env["INKWELL_DATA_DIR"]) / "celery" / "queue"
        lost = list(queue.iterdir())
        assert lost, "the change queued no kick"
        shutil.rmtree(queue)
        queue.mkdir()
    else:
        subprocess.run(["redis-cli", "-u", env["REDIS_URL"], "del", env["CELERY_QUEUE"]], check=True, capture_output=True)


@pytest.mark.parametrize("deployment", PROFILES, indirect=True)
def test_a_delivery_whose_kick_the_broker_lost_is_sent_by_the_sweep(deployment):
    env = deployment
    with webhook_receiver() as receiver:
        setup = _shell(env, SET_UP.format(url=receiver.url), "SETUP")
        receiver.verify_with(setup["secret"])
        # No worker runs: the change commits, its kick waits in the broker, and the broker loses it.
        _shell(env, APPROVE.format(content_id=setup["content_id"]), "")
        assert _shell(env, STATE, "STATE")["status"] == "pending"
        _lose_the_kicks(env)

        with celery_worker(env):
            state = _wait_for_status(env, "succeeded")

        (request,) = receiver.requests
        assert request.verified and request.headers["webhook-id"] == state["message_id"]
        assert [(attempt["outcome"], attempt["response_code"]) for attempt in state["attempts"]] == [("succeeded", 200)]
