"""schedule, unschedule (spec: States and transitions) and publish_to_cms."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from inkwell.api.tests import assert_error
from inkwell.integration.models import SiteIntegration
from inkwell.writer.models import Content, ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"


def schedule(client, content, **body):
    return client.post(f"{CONTENT}{content.pk}/schedule/", body, format="json")


def unschedule(client, content):
    return client.post(f"{CONTENT}{content.pk}/unschedule/")


@pytest.fixture
def connected(tenant):
    """An active CMS integration: what scheduling needs (the editorial gate)."""
    return SiteIntegration.objects.create(account=tenant.account, site=tenant.site, base_url="https://cms.example.com", username="u", app_password="p", webhook_secret="s" * 32)


def approved_content(tenant, **fields):
    return make_content(tenant, status=ContentStatus.APPROVED, **fields)


def state(content) -> tuple:
    row = Content.dangerously_unscoped.get(pk=content.pk)
    return row.site_status, row.scheduled_publish_at


@pytest.mark.parametrize("site_status", [SiteStatus.NOT_PUBLISHED, SiteStatus.SCHEDULED, SiteStatus.PUBLISHED, SiteStatus.FAILED])
def test_content_in_any_publishing_status_but_publishing_can_be_scheduled(tenant, as_user, connected, site_status):
    content = approved_content(tenant, site_status=site_status)
    when = (timezone.now() + timedelta(days=2)).replace(microsecond=0)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=when.isoformat())

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data == {"content_id": content.pk, "site_status": "scheduled", "scheduled_publish_at": data["scheduled_publish_at"]}
    assert parse_datetime(data["scheduled_publish_at"]) == when
    assert state(content) == (SiteStatus.SCHEDULED, when)


def test_the_stored_time_is_returned_by_the_content_too(tenant, as_user, connected):
    content = approved_content(tenant)
    when = timezone.now() + timedelta(hours=3)
    client = as_user(tenant.owner)

    schedule(client, content, scheduled_publish_at=when.isoformat())

    data = client.get(f"{CONTENT}{content.pk}/").json()["data"]
    assert data["site_status"] == "scheduled"
    assert parse_datetime(data["scheduled_publish_at"]) == when


def test_a_time_in_the_past_is_a_400_on_that_field(tenant, as_user):
    content = make_content(tenant)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=(timezone.now() - timedelta(minutes=1)).isoformat())

    assert_error(response, 400, "validation_error", errors={"scheduled_publish_at": ["The publish time must be in the future"]})
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)


def test_a_missing_or_malformed_time_is_a_400_on_that_field(tenant, as_user):
    content = make_content(tenant)
    client = as_user(tenant.owner)

    assert_error(schedule(client, content), 400, "validation_error", errors={"scheduled_publish_at": ["This field is required"]})
    malformed = schedule(client, content, scheduled_publish_at="next tuesday")
    assert malformed.status_code == 400
    assert list(malformed.json()["errors"]) == ["scheduled_publish_at"]


def test_content_being_published_cannot_be_scheduled(tenant, as_user, connected):
    content = approved_content(tenant, site_status=SiteStatus.PUBLISHING)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=(timezone.now() + timedelta(days=1)).isoformat())

    assert_error(response, 409, "state_conflict", errors={"site_status": ["Content that is being published cannot be scheduled"]})
    assert state(content) == (SiteStatus.PUBLISHING, None)


def test_unschedule_takes_scheduled_content_off_the_schedule(tenant, as_user, connected):
    content = approved_content(tenant)
    client = as_user(tenant.owner)
    schedule(client, content, scheduled_publish_at=(timezone.now() + timedelta(days=1)).isoformat())

    response = unschedule(client, content)

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"content_id": content.pk, "site_status": "not_published", "scheduled_publish_at": None}
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)


@pytest.mark.parametrize("site_status", [SiteStatus.NOT_PUBLISHED, SiteStatus.PUBLISHING, SiteStatus.PUBLISHED, SiteStatus.FAILED])
def test_unschedule_of_content_that_is_not_scheduled_is_a_state_conflict(tenant, as_user, site_status):
    content = make_content(tenant, site_status=site_status)

    response = unschedule(as_user(tenant.owner), content)

    assert_error(response, 409, "state_conflict", errors={"site_status": ["Content is not scheduled"]})
    assert state(content) == (site_status, None)


def test_publish_to_cms_answers_that_the_site_has_no_cms_integration(tenant, as_user):
    content = approved_content(tenant, site_status=SiteStatus.NOT_PUBLISHED)

    response = as_user(tenant.owner).post(f"{CONTENT}{content.pk}/publish_to_cms/")

    assert_error(response, 409, "state_conflict", errors={"site": ["This site has no CMS integration"]})
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)


def test_editors_schedule_content_of_their_sites(granted, as_user, connected):
    content = approved_content(granted)

    response = schedule(as_user(granted.editor), content, scheduled_publish_at=(timezone.now() + timedelta(days=1)).isoformat())

    assert response.status_code == 200, response.content


@pytest.mark.parametrize("status", [ContentStatus.DRAFT, ContentStatus.REVIEW])
def test_content_that_is_not_approved_cannot_be_scheduled(tenant, as_user, connected, status):
    content = make_content(tenant, status=status)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=(timezone.now() + timedelta(days=1)).isoformat())

    assert response.status_code == 409 and response.json()["code"] == "state_conflict"
    assert response.json()["errors"]["status"] == [
        f"Only approved content can be published or scheduled; this content is {status}: move it to approved first (update_content with status approved)"
    ]
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)


@pytest.mark.parametrize("integration", ["none", "inactive"])
def test_content_of_a_site_without_an_active_cms_integration_cannot_be_scheduled(tenant, as_user, integration):
    if integration == "inactive":
        SiteIntegration.objects.create(account=tenant.account, site=tenant.site, base_url="https://cms.example.com", username="u", app_password="p", webhook_secret="s" * 32, is_active=False)
    content = approved_content(tenant)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=(timezone.now() + timedelta(days=1)).isoformat())

    assert_error(response, 409, "state_conflict", errors={"site": ["This site has no active CMS integration: connect one (POST /api/v1/integration/) or activate it first"]})
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)
