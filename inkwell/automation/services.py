"""Writes of automation: starting a run and the run's state machine.

    queued → running → completed | failed       the engine
    queued | running → paused                   pause
    paused → queued → running                   resume (a new job continues the run)
    queued | running | paused → cancelled       cancel

One active (queued, running or paused) run per site: the partial unique constraint
``automation_one_active_run_per_site`` decides between concurrent starts. Pause and cancel are
status changes (under the run's row lock) that the engine reads between items, so they take
effect when the item in hand is done; a paused or queued run has no item in hand and a cancel
ends it at once. Resume starts a new ``automation.run`` job, which continues where the run stopped.
"""

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.exceptions import NotFound

from inkwell.api.exceptions import InsufficientCredits, StateConflict
from inkwell.automation import selectors
from inkwell.automation.engine import announce_end, log
from inkwell.automation.jobs import RUN_JOB
from inkwell.automation.models import ACTIVE_RUN_STATUSES, AutomationRun, AutomationStageRun, LogLevel, RunStatus, RunTrigger
from inkwell.automation.stages import STAGES
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.services import cancel_job, start_job
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.selectors import STAGE_LIMIT_FIELDS, next_scheduled_run
from inkwell.tenancy.models import Site, User

RUN_ACTIVE = "An automation run is already active for this site"
RUN_NOT_FOUND = "No automation run of this site has this id"
CANNOT = {
    "pause": "Only a queued or running automation run can be paused",
    "resume": "Only a paused automation run can be resumed",
    "cancel": "Only a queued, running or paused automation run can be cancelled",
}


def start_run(*, site: Site, user: User | None, trigger: str = RunTrigger.MANUAL) -> AutomationRun:
    """Starts a run of the site's pipeline (job ``automation.run``, enqueued on commit) whose budget
    is the estimate's: 402 when the account's available credits cannot cover what the estimate
    says it spends (with the credits needed and available, and the limits that shrink it), 409
    while another run of the site is active."""
    runs = AutomationRun.objects.for_account(site.account_id)
    if runs.filter(site=site, status__in=ACTIVE_RUN_STATUSES).exists():
        raise StateConflict({"site_id": [RUN_ACTIVE]})
    quote = selectors.estimate(site)
    if not quote["sufficient"]:
        raise InsufficientCredits(
            {
                "credits": [
                    f"This run needs {quote['estimated_credits']} credits and {quote['current_balance']} are available. "
                    f"Lower the per-run limits ({', '.join(STAGE_LIMIT_FIELDS.values())}) with PUT /api/v1/automation/update_config/ "
                    "to shrink the run, or add credits"
                ],
                "needed": [str(quote["estimated_credits"])],
                "available": [str(quote["current_balance"])],
            }
        )
    shares = {row["number"]: row for row in quote["stages"]}
    try:
        with transaction.atomic():
            run = runs.create(account_id=site.account_id, site=site, trigger=trigger, created_by=user, budget=quote["budget"])
            AutomationStageRun.objects.bulk_create(
                AutomationStageRun(account_id=site.account_id, run=run, stage=number, pending_at_start=shares[number]["pending"]) for number in STAGES
            )
            log(run, LogLevel.INFO, "run_started", f"Run started ({run.get_trigger_display().lower()}): estimate and budget {run.budget} credits")
            run.job = start_job(account=site.account, kind=RUN_JOB, params={"run_id": run.pk}, site=site, user=user)
            run.save(update_fields=["job", "updated_at"])
    except IntegrityError:
        # Another start won the race for the site's one active run.
        raise StateConflict({"site_id": [RUN_ACTIVE]}) from None
    return run


def _run(site: Site, run_id: int | None, action: str, statuses) -> AutomationRun:
    """The run an action addresses (``run_id``, else the site's latest run in one of
    ``statuses``), locked; 404 for a run_id the site has no run with, 409 in a wrong state."""
    runs = AutomationRun.objects.for_account(site.account_id).filter(site=site).select_for_update()
    if run_id is not None:
        run = runs.filter(pk=run_id).first()
        if run is None:
            raise NotFound({"run_id": [RUN_NOT_FOUND]})
    else:
        run = runs.filter(status__in=statuses).order_by("-started_at", "-id").first()
    if run is None or run.status not in statuses:
        raise StateConflict({"status": [CANNOT[action]]})
    return run


def _drop_queued_job(run: AutomationRun) -> None:
    """A job that has not started yet will not be needed (a running one stops by itself)."""
    job = Job.objects.for_account(run.account_id).filter(pk=run.job_id, status=JobStatus.QUEUED).first() if run.job_id else None
    if job is not None:
        cancel_job(job=job)


@transaction.atomic
def pause_run(*, site: Site, run_id: int | None = None) -> AutomationRun:
    run = _run(site, run_id, "pause", (RunStatus.QUEUED, RunStatus.RUNNING))
    was = run.status
    run.status = RunStatus.PAUSED
    run.save(update_fields=["status", "updated_at"])
    log(run, LogLevel.INFO, "run_paused", "Run paused" + (": it stops once the item in hand is done" if was == RunStatus.RUNNING else ""))
    return run


@transaction.atomic
def resume_run(*, site: Site, run_id: int | None = None) -> AutomationRun:
    run = _run(site, run_id, "resume", (RunStatus.PAUSED,))
    _drop_queued_job(run)
    run.status = RunStatus.QUEUED
    run.job = start_job(account=site.account, kind=RUN_JOB, params={"run_id": run.pk}, site=site, user=run.created_by)
    run.save(update_fields=["status", "job", "updated_at"])
    log(run, LogLevel.INFO, "run_resumed", "Run resumed: it continues where it stopped")
    return run


@transaction.atomic
def cancel_run(*, site: Site, run_id: int | None = None) -> AutomationRun:
    run = _run(site, run_id, "cancel", ACTIVE_RUN_STATUSES)
    was = run.status
    run.status, run.completed_at, run.current_item = RunStatus.CANCELLED, timezone.now(), {}
    run.save(update_fields=["status", "completed_at", "current_item", "updated_at"])
    # After the status change, so that the job's own failure handler finds no run of its to end.
    _drop_queued_job(run)
    ending = "the item in hand is finished, nothing after it" if was == RunStatus.RUNNING else "it ends now"
    log(run, LogLevel.WARNING, "run_cancelled", f"Run cancelled: {ending}")
    announce_end(run)
    return run


def claim_due_run(*, row: SiteSettings, now: datetime) -> bool:
    """Moves a due site's ``next_run_at`` on to the schedule's next run after ``now``, provided it
    still holds the time ``row`` was read with: of several dispatchers that read the same due row,
    exactly one claims it, and a schedule changed meanwhile keeps its new time."""
    following = next_scheduled_run(row=row, site=row.site, after=now)
    return SiteSettings.dangerously_unscoped.filter(pk=row.pk, next_run_at=row.next_run_at).update(next_run_at=following) == 1
