"""The publishing scheduler, exactly once, against the real Ghost: two scheduler processes sweep
the same due contents at the same time; each content becomes exactly one Ghost post, and every
content ends published with one record and that post's id and URL.

The Ghost is shared with other tests and runs: the account gets a random id, so our references
(``{account}-{content}``) are this run's alone, and only posts carrying them are counted.
"""

import json
import random
import subprocess
import sys

import pytest

from tests.live_server import REPO_ROOT, manage, server_environment

pytestmark = [pytest.mark.live_server_process, pytest.mark.ghost]

DUE_CONTENTS = 12

SEED = """
from datetime import timedelta
from django.utils import timezone
from inkwell.integration.models import SiteIntegration
from inkwell.tenancy.models import Account, Site
from inkwell.writer.models import Content
account = Account.objects.create(id={account_id}, name="Ghost scheduler test")
site = Site.objects.create(account=account, name="Blog", domain="ghost.test", slug="ghost-scheduler-blog")
SiteIntegration.objects.create(account=account, site=site, platform="ghost", base_url={url!r}, username="", app_password={key!r}, webhook_secret="s" * 32)
due = timezone.now() - timedelta(minutes=1)
Content.objects.bulk_create(
    Content(account=account, site=site, title=f"Ghost article {account_id} {{n}}", html=f"<p>Body {{n}}</p>", status="approved", site_status="scheduled", scheduled_publish_at=due)
    for n in range({count})
)
"""

REPORT = """
import json
from inkwell.publishing.models import PublishingRecord
from inkwell.writer.models import Content
print(json.dumps({
    "site_status": sorted(set(Content.dangerously_unscoped.values_list("site_status", flat=True))),
    "posts": {f"{c.account_id}-{c.pk}": [c.external_id, c.external_url] for c in Content.dangerously_unscoped.all()},
    "records": list(PublishingRecord.dangerously_unscoped.values_list("status", flat=True)),
}))
"""


@pytest.mark.parametrize("embedded", [False, True], ids=["postgresql", "sqlite"])
def test_two_schedulers_at_once_publish_each_due_content_to_ghost_exactly_once(embedded, ghost):
    account_id = random.randint(10**6, 10**9)
    with server_environment(embedded=embedded, CMS_ALLOW_PRIVATE_URLS="1") as env:
        manage(env, "shell", "-c", SEED.format(account_id=account_id, url=ghost.url, key=ghost.admin_key, count=DUE_CONTENTS))

        schedulers = [
            subprocess.Popen([sys.executable, "manage.py", "publish_due"], cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        outputs = [scheduler.communicate(timeout=300) for scheduler in schedulers]

        assert [scheduler.returncode for scheduler in schedulers] == [0, 0], outputs
        assert sum(int(stdout.split()[0]) for stdout, _ in outputs) == DUE_CONTENTS
        state = json.loads(manage(env, "shell", "-c", REPORT).strip().splitlines()[-1])

    with ghost.client() as client:
        answer = client.get("/posts/", params={"filter": f"codeinjection_foot:~'inkwell:ref:{account_id}-'", "fields": "id,url,status,codeinjection_foot", "limit": "all"})
    posts = answer.json()["posts"]
    assert len(posts) == DUE_CONTENTS  # one post per content, none twice
    by_reference = {post["codeinjection_foot"].removeprefix("<!-- inkwell:ref:").removesuffix(" -->"): post for post in posts}
    assert set(by_reference) == set(state["posts"])
    assert all(post["status"] == "published" for post in posts)
    assert state["site_status"] == ["published"]
    assert {reference: [post["id"], post["url"]] for reference, post in by_reference.items()} == state["posts"]
    assert state["records"] == ["succeeded"] * DUE_CONTENTS
