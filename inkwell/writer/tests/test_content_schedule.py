"""schedule, unschedule (spec: States and transitions) and publish_to_cms."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from inkwell.api.tests import assert_error
from inkwell.integration.models import SiteIntegration
from inkwell.sitesettings.tests import publish_any_time
from inkwell.writer.models import Content, ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"


def schedule(client, content, **body):
    return client.post(f"{CONTENT}{content.pk}/schedule/", body, format="json")


def unschedule(client, content):
    return client.post(f"{CONTENT}{content.pk}/unschedule/")


@pytest.fixture(autouse=True)
def open_rules(tenant):
    """Any time is within the site's publishing rules here; the rules themselves are tested below."""
    publish_any_time(tenant.site)


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
    assert data == {"content_id": content.pk, "site_status": "scheduled", "scheduled_publish_at": data["scheduled_publish_at"], "overridden_rule": None}
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


# Contract section 12: schedules obey the rules (issue 30, case 4).


def _site_rules(tenant, **publishing):
    """Mon to Fri, one slot 09:00-10:00 in Europe/Paris, the given limits."""
    from inkwell.sitesettings.services import unified_settings_update
    from inkwell.tenancy.models import Site

    Site.objects.for_account(tenant.account).filter(pk=tenant.site.pk).update(time_zone="Europe/Paris")
    tenant.site.refresh_from_db()
    values = {"publish_days": ["mon", "tue", "wed", "thu", "fri"], "publish_time_slots": [{"start": "09:00", "end": "10:00"}],
              "daily_publish_limit": 0, "weekly_publish_limit": 0, "monthly_publish_limit": 0, **publishing}
    unified_settings_update(site=tenant.site, changes={"publishing_settings": values})


def _next(weekday: int, hour: int, minute: int):
    """The next local weekday (0: Monday) at hour:minute in Europe/Paris, at least two days ahead."""
    from zoneinfo import ZoneInfo

    day = (timezone.now() + timedelta(days=2)).astimezone(ZoneInfo("Europe/Paris")).date()
    day += timedelta(days=(weekday - day.weekday()) % 7)
    from datetime import datetime

    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo("Europe/Paris"))


def test_a_schedule_on_a_day_that_is_not_a_publishing_day_is_a_409_naming_the_rule(tenant, as_user, connected):
    _site_rules(tenant)
    content = approved_content(tenant)
    saturday = _next(5, 9, 30)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=saturday.isoformat())

    assert_error(response, 409, "outside_publishing_rules", error="Saturday is not a publishing day of this site")
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)


def test_a_schedule_outside_the_time_slots_is_a_409_naming_the_rule(tenant, as_user, connected):
    _site_rules(tenant)
    content = approved_content(tenant)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=_next(1, 11, 30).isoformat())

    assert_error(response, 409, "outside_publishing_rules", error="11:30 is outside this site's publishing time slots (09:00-10:00)")


def test_a_schedule_past_the_daily_limit_in_the_sites_time_zone_is_a_409_naming_the_rule(tenant, as_user, connected):
    _site_rules(tenant, daily_publish_limit=1, weekly_publish_limit=5, monthly_publish_limit=20)
    client = as_user(tenant.owner)
    first, second = approved_content(tenant), approved_content(tenant)
    assert schedule(client, first, scheduled_publish_at=_next(2, 9, 0).isoformat()).status_code == 200

    response = schedule(client, second, scheduled_publish_at=_next(2, 9, 40).isoformat())

    assert_error(response, 409, "outside_publishing_rules", error="The daily publishing limit of 1 is reached")


def test_a_schedule_within_the_rules_is_accepted(tenant, as_user, connected):
    _site_rules(tenant)
    content = approved_content(tenant)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=_next(3, 9, 15).isoformat())

    assert response.status_code == 200, response.content
    assert response.json()["data"]["overridden_rule"] is None


def test_override_rules_schedules_it_anyway_and_the_override_is_recorded_on_the_content(tenant, as_user, connected):
    from inkwell.publishing.models import ScheduleOverride

    _site_rules(tenant)
    content = approved_content(tenant)
    saturday = _next(5, 11, 30)

    response = schedule(as_user(tenant.admin), content, scheduled_publish_at=saturday.isoformat(), override_rules=True)

    assert response.status_code == 200, response.content
    assert response.json()["data"]["overridden_rule"] == "Saturday is not a publishing day of this site"
    assert state(content) == (SiteStatus.SCHEDULED, saturday)
    [override] = ScheduleOverride.objects.for_account(tenant.account).filter(content=content)
    assert (override.rule, override.created_by, override.scheduled_publish_at) == ("Saturday is not a publishing day of this site", tenant.admin, saturday)


def test_a_viewer_cannot_override_the_rules(tenant, as_user, connected):
    _site_rules(tenant)
    content = approved_content(tenant)

    response = schedule(as_user(tenant.viewer), content, scheduled_publish_at=_next(5, 11, 30).isoformat(), override_rules=True)

    assert response.status_code == 403
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)


def test_a_site_publishing_to_ghost_is_held_to_the_same_rules(tenant, as_user):
    """The rules are the site's, whatever its CMS: a Ghost site refuses Saturday as a WordPress one does."""
    from inkwell.integration.models import Platform
    from inkwell.integration.tests.factories import make_integration

    make_integration(tenant, platform=Platform.GHOST, base_url="https://ghost.example.com")
    _site_rules(tenant)
    content = approved_content(tenant)

    response = schedule(as_user(tenant.owner), content, scheduled_publish_at=_next(5, 9, 30).isoformat())

    assert_error(response, 409, "outside_publishing_rules", error="Saturday is not a publishing day of this site")
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)
