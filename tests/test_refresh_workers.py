"""Scheduled refreshes (#37) on real Celery workers, exactly once: two workers race for the same
due refreshes (every refresh's task delivered twice, as a broker that redelivers or two sweeps
would, and two sweeps on top), against a WordPress-faithful server that answers slowly and
records every update. Each live post is updated exactly once, each refresh has
one succeeded record, and every content ends with its refresh's text, still published at its URL.
Both profiles: Redis broker with PostgreSQL, the filesystem transport with SQLite."""

import json
import os
import re
import time

import pytest

from inkwell.cms.tests.cms_server import WordPressTestServer
from tests.live_server import celery_worker, manage, server_environment

pytestmark = pytest.mark.live_server_process

REFRESHES = 8

SEED = """
from datetime import timedelta
from django.utils import timezone
from inkwell.integration.models import SiteIntegration
from inkwell.publishing.services import publish_now, refresh_schedule
from inkwell.tenancy.models import Site
from inkwell.tenancy.services import account_register
from inkwell.writer import services as writer
from inkwell.writer.models import Content
owner = account_register(email="refresh-workers@example.com", password="correct-horse-1", account_name="Refresh workers")
account = owner.account
site = Site.objects.create(account=account, name="Blog", domain="blog.test", slug="refresh-blog")
SiteIntegration.objects.create(account=account, site=site, base_url={url!r}, username={user!r}, app_password={password!r}, webhook_secret="s" * 32)
at = timezone.now() + timedelta(seconds=1)
for n in range({count}):
    content = Content.objects.create(account=account, site=site, title=f"Article {{n}}", html=f"<p>Body {{n}}</p>", status="approved")
    publish_now(content=content, user=owner)
    content.refresh_from_db()
    refresh = writer.refresh_create(account=account, content=content, user=owner, reason="decaying")
    refresh = writer.refresh_update(account=account, refresh=refresh, user=owner, status="review", title=f"Article {{n}}, refreshed", html=f"<p>Body {{n}}, refreshed</p>")
    refresh = writer.refresh_update(account=account, refresh=refresh, user=owner, status="approved")
    refresh_schedule(refresh=refresh, scheduled_at=at, override_rules=True)  # a second from now, whatever the site's rules
"""

KICK = """
from inkwell.publishing import tasks
from inkwell.writer.models import ContentRefresh
ids = list(ContentRefresh.dangerously_unscoped.values_list("id", flat=True))
for _ in range(2):
    for refresh_id in ids:
        tasks.send_scheduled_refresh.delay(refresh_id)
    tasks.publish_due.delay()
"""

STATE = """
import json
from inkwell.publishing.models import PublishingRecord
from inkwell.writer.models import Content, ContentRefresh
print("STATE " + json.dumps({
    "send_status": sorted(ContentRefresh.dangerously_unscoped.values_list("send_status", flat=True)),
    "contents": {c.external_id: [c.title, c.site_status, c.external_url] for c in Content.dangerously_unscoped.all()},
    "records": sorted((r.refresh_id, r.status) for r in PublishingRecord.dangerously_unscoped.filter(refresh__isnull=False)),
}))
"""

PROFILES = [pytest.param(False, id="redis-postgresql"), pytest.param(True, id="embedded-filesystem-sqlite")]


def _state(env) -> dict:
    return json.loads(manage(env, "shell", "-c", STATE).split("STATE ", 1)[1].splitlines()[0])


@pytest.mark.parametrize("embedded", PROFILES)
def test_two_workers_racing_for_due_refreshes_update_each_live_post_exactly_once(embedded):
    if not embedded and not os.environ.get("REDIS_URL"):
        pytest.skip("the Redis profile runs in the production pass of `make test`")
    with WordPressTestServer() as cms, server_environment(embedded=embedded, CMS_ALLOW_PRIVATE_URLS="1") as env:
        manage(env, "shell", "-c", SEED.format(url=cms.url, user=cms.user, password=cms.app_password, count=REFRESHES))
        before = {str(post["id"]): post["link"] for post in cms.posts}
        published = len(cms.requests)
        # Slow updates: a send is under way while the next sweeps of both beats come round.
        cms.fail_next(REFRESHES, status=None, delay=1.5, method="POST")

        with celery_worker(env, beat=False) as first, celery_worker(env, beat=False) as second:
            manage(env, "shell", "-c", KICK)  # both workers are up: the duplicates go to both
            deadline = time.monotonic() + 120
            while (state := _state(env))["send_status"] != ["sent"] * REFRESHES:
                assert time.monotonic() < deadline, f"the refreshes are still {state['send_status']}"
                time.sleep(1)
            time.sleep(3)  # a duplicate still queued or running must change nothing
            state = _state(env)
            taken = [worker.log_file.read_text(errors="replace").count("send_scheduled_refresh[") for worker in (first, second)]
        titles = {post["title"]["raw"] for post in cms.posts}

    assert all(taken), f"one worker took no refresh: {taken}"  # the race was run
    updates = [request.route for request in cms.requests[published:] if request.method == "POST" and re.fullmatch(r"/wp/v2/posts/\d+", request.route)]
    assert sorted(updates) == sorted(f"/wp/v2/posts/{post_id}" for post_id in before)  # each post once, none twice
    assert cms.count("POST", "/wp/v2/posts") == REFRESHES  # the posts made by the seed; no new post
    assert [record[1] for record in state["records"]] == ["succeeded"] * REFRESHES
    assert len({record[0] for record in state["records"]}) == REFRESHES
    assert titles == {f"Article {n}, refreshed" for n in range(REFRESHES)}
    assert {external_id: (title.endswith(", refreshed"), status, url) for external_id, (title, status, url) in state["contents"].items()} == {
        external_id: (True, "published", link) for external_id, link in before.items()
    }
