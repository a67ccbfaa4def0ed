"""The publishing scheduler, exactly once: two scheduler processes sweep the same 200 due
contents at the same time, against a WordPress-faithful server that counts what it is asked to
create. Each content becomes one post, and every content ends published with one record."""

import json
import subprocess
import sys

import pytest

from inkwell.cms.tests.cms_server import WordPressTestServer
from tests.live_server import REPO_ROOT, manage, server_environment

pytestmark = pytest.mark.live_server_process

DUE_CONTENTS = 200

SEED = """
from datetime import timedelta
from django.utils import timezone
from inkwell.integration.models import SiteIntegration
from inkwell.tenancy.models import Account, Site
from inkwell.writer.models import Content
account = Account.objects.create(name="Scheduler test")
site = Site.objects.create(account=account, name="Blog", domain="blog.test", slug="scheduler-blog")
SiteIntegration.objects.create(account=account, site=site, base_url={url!r}, username={user!r}, app_password={password!r}, webhook_secret="s" * 32)
due = timezone.now() - timedelta(minutes=1)
Content.objects.bulk_create(
    Content(account=account, site=site, title=f"Article {{n}}", html=f"<p>Body {{n}}</p>", status="approved", site_status="scheduled", scheduled_publish_at=due)
    for n in range({count})
)
"""

REPORT = """
import json
from inkwell.publishing.models import PublishingRecord
from inkwell.writer.models import Content
print(json.dumps({
    "site_status": sorted(set(Content.dangerously_unscoped.values_list("site_status", flat=True))),
    "external_ids": list(Content.dangerously_unscoped.values_list("external_id", flat=True)),
    "records": list(PublishingRecord.dangerously_unscoped.values_list("status", flat=True)),
}))
"""


@pytest.mark.parametrize("embedded", [False, True], ids=["postgresql", "sqlite"])
def test_two_schedulers_at_once_publish_each_due_content_exactly_once(embedded):
    with WordPressTestServer() as cms, server_environment(embedded=embedded, CMS_ALLOW_PRIVATE_URLS="1") as env:
        manage(env, "shell", "-c", SEED.format(url=cms.url, user=cms.user, password=cms.app_password, count=DUE_CONTENTS))

        schedulers = [
            subprocess.Popen([sys.executable, "manage.py", "publish_due"], cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        outputs = [scheduler.communicate(timeout=300) for scheduler in schedulers]

        assert [scheduler.returncode for scheduler in schedulers] == [0, 0], outputs
        handled = [int(stdout.split()[0]) for stdout, _ in outputs]
        assert sum(handled) == DUE_CONTENTS
        assert cms.count("POST", "/wp/v2/posts") == DUE_CONTENTS
        posts = cms.posts
        assert len(posts) == DUE_CONTENTS
        assert len({post["title"]["raw"] for post in posts}) == DUE_CONTENTS
        state = json.loads(manage(env, "shell", "-c", REPORT).strip().splitlines()[-1])
        assert state["site_status"] == ["published"]
        assert sorted(state["external_ids"], key=int) == sorted((str(post["id"]) for post in posts), key=int)
        assert state["records"] == ["succeeded"] * DUE_CONTENTS
