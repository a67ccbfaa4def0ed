"""The automation dispatcher (issue 7, Build 4): Celery beat runs ``dispatch_due_runs`` every
AUTOMATION_DISPATCH_SECONDS (in production beside Redis workers, embedded beside ``manage.py
serve``'s worker), and it starts the scheduled runs whose time has come.

Each due site is claimed before its run starts: a conditional UPDATE moves ``next_run_at`` on to
the schedule's next run after now, and only the dispatcher whose UPDATE changed the row starts
the run, so two dispatchers (or two beats) never start the same occurrence twice. The claim and
the run's creation commit together: a dispatcher that dies between them leaves the site due for
the next pass. Occurrences missed while no dispatcher ran collapse into one run.

A due occurrence is skipped, and the schedule moves on, when the site is inactive, the account's
plan is not active or its automation module is off, a run of the site is still active (409), or
the credit estimate is more than the balance (402: the account gets a ``credits_low``
notification, the credit alert the Events table has, naming the site and both numbers).
"""

import logging
from datetime import datetime

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from inkwell.api.exceptions import InsufficientCredits, StateConflict
from inkwell.automation import selectors, services
from inkwell.automation.models import RunTrigger
from inkwell.notifications import events
from inkwell.sitesettings.models import SiteSettings
from inkwell.system.selectors import module_enabled

logger = logging.getLogger(__name__)


def _skip_reason(row: SiteSettings) -> str | None:
    subscription = getattr(row.account, "subscription", None)
    if not row.site.is_active:
        return "the site is inactive"
    if subscription is None or not subscription.is_active:
        return "the account's plan is not active"
    if not module_enabled(row.account, "automation"):
        return "the automation module is off"
    return None


def _tell_short_of_credits(row: SiteSettings) -> None:
    estimate = selectors.estimate(row.site)
    events.scheduled_run_short_of_credits(
        account=row.account, site=row.site, estimated_credits=estimate["estimated_credits"], balance=estimate["current_balance"]
    )


def _start_scheduled_run(row: SiteSettings) -> bool:
    """Starts the site's scheduled run; False (logged) when the occurrence is skipped."""
    reason = _skip_reason(row)
    if reason is not None:
        logger.info("automation: scheduled run of site %s skipped: %s", row.site_id, reason)
        return False
    try:
        run = services.start_run(site=row.site, user=None, trigger=RunTrigger.SCHEDULED)
    except StateConflict:
        logger.info("automation: scheduled run of site %s skipped: a run of the site is active", row.site_id)
        return False
    except InsufficientCredits:
        logger.info("automation: scheduled run of site %s skipped: the estimate is more than the balance", row.site_id)
        _tell_short_of_credits(row)
        return False
    logger.info("automation: scheduled run %s of site %s started", run.pk, row.site_id)
    return True


def dispatch_due_runs(*, now: datetime | None = None) -> int:
    """One dispatcher pass: claims every due site and starts its run. Safe to run in several
    processes at once. Returns how many runs it started."""
    now = now or timezone.now()
    started = 0
    for row in selectors.due_automation(now=now):
        with transaction.atomic():
            if services.claim_due_run(row=row, now=now) and _start_scheduled_run(row):
                started += 1
    return started


@shared_task(name="inkwell.automation.dispatch_due_runs", ignore_result=True)
def dispatch() -> int:
    return dispatch_due_runs()
