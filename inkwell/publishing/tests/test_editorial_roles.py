"""Who may approve and who may publish (the role matrix of docs/api.md), cell by cell, through the real
URLs: approve (update_content to approved), publish now (publish_to_cms and /publisher/publish/),
schedule and unschedule. Editors and viewers act on the sites granted to them."""

from datetime import timedelta

import pytest
from django.utils import timezone

from inkwell.sitesettings.tests import publish_any_time
from inkwell.publishing.tests.helpers import connect, ready_content
from inkwell.writer.models import Content, ContentStatus, SiteStatus

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"
ALLOWED = {"owner": True, "admin": True, "editor": True, "viewer": False}


@pytest.fixture(autouse=True)
def private_cms_allowed(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}


def row(content) -> Content:
    return Content.dangerously_unscoped.get(pk=content.pk)


@pytest.mark.parametrize("role", list(ALLOWED))
def test_approve(granted, as_user, role):
    content = ready_content(granted, images=False, status=ContentStatus.REVIEW)

    response = as_user(getattr(granted, role)).post(f"{CONTENT}{content.pk}/update_content/", {"status": "approved"}, format="json")

    assert response.status_code == (200 if ALLOWED[role] else 403)
    assert row(content).status == (ContentStatus.APPROVED if ALLOWED[role] else ContentStatus.REVIEW)


@pytest.mark.parametrize("path", ["publish_to_cms", "publisher"])
@pytest.mark.parametrize("role", list(ALLOWED))
def test_publish_now(granted, as_user, cms_server, role, path):
    connect(granted, cms_server)
    content = ready_content(granted, images=False)
    client = as_user(getattr(granted, role))

    if path == "publisher":
        response = client.post("/api/v1/publisher/publish/", {"content_id": content.pk}, format="json")
    else:
        response = client.post(f"{CONTENT}{content.pk}/publish_to_cms/")

    assert response.status_code == (200 if ALLOWED[role] else 403)
    assert row(content).site_status == (SiteStatus.PUBLISHED if ALLOWED[role] else SiteStatus.NOT_PUBLISHED)
    assert len(cms_server.posts) == (1 if ALLOWED[role] else 0)


@pytest.mark.parametrize("role", list(ALLOWED))
def test_schedule(granted, as_user, cms_server, role):
    connect(granted, cms_server)
    publish_any_time(granted.site)  # the rules are not this test's subject
    content = ready_content(granted, images=False)
    when = (timezone.now() + timedelta(days=1)).isoformat()

    response = as_user(getattr(granted, role)).post(f"{CONTENT}{content.pk}/schedule/", {"scheduled_publish_at": when}, format="json")

    assert response.status_code == (200 if ALLOWED[role] else 403)
    assert row(content).site_status == (SiteStatus.SCHEDULED if ALLOWED[role] else SiteStatus.NOT_PUBLISHED)


@pytest.mark.parametrize("role", list(ALLOWED))
def test_unschedule(granted, as_user, cms_server, role):
    connect(granted, cms_server)
    content = ready_content(granted, images=False, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=timezone.now() + timedelta(days=1))

    response = as_user(getattr(granted, role)).post(f"{CONTENT}{content.pk}/unschedule/")

    assert response.status_code == (200 if ALLOWED[role] else 403)
    assert row(content).site_status == (SiteStatus.NOT_PUBLISHED if ALLOWED[role] else SiteStatus.SCHEDULED)


@pytest.mark.parametrize("action", ["approve", "publish_to_cms", "schedule"])
def test_an_editor_acts_only_on_the_sites_granted_to_them(tenant, as_user, cms_server, action):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False, status=ContentStatus.REVIEW if action == "approve" else ContentStatus.APPROVED)
    client = as_user(tenant.editor)
    requests = {
        "approve": lambda: client.post(f"{CONTENT}{content.pk}/update_content/", {"status": "approved"}, format="json"),
        "publish_to_cms": lambda: client.post(f"{CONTENT}{content.pk}/publish_to_cms/"),
        "schedule": lambda: client.post(f"{CONTENT}{content.pk}/schedule/", {"scheduled_publish_at": (timezone.now() + timedelta(days=1)).isoformat()}, format="json"),
    }
    before = row(content)

    response = requests[action]()

    assert response.status_code == 404
    after = row(content)
    assert (after.status, after.site_status) == (before.status, before.site_status)
    assert cms_server.posts == []
