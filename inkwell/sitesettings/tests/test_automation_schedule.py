"""The automation part of a site's settings (issue 7, Build 1): the stored ``next_run_at`` and what
moves it, the stages' ``use_testing`` and ``budget_pct``, the delays, and the budget total rule."""

import importlib
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from inkwell.api.exceptions import BusinessRuleViolation
from inkwell.sitesettings import services as site_settings
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.selectors import effective_settings
from inkwell.sitesettings.services import BUDGET_OVER_100, unified_settings_update
from inkwell.sitesettings.tests.factories import make_site_settings
from inkwell.tenancy.models import Site

pytestmark = pytest.mark.django_db

# Monday 2 March 2026, 08:00 UTC.
MONDAY = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def stored(site) -> SiteSettings:
    return SiteSettings.objects.for_account(site.account_id).get(site=site)


def update(site, now=MONDAY, **changes) -> SiteSettings:
    """``changes`` as the serializer validates them (times as ``time``)."""
    return unified_settings_update(site=site, changes=changes, now=now)


def in_time_zone(tenant, time_zone: str) -> Site:
    Site.objects.for_account(tenant.account).filter(pk=tenant.site.pk).update(time_zone=time_zone)
    tenant.site.refresh_from_db()
    return tenant.site


# next_run_at


def test_enabling_automation_stores_the_schedules_next_run_after_now(tenant):
    row = update(tenant.site, automation_config={"enabled": True})

    assert row.next_run_at == utc("2026-03-03T02:00")
    assert effective_settings(site=tenant.site).automation.next_run_at == utc("2026-03-03T02:00")


def test_next_run_at_is_placed_in_the_sites_time_zone(tenant):
    site = in_time_zone(tenant, "Europe/Berlin")

    row = update(site, automation_config={"enabled": True, "scheduled_time": time(9, 30)})

    # 09:30 in Berlin on Monday 2 March is 08:30 UTC, still ahead of 08:00 UTC.
    assert row.next_run_at == utc("2026-03-02T08:30")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"frequency": "hourly"}, "2026-03-02T09:00"),
        ({"frequency": "weekly", "scheduled_days": ["wed", "fri"]}, "2026-03-04T02:00"),
        ({"scheduled_days": ["sun"]}, "2026-03-08T02:00"),
        ({"scheduled_time": time(10, 45)}, "2026-03-02T10:45"),
    ],
)
def test_every_change_of_the_schedule_moves_next_run_at(tenant, change, expected):
    update(tenant.site, automation_config={"enabled": True})

    row = update(tenant.site, now=MONDAY + timedelta(minutes=1), automation_config=change)

    assert row.next_run_at == utc(expected)


def test_disabling_automation_clears_next_run_at(tenant):
    update(tenant.site, automation_config={"enabled": True})

    assert update(tenant.site, automation_config={"enabled": False}).next_run_at is None


def test_changes_that_are_not_the_schedule_leave_a_due_run_due(tenant):
    update(tenant.site, automation_config={"enabled": True})
    after_the_run_was_due = utc("2026-03-03T02:00:30")

    row = update(
        tenant.site,
        now=after_the_run_was_due,
        automation_config={"stage_2_batch_size": 4, "within_stage_delay": 0},
        stage_configs=[{"stage": 1, "budget_pct": 5}],
        publishing_settings={"daily_publish_limit": 1},
    )

    assert row.next_run_at == utc("2026-03-03T02:00")


def test_a_schedule_without_a_day_never_runs(tenant):
    make_site_settings(tenant, automation={"scheduled_days": []})

    assert update(tenant.site, automation_config={"enabled": True}).next_run_at is None


def test_a_reset_disables_automation_and_clears_next_run_at(tenant):
    update(tenant.site, automation_config={"enabled": True})

    assert site_settings.site_settings_reset(site=tenant.site).next_run_at is None


# The site's time zone


@pytest.fixture
def scheduled(tenant, as_user):
    """The tenant's site (UTC) runs daily at 09:30; next_run_at was computed just now."""
    update(tenant.site, now=datetime.now(UTC), automation_config={"enabled": True, "scheduled_time": time(9, 30)})
    return tenant


def test_a_new_time_zone_moves_next_run_at_to_the_same_local_time(scheduled, as_user):
    response = as_user(scheduled.owner).patch(f"/api/v1/auth/sites/{scheduled.site.pk}/", {"time_zone": "Asia/Tokyo"}, format="json")

    assert response.status_code == 200, response.content
    next_run_at = stored(scheduled.site).next_run_at
    local = next_run_at.astimezone(ZoneInfo("Asia/Tokyo"))
    assert (local.hour, local.minute) == (9, 30)
    assert datetime.now(UTC) < next_run_at <= datetime.now(UTC) + timedelta(days=1)


def test_saving_a_site_without_a_new_time_zone_keeps_next_run_at(scheduled, as_user):
    before = stored(scheduled.site).next_run_at

    response = as_user(scheduled.owner).patch(f"/api/v1/auth/sites/{scheduled.site.pk}/", {"name": "Renamed"}, format="json")

    assert response.status_code == 200, response.content
    assert stored(scheduled.site).next_run_at == before


def test_a_due_run_is_left_to_the_dispatcher_when_the_time_zone_changes(tenant):
    make_site_settings(tenant, automation={"enabled": True}, next_run_at=utc("2026-03-02T02:00"))

    tenant.site.time_zone = "Asia/Tokyo"
    tenant.site.save()

    assert stored(tenant.site).next_run_at == utc("2026-03-02T02:00")


def test_sites_that_enabled_automation_before_the_column_existed_are_scheduled(tenant, other_tenant):
    make_site_settings(tenant, automation={"enabled": True, "time": "03:00"})
    make_site_settings(other_tenant, automation={"time": "03:00"})
    migration = importlib.import_module("inkwell.publishing.migrations.0003_automation_schedule_and_delays")

    # The models as they were at that migration, when publishing held the site settings.
    state = MigrationLoader(connection).project_state(("publishing", "0003_automation_schedule_and_delays"))

    migration.schedule_enabled_sites(state.apps, None)

    next_run_at = stored(tenant.site).next_run_at
    assert (next_run_at.hour, next_run_at.minute) == (3, 0)
    assert datetime.now(UTC) < next_run_at <= datetime.now(UTC) + timedelta(days=1)
    assert stored(other_tenant.site).next_run_at is None


# Stages and delays


def test_use_testing_budget_pct_and_delays_are_stored_and_apply(tenant):
    row = update(
        tenant.site,
        automation_config={"within_stage_delay": 0, "between_stage_delay": 12},
        stage_configs=[{"stage": 4, "use_testing": True, "budget_pct": 30}, {"stage": 6, "budget_pct": 25}],
    )

    settings = effective_settings(site=tenant.site)
    assert (settings.delays.within_stage, settings.delays.between_stage) == (0, 12)
    assert (settings.stage(4).use_testing, settings.stage(4).budget_pct, settings.stage(6).budget_pct) == (True, 30, 25)
    assert row.delays == {"within_stage": 0, "between_stage": 12}
    assert row.stages == {"4": {"use_testing": True, "budget_pct": 30}, "6": {"budget_pct": 25}}


def test_budgets_adding_up_to_more_than_100_are_a_422_and_change_nothing(tenant):
    update(tenant.site, stage_configs=[{"stage": 4, "budget_pct": 30}])

    with pytest.raises(BusinessRuleViolation) as refused:
        update(tenant.site, stage_configs=[{"stage": 1, "budget_pct": 50}, {"stage": 2, "budget_pct": 26}])

    # 50 + 26 + 0 + 30 + 0 + 0 + 0
    assert refused.value.errors == {"stage_configs": [BUDGET_OVER_100.format(total=106)]}
    assert stored(tenant.site).stages == {"4": {"budget_pct": 30}}


def test_budgets_may_add_up_to_exactly_100_or_less(tenant):
    update(tenant.site, stage_configs=[{"stage": 4, "budget_pct": 100}, *({"stage": n, "budget_pct": 0} for n in (1, 2, 3, 5, 6, 7))])
    assert [stage.budget_pct for stage in effective_settings(site=tenant.site).stages] == [0, 0, 0, 100, 0, 0, 0]

    update(tenant.site, stage_configs=[{"stage": 4, "budget_pct": 10}])
    assert sum(stage.budget_pct for stage in effective_settings(site=tenant.site).stages) == 10
