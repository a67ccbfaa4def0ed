"""The dispatcher (issue 7, Build 4): scheduled runs start at their time in the site's time zone,
not before and not twice, whatever the number of dispatchers; an occurrence that cannot start
is skipped and the schedule moves on. The clock is frozen by passing ``now``."""

import threading
from datetime import UTC, datetime, time, timedelta

import pytest
from django.conf import settings
from django.db import connection

from inkwell.automation import selectors, services
from inkwell.automation.models import AutomationRun, RunStatus, RunTrigger
from inkwell.automation.tasks import dispatch_due_runs
from inkwell.automation.tests.factories import make_run
from inkwell.billing import services as billing
from inkwell.billing.models import CreditLedger
from inkwell.celery import app
from inkwell.notifications.models import Notification
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.services import unified_settings_update
from inkwell.system.models import ModuleSetting
from inkwell.tenancy.models import Site, Subscription, SubscriptionStatus
from inkwell.writer.tests.factories import make_task

pytestmark = pytest.mark.django_db

# Monday 2 March 2026, 08:00 UTC; the schedules below run at 02:00, so the first is Tuesday's.
MONDAY = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
TUESDAY_2AM = datetime(2026, 3, 3, 2, 0, tzinfo=UTC)


def schedule(tenant, site=None, *, now=MONDAY, **config) -> SiteSettings:
    """Enables the site's automation (daily at 02:00 unless ``config`` says otherwise) as of ``now``."""
    config = {"enabled": True, "scheduled_time": time(2, 0), **config}
    return unified_settings_update(site=site or tenant.site, changes={"automation_config": config}, now=now)


def runs(tenant) -> list[AutomationRun]:
    return list(AutomationRun.objects.for_account(tenant.account).order_by("id"))


def next_run_at(site) -> datetime | None:
    return SiteSettings.objects.for_account(site.account_id).get(site=site).next_run_at


def test_a_run_starts_at_its_scheduled_time_and_not_before(tenant):
    schedule(tenant)

    assert dispatch_due_runs(now=TUESDAY_2AM - timedelta(seconds=1)) == 0
    assert runs(tenant) == []

    assert dispatch_due_runs(now=TUESDAY_2AM) == 1
    (run,) = runs(tenant)
    assert (run.site_id, run.trigger, run.created_by_id, run.status) == (tenant.site.pk, RunTrigger.SCHEDULED, None, RunStatus.QUEUED)
    assert next_run_at(tenant.site) == TUESDAY_2AM + timedelta(days=1)


def test_a_second_pass_does_not_start_the_same_run_again(tenant):
    schedule(tenant)

    assert dispatch_due_runs(now=TUESDAY_2AM + timedelta(seconds=5)) == 1
    assert dispatch_due_runs(now=TUESDAY_2AM + timedelta(seconds=65)) == 0

    assert len(runs(tenant)) == 1


def test_of_two_dispatchers_that_read_the_same_due_site_one_claims_it(tenant):
    schedule(tenant)
    (seen_by_first,) = selectors.due_automation(now=TUESDAY_2AM)
    (seen_by_second,) = selectors.due_automation(now=TUESDAY_2AM)

    assert services.claim_due_run(row=seen_by_first, now=TUESDAY_2AM) is True
    assert services.claim_due_run(row=seen_by_second, now=TUESDAY_2AM) is False


def test_a_schedule_changed_after_it_was_read_is_not_claimed(tenant):
    schedule(tenant)
    (seen,) = selectors.due_automation(now=TUESDAY_2AM)
    schedule(tenant, now=TUESDAY_2AM, scheduled_time=time(3, 0))

    assert services.claim_due_run(row=seen, now=TUESDAY_2AM) is False
    assert next_run_at(tenant.site) == TUESDAY_2AM + timedelta(hours=1)


def test_the_schedule_is_kept_in_the_sites_time_zone(tenant):
    Site.objects.for_account(tenant.account).filter(pk=tenant.site.pk).update(time_zone="America/New_York")
    tenant.site.refresh_from_db()
    schedule(tenant)

    # 02:00 in New York (EST) is 07:00 UTC.
    assert dispatch_due_runs(now=TUESDAY_2AM) == 0
    assert dispatch_due_runs(now=TUESDAY_2AM + timedelta(hours=5)) == 1
    assert next_run_at(tenant.site) == TUESDAY_2AM + timedelta(days=1, hours=5)


def test_an_hourly_schedule_starts_a_run_each_hour(tenant):
    schedule(tenant, frequency="hourly", scheduled_time=time(0, 30))

    started = []
    for hour in range(3):
        now = MONDAY + timedelta(hours=hour, minutes=30)
        started.append(dispatch_due_runs(now=now))
        AutomationRun.objects.for_account(tenant.account).update(status=RunStatus.COMPLETED)

    assert started == [1, 1, 1]
    assert next_run_at(tenant.site) == MONDAY + timedelta(hours=3, minutes=30)


def test_occurrences_missed_while_no_dispatcher_ran_start_one_run(tenant):
    schedule(tenant)
    three_days_late = TUESDAY_2AM + timedelta(days=3, hours=6)

    assert dispatch_due_runs(now=three_days_late) == 1
    assert dispatch_due_runs(now=three_days_late + timedelta(minutes=1)) == 0
    assert next_run_at(tenant.site) == TUESDAY_2AM + timedelta(days=4)


def test_due_sites_of_every_account_start(tenant, other_tenant):
    schedule(tenant)
    schedule(other_tenant)

    assert dispatch_due_runs(now=TUESDAY_2AM) == 2
    assert (len(runs(tenant)), len(runs(other_tenant))) == (1, 1)


def test_a_disabled_schedule_never_starts(tenant):
    schedule(tenant)
    schedule(tenant, enabled=False)

    assert dispatch_due_runs(now=TUESDAY_2AM + timedelta(days=10)) == 0
    assert runs(tenant) == []


# Skipped occurrences: the schedule moves on.


def test_an_occurrence_while_a_run_is_active_is_skipped_and_logged(tenant, caplog):
    schedule(tenant)
    active = make_run(tenant, status=RunStatus.PAUSED)

    with caplog.at_level("INFO", logger="inkwell.automation.tasks"):
        assert dispatch_due_runs(now=TUESDAY_2AM) == 0

    assert runs(tenant) == [active]
    assert next_run_at(tenant.site) == TUESDAY_2AM + timedelta(days=1)
    assert f"scheduled run of site {tenant.site.pk} skipped: a run of the site is active" in caplog.text


def test_an_occurrence_the_balance_cannot_cover_is_skipped_and_the_account_told(tenant, caplog):
    schedule(tenant)
    make_task(tenant, word_count=5000)
    balance = CreditLedger.objects.for_account(tenant.account).get().balance
    billing.spend(account=tenant.account, operation_type="linking", amount=balance - 7, description="test drain")
    needed = selectors.estimate(tenant.site)["estimated_credits"]
    assert needed > 7

    with caplog.at_level("INFO", logger="inkwell.automation.tasks"):
        assert dispatch_due_runs(now=TUESDAY_2AM) == 0

    assert runs(tenant) == []
    assert next_run_at(tenant.site) == TUESDAY_2AM + timedelta(days=1)
    assert "the estimate is more than the balance" in caplog.text
    (notice,) = Notification.objects.for_account(tenant.account).filter(title="Scheduled automation run skipped")
    assert (notice.notification_type, notice.severity, notice.site_id, notice.metadata) == ("credits_low", "warning", tenant.site.pk, {"credits": needed})
    assert notice.message == f"The scheduled automation run of {tenant.site.name} did not start: it needs an estimated {needed} credits and the balance is 7."


def _deactivate_site(tenant):
    Site.objects.for_account(tenant.account).filter(pk=tenant.site.pk).update(is_active=False)


def _lapse_plan(tenant):
    Subscription.objects.for_account(tenant.account).update(status=SubscriptionStatus.CANCELLED)


def _switch_automation_off(tenant):
    ModuleSetting.objects.create(account=tenant.account, module="automation", enabled=False)


@pytest.mark.parametrize(
    ("make_unable", "reason"),
    [(_deactivate_site, "the site is inactive"), (_lapse_plan, "the account's plan is not active"), (_switch_automation_off, "the automation module is off")],
)
def test_an_occurrence_of_a_site_that_may_not_run_is_skipped(tenant, caplog, make_unable, reason):
    schedule(tenant)
    make_unable(tenant)

    with caplog.at_level("INFO", logger="inkwell.automation.tasks"):
        assert dispatch_due_runs(now=TUESDAY_2AM) == 0

    assert runs(tenant) == []
    assert next_run_at(tenant.site) == TUESDAY_2AM + timedelta(days=1)
    assert f"skipped: {reason}" in caplog.text


# The beat entry and concurrent dispatchers.


def test_beat_runs_the_dispatcher_every_minute_by_default():
    entry = settings.CELERY_BEAT_SCHEDULE["dispatch-automation-runs"]

    assert entry["task"] == "inkwell.automation.dispatch_due_runs" in app.tasks
    assert entry["schedule"] == 60


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_dispatchers_start_each_run_once(make_tenant):
    """Several dispatchers, each in its own connection, released at once on the same due sites:
    every site gets exactly one run."""
    tenants = [make_tenant() for _ in range(3)]
    for tenant in tenants:
        schedule(tenant)
    start = threading.Barrier(4)
    started, errors = [], []

    def dispatcher():
        try:
            start.wait()
            started.append(dispatch_due_runs(now=TUESDAY_2AM))
        except Exception as error:  # reported below; an exception in a thread would vanish
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=dispatcher) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert not errors
    assert sum(started) == 3
    assert [len(runs(tenant)) for tenant in tenants] == [1, 1, 1]
