"""What other domains call: ``effective_settings`` (automation reads its stages, delays and schedule
through it) and ``schedule_in_next_slot`` (auto-publish places approved content)."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.exceptions import BusinessRuleViolation
from inkwell.integration.models import SiteIntegration
from inkwell.publishing import services as publishing_services
from inkwell.publishing.services import schedule_in_next_slot
from inkwell.sitesettings import slots
from inkwell.sitesettings.selectors import effective_settings
from inkwell.sitesettings.tests.factories import make_site_settings
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

# Monday 2 March 2026, 08:00 UTC.
MONDAY = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


APPROVED = ContentStatus.APPROVED


@pytest.fixture(autouse=True)
def active_integration(tenant):
    """Scheduling needs an active CMS integration (the editorial gate)."""
    return SiteIntegration.objects.create(account=tenant.account, site=tenant.site, base_url="https://cms.example.com", username="u", app_password="p", webhook_secret="s" * 32)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def state(content) -> tuple:
    row = Content.dangerously_unscoped.get(pk=content.pk)
    return row.site_status, row.scheduled_publish_at


# effective_settings


def test_effective_settings_lay_the_sites_changes_over_the_defaults(tenant):
    make_site_settings(
        tenant,
        automation={"enabled": True, "time": "05:45:30", "scheduled_days": ["sat"]},
        stages={"4": {"batch_size": 3, "per_run_limit": 12}},
        publishing={"weekly_publish_limit": 9, "time_slots": [{"start": "06:00", "end": "06:30"}]},
    )

    settings = effective_settings(site=tenant.site)

    assert (settings.automation.enabled, settings.automation.time.isoformat(), settings.automation.scheduled_days) == (True, "05:45:30", ("sat",))
    assert settings.automation.frequency == "daily"
    stage = settings.stage(4)
    assert (stage.number, stage.enabled, stage.batch_size, stage.per_run_limit, stage.use_testing, stage.budget_pct) == (4, True, 3, 12, False, 75)
    assert settings.stage(1).batch_size == 50
    assert (settings.publishing.daily_publish_limit, settings.publishing.weekly_publish_limit) == (3, 9)
    assert settings.publishing.time_slots == ({"start": "06:00", "end": "06:30"},)


def test_stored_fields_that_are_no_longer_settings_are_ignored(tenant):
    make_site_settings(
        tenant, automation={"retired_flag": True}, stages={"9": {"batch_size": 2}}, publishing={"retired": 1, "daily_publish_limit": 2}
    )

    settings = effective_settings(site=tenant.site)

    assert len(settings.stages) == 7
    assert settings.publishing.daily_publish_limit == 2


def test_effective_settings_cost_one_query(tenant, django_assert_num_queries):
    make_site_settings(tenant, publishing={"daily_publish_limit": 2})
    with django_assert_num_queries(1):
        effective_settings(site=tenant.site)


def test_the_effective_settings_cannot_change_the_defaults(tenant):
    effective_settings(site=tenant.site).publishing.time_slots[0]["start"] = "23:00"
    assert effective_settings(site=tenant.site).publishing.time_slots[0]["start"] == "09:00"


# schedule_in_next_slot


@pytest.fixture
def new_york(tenant):
    Site.objects.for_account(tenant.account).filter(pk=tenant.site.pk).update(time_zone="America/New_York")
    tenant.site.refresh_from_db()
    return tenant


def test_approved_content_goes_into_the_next_free_slot_in_the_sites_time_zone(new_york):
    content = make_content(new_york, status="approved")

    result = schedule_in_next_slot(content=content, after=MONDAY)

    # 09:00 in New York on Monday 2 March (EST, UTC-5).
    assert result == {"content_id": content.pk, "site_status": SiteStatus.SCHEDULED, "scheduled_publish_at": utc("2026-03-02T14:00")}
    assert state(content) == (SiteStatus.SCHEDULED, utc("2026-03-02T14:00"))


def test_slots_taken_by_scheduled_content_are_skipped(tenant):
    make_content(tenant, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=utc("2026-03-02T09:00"))
    make_content(tenant, site_status=SiteStatus.PUBLISHING, scheduled_publish_at=utc("2026-03-02T14:00"))
    content = make_content(tenant, status=APPROVED)

    assert schedule_in_next_slot(content=content, after=MONDAY)["scheduled_publish_at"] == utc("2026-03-02T18:00")


def test_content_published_earlier_this_week_counts_towards_the_weekly_limit(tenant):
    make_site_settings(tenant, publishing={"weekly_publish_limit": 2, "daily_publish_limit": 1})
    for day in ("2026-03-02T07:00", "2026-03-03T07:00"):
        make_content(tenant, site_status=SiteStatus.PUBLISHED, published_at=utc(day))
    content = make_content(tenant, status=APPROVED)

    # Wednesday of a week that published two already: the next week's Monday.
    assert schedule_in_next_slot(content=content, after=utc("2026-03-04T08:00"))["scheduled_publish_at"] == utc("2026-03-09T09:00")


def test_content_of_other_sites_and_unscheduled_content_take_no_slot(tenant, other_tenant):
    second = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")
    make_content(tenant, site=second, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=utc("2026-03-02T09:00"))
    make_content(other_tenant, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=utc("2026-03-02T09:00"))
    make_content(tenant, site_status=SiteStatus.FAILED, scheduled_publish_at=utc("2026-03-02T09:00"))
    content = make_content(tenant, status=APPROVED)

    assert schedule_in_next_slot(content=content, after=MONDAY)["scheduled_publish_at"] == utc("2026-03-02T09:00")


def test_scheduling_again_does_not_count_the_contents_own_slot(tenant):
    content = make_content(tenant, status=APPROVED, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=utc("2026-03-02T09:00"))
    assert schedule_in_next_slot(content=content, after=MONDAY)["scheduled_publish_at"] == utc("2026-03-02T09:00")


def test_two_placements_take_two_slots(tenant):
    first, second = make_content(tenant, status=APPROVED), make_content(tenant, status=APPROVED)
    assert schedule_in_next_slot(content=first, after=MONDAY)["scheduled_publish_at"] == utc("2026-03-02T09:00")
    assert schedule_in_next_slot(content=second, after=MONDAY)["scheduled_publish_at"] == utc("2026-03-02T14:00")


def test_the_taken_times_are_read_in_one_query(tenant):
    for day in range(5):
        make_content(tenant, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=MONDAY + timedelta(days=day))
    content = make_content(tenant, status=APPROVED)

    with CaptureQueriesContext(connection) as captured:
        schedule_in_next_slot(content=content, after=MONDAY)

    statements = [query["sql"].split()[0] for query in captured.captured_queries if "SAVEPOINT" not in query["sql"]]
    # The site lock, the settings, the taken times, the active integration (the gate), the schedule
    # update and the account's webhook endpoints subscribed to content.scheduled (the outbox).
    assert statements == ["SELECT", "SELECT", "SELECT", "SELECT", "UPDATE", "SELECT"]


def test_no_free_slot_within_the_horizon_is_a_422_and_leaves_the_content_alone(tenant):
    make_site_settings(tenant, publishing={"publish_days": ["mon"], "time_slots": [{"start": "09:00", "end": "10:00"}]})
    every_monday_at_nine = [MONDAY + timedelta(weeks=week, hours=1) for week in range(slots.HORIZON_DAYS // 7 + 2)]
    Content.objects.bulk_create(
        Content(account=tenant.account, site=tenant.site, title=f"At {moment}", site_status=SiteStatus.SCHEDULED, scheduled_publish_at=moment)
        for moment in every_monday_at_nine
    )
    content = make_content(tenant, status=APPROVED)

    with pytest.raises(BusinessRuleViolation) as refused:
        schedule_in_next_slot(content=content, after=MONDAY)

    assert refused.value.errors == {"scheduled_publish_at": ["No free publishing slot within the limits"]}
    assert state(content) == (SiteStatus.NOT_PUBLISHED, None)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_placements_never_take_the_same_slot(tenant, monkeypatch):
    """The site row is locked before the taken times are read: the second placement waits for the
    first to commit, then sees its slot taken. The planner is slowed down so that, without the
    lock, both would read the same free slot."""
    contents = [make_content(tenant, status=APPROVED), make_content(tenant, status=APPROVED)]
    plan = slots.next_free_slot

    def slow_plan(**kwargs):
        slot = plan(**kwargs)
        threading.Event().wait(0.3)
        return slot

    monkeypatch.setattr(publishing_services.slots, "next_free_slot", slow_plan)
    start = threading.Barrier(2)
    results, errors = [], []

    def place(content):
        try:
            start.wait()
            results.append(schedule_in_next_slot(content=content, after=MONDAY)["scheduled_publish_at"])
        except Exception as error:  # reported below; an exception in a thread would vanish
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=place, args=(content,)) for content in contents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert not errors
    assert sorted(results) == [utc("2026-03-02T09:00"), utc("2026-03-02T14:00")]
