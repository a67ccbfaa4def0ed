"""What the CMS reports of our content's post (read by a sync or a webhook) changes on its
publishing status, at the level of the publishing service that applies it."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from inkwell.cms.base import RemotePost
from inkwell.publishing import services
from inkwell.writer.models import SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

MODIFIED = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
URL = "https://blog.example.com/post/"


def remote(status: str) -> RemotePost:
    return RemotePost(external_id="42", url=URL, status=status, modified_at=MODIFIED)


STATE_TABLE = [
    # our site_status, remote status (None: gone), expected (site_status, external_id, external_url)
    (SiteStatus.NOT_PUBLISHED, "publish", (SiteStatus.PUBLISHED, "42", URL)),
    (SiteStatus.FAILED, "publish", (SiteStatus.PUBLISHED, "42", URL)),
    (SiteStatus.PUBLISHED, "draft", (SiteStatus.NOT_PUBLISHED, "42", "https://old.example.com/")),
    (SiteStatus.PUBLISHED, "pending", (SiteStatus.NOT_PUBLISHED, "42", "https://old.example.com/")),
    (SiteStatus.PUBLISHED, "private", (SiteStatus.NOT_PUBLISHED, "42", "https://old.example.com/")),
    (SiteStatus.PUBLISHED, "trash", (SiteStatus.NOT_PUBLISHED, "42", "https://old.example.com/")),
    (SiteStatus.PUBLISHED, "future", (SiteStatus.PUBLISHED, "42", "https://old.example.com/")),
    (SiteStatus.PUBLISHED, "inherit", (SiteStatus.PUBLISHED, "42", "https://old.example.com/")),
    (SiteStatus.PUBLISHED, None, (SiteStatus.NOT_PUBLISHED, "", "")),
    (SiteStatus.PUBLISHING, "trash", (SiteStatus.PUBLISHING, "42", "https://old.example.com/")),
    (SiteStatus.PUBLISHING, None, (SiteStatus.PUBLISHING, "42", "https://old.example.com/")),
    (SiteStatus.SCHEDULED, "draft", (SiteStatus.SCHEDULED, "42", "https://old.example.com/")),
    (SiteStatus.SCHEDULED, "publish", (SiteStatus.SCHEDULED, "42", "https://old.example.com/")),
    (SiteStatus.SCHEDULED, None, (SiteStatus.SCHEDULED, "", "")),
]


@pytest.mark.parametrize(("ours", "theirs", "expected"), STATE_TABLE, ids=lambda value: str(value))
def test_the_remote_state_of_a_post_maps_onto_our_content(tenant, ours, theirs, expected):
    content = make_content(tenant, site_status=ours, external_id="42", external_url="https://old.example.com/")

    changed = services.apply_remote_post(content=content, remote=None if theirs is None else remote(theirs))

    content.refresh_from_db()
    assert (content.site_status, content.external_id, content.external_url) == expected
    assert changed == (expected != (ours, "42", "https://old.example.com/"))


def test_publishing_sets_the_publish_time_only_when_there_is_none(tenant):
    fresh = make_content(tenant, external_id="42")
    earlier = timezone.now() - timedelta(days=3)
    known = make_content(tenant, external_id="42", published_at=earlier)

    services.apply_remote_post(content=fresh, remote=remote("publish"))
    services.apply_remote_post(content=known, remote=remote("publish"))

    fresh.refresh_from_db()
    known.refresh_from_db()
    assert (fresh.published_at, known.published_at) == (MODIFIED, earlier)


def test_a_change_made_since_the_content_was_read_wins(tenant):
    content = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id="42")
    stale = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id="42")
    stale.pk = content.pk
    content.site_status = SiteStatus.PUBLISHING
    content.save()

    assert services.apply_remote_post(content=stale, remote=remote("draft")) is False
    content.refresh_from_db()
    assert content.site_status == SiteStatus.PUBLISHING
