"""The run engine: the handler of job kind ``automation.run`` drives one AutomationRun through the
seven stages (``inkwell.automation.stages``).

Each stage is skipped when disabled; otherwise it takes its pending items (live data) in batches
of its ``batch_size``, up to its ``per_run_limit``, while the batch's cost fits the stage's budget:
its ``budget_pct`` share of the run's budget plus what the stages before it left unspent (so that
shares, whole percentages adding up to at most 100, can cover an exact estimate). The run's
budget is its estimate; once clustering is done it becomes what was spent plus the exact estimate
of the rest (the number of clusters was the estimate's one guess). Every batch is
processed step by step, each step by the planner's and writer's own services and job handlers, the
jobs run inline (``jobs.services.execute``) in this process.

Control: pause and cancel are status changes (``inkwell.automation.services``) the engine reads
before every item and during its delays; it then stops, leaving the run to whoever changed it.
Resume starts a new job, and the run belongs to the job its ``job`` names: an engine that finds
another job there stops too.

Crash safety: a step's job is created in one transaction with the run's ``in_flight`` record of
it, and is counted (items, credits, log lines) in one transaction that clears the record. When
the worker dies, the jobs sweep queues this job again and the next engine first finishes the
recorded job (running it here unless a worker has claimed it; the claim makes sure it runs once)
and counts it, then recomputes every stage's pending items from live data: finished items are no
longer pending, and items an active job holds are not pending either.
"""

import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings as django_settings
from django.db import connection, transaction
from django.db.models import F, Sum
from django.utils import timezone
from rest_framework.exceptions import APIException

from inkwell.api.exceptions import InsufficientCredits
from inkwell.api.text import counted
from inkwell.api.logging import bind
from inkwell.automation import selectors
from inkwell.automation.models import AutomationLog, AutomationRun, AutomationStageRun, LogLevel, RunStatus, StageStatus
from inkwell.automation.signals import step_finished
from inkwell.automation.stages import STAGES, Pipeline, Stage, Step, StepOptions
from inkwell.billing.selectors import job_charges_recorded
from inkwell.jobs.models import ACTIVE_JOB_STATUSES, Job, JobStatus
from inkwell.jobs.services import JobCancelled, JobContext, execute
from inkwell.notifications import events
from inkwell.notifications.models import NotificationType, Severity
from inkwell.observability.metrics import record_automation_run
from inkwell.sitesettings.selectors import effective_settings
from inkwell.webhooks import services as webhooks
from inkwell.webhooks.models import EventType

logger = logging.getLogger("inkwell.automation")

# How often a step's job that runs elsewhere is looked at, and the longest sleep between two
# looks at the run's status during a delay.
POLL_SECONDS = 0.2
SLEEP_STEP_SECONDS = 0.5
FINISHED_STAGE_STATUSES = frozenset({StageStatus.COMPLETED, StageStatus.SKIPPED, StageStatus.BUDGET_REACHED, StageStatus.FAILED})
LABEL_LENGTH = 200
OUT_OF_CREDITS = "The account's credits cannot cover this item"


class Stop(Exception):
    """The run is no longer this engine's to drive: paused, cancelled, finished or taken over."""


@dataclass(frozen=True)
class StepOutcome:
    processed: set[int]
    failed: set[int]
    credits: int = 0
    out_of_credits: bool = False


def _runs(account_id: int):
    return AutomationRun.objects.for_account(account_id)


def _stage_row(run: AutomationRun, number: int) -> AutomationStageRun:
    return AutomationStageRun.objects.for_account(run.account_id).get(run=run, stage=number)


# The log events that mark a run's change of status (the state machine of inkwell.automation.services);
# the engine's own claim (queued → running) is counted in ``Engine.drive``.
TRANSITIONS = {
    "run_started": RunStatus.QUEUED,
    "run_resumed": RunStatus.QUEUED,
    "run_paused": RunStatus.PAUSED,
    "run_completed": RunStatus.COMPLETED,
    "run_completed_with_errors": RunStatus.COMPLETED_WITH_ERRORS,
    "run_failed": RunStatus.FAILED,
    "run_cancelled": RunStatus.CANCELLED,
}


def log(run: AutomationRun, level: str, event: str, message: str, *, stage: int | None = None, **fields) -> AutomationLog:
    """A line of the run's log; every change of the run's status is logged here, so it is counted here."""
    if event in TRANSITIONS:
        transaction.on_commit(lambda: record_automation_run(TRANSITIONS[event]))
    return AutomationLog.objects.create(
        account_id=run.account_id, run=run, site_id=run.site_id, stage=stage, level=level, event=event, message=message[:500], **fields
    )


RUN_EVENTS = {
    RunStatus.COMPLETED: (NotificationType.AUTOMATION_RUN_COMPLETED, Severity.SUCCESS),
    # The same event either way (contract section 12), amber, with the failures in its metadata.
    RunStatus.COMPLETED_WITH_ERRORS: (NotificationType.AUTOMATION_RUN_COMPLETED, Severity.WARNING),
    RunStatus.CANCELLED: (NotificationType.AUTOMATION_RUN_CANCELLED, Severity.WARNING),
    RunStatus.FAILED: (NotificationType.AUTOMATION_RUN_FAILED, Severity.ERROR),
}


def announce_end(run: AutomationRun) -> None:
    """The one notification of a run's end, its own event: ``automation_run_completed``,
    ``automation_run_cancelled`` or ``automation_run_failed``."""
    event, severity = RUN_EVENTS[run.status]
    failed = run_failures(run)
    messages = {
        RunStatus.COMPLETED: f"Automation run #{run.pk} finished",
        RunStatus.COMPLETED_WITH_ERRORS: f"Automation run #{run.pk} finished with {counted(failed, 'failed item')}",
        RunStatus.CANCELLED: f"Automation run #{run.pk} was cancelled",
        RunStatus.FAILED: f"Automation run #{run.pk} failed: {run.error_message or 'it stopped unexpectedly'}",
    }
    events.automation_run_ended(
        account=run.account,
        site=run.site,
        event=event,
        severity=severity,
        run_id=run.pk,
        status=run.status,
        outcome=messages[run.status],
        items=run.items_processed,
        credits=run.credits_used,
        failed=failed,
    )
    # Outbound webhooks (a cancelled run is no event of theirs), in the transaction that ended the run.
    webhook_type = RUN_WEBHOOK_EVENTS.get(run.status)
    if webhook_type is not None:
        webhooks.enqueue_event(
            account_id=run.account_id,
            type=webhook_type,
            data={
                "run_id": run.pk,
                "site_id": run.site_id,
                "status": run.status,
                "trigger": run.trigger,
                "items_processed": run.items_processed,
                "credits_used": run.credits_used,
                "error": run.error_message if run.status == RunStatus.FAILED else None,
                "completed_at": run.completed_at,
            },
        )


# A run with failed items completed too: its event is run_completed, its ``status`` completed_with_errors.
RUN_WEBHOOK_EVENTS = {
    RunStatus.COMPLETED: EventType.AUTOMATION_RUN_COMPLETED,
    RunStatus.COMPLETED_WITH_ERRORS: EventType.AUTOMATION_RUN_COMPLETED,
    RunStatus.FAILED: EventType.AUTOMATION_RUN_FAILED,
}


def run_failures(run: AutomationRun) -> int:
    """How many items the run's stages left failed."""
    return AutomationStageRun.objects.for_account(run.account_id).filter(run=run).aggregate(failed=Sum("failed"))["failed"] or 0


def _due(job: dict, now) -> bool:
    """Whether a queued job may be claimed now: at once, or once a retry's backoff has passed."""
    if not job["attempts"]:
        return True
    backoff = django_settings.INKWELL_JOBS["RETRY_BACKOFF_SECONDS"] * 2 ** (job["attempts"] - 1)
    return job["queued_at"] + timedelta(seconds=backoff) <= now


class Engine:
    def __init__(self, ctx: JobContext):
        self.ctx = ctx
        self.job_id = ctx.job.pk
        self.account = ctx.job.account
        self.run = _runs(self.account).select_related("site__account", "created_by").get(pk=ctx.params["run_id"])
        self.site = self.run.site
        self.user = self.run.created_by
        # A heartbeat thread works on its own connection, which cannot see the rows of a
        # transaction still open around the engine (tests run it inside one): none then.
        self.heartbeat = not connection.in_atomic_block

    # Driving the run.

    def drive(self) -> dict:
        with bind(run_id=self.run.pk):
            return self._drive()

    def _drive(self) -> dict:
        claimed = _runs(self.account).filter(pk=self.run.pk, job_id=self.job_id, status__in=(RunStatus.QUEUED, RunStatus.RUNNING))
        if claimed.update(status=RunStatus.RUNNING, updated_at=timezone.now()):
            transaction.on_commit(lambda: record_automation_run(RunStatus.RUNNING))
            if self.ctx.job.attempts > 1:
                log(self.run, LogLevel.WARNING, "run_recovered", "The worker driving this run stopped; another one continues where it left off")
            try:
                self._finish_in_flight()
                for number in STAGES:
                    if self._stage(STAGES[number]) and number < len(STAGES):
                        self._sleep(effective_settings(site=self.site).delays.between_stage)
                self._complete()
            except Stop:
                pass
        self.run.refresh_from_db()
        if self.run.status == RunStatus.CANCELLED and self.run.job_id == self.job_id:
            # The job of a cancelled run reads cancelled, not succeeded.
            raise JobCancelled
        return {"run_id": self.run.pk, "status": self.run.status, "items_processed": self.run.items_processed, "credits_used": self.run.credits_used}

    def _check(self) -> None:
        """Outside a step (a stage's start, a delay): stops unless the run is still running and
        still this job's; ends the job when it was cancelled through the jobs API. One query."""
        current = _runs(self.account).filter(pk=self.run.pk).values_list("status", "job_id", "job__cancel_requested").first()
        if current is None or current[:2] != (RunStatus.RUNNING, self.job_id):
            raise Stop
        if current[2]:
            raise JobCancelled

    def _own(self) -> AutomationRun:
        """The run's row, locked, when it is still running and this job's (inside a transaction):
        the check before every item."""
        run = (
            _runs(self.account)
            .select_for_update(of=("self",))
            .select_related("job")
            .filter(pk=self.run.pk, status=RunStatus.RUNNING, job_id=self.job_id)
            .first()
        )
        if run is None:
            raise Stop
        if run.job.cancel_requested:
            raise JobCancelled
        return run

    def _sleep(self, seconds: float) -> None:
        """A delay in short naps, so that a pause or cancel during it takes effect at once."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(SLEEP_STEP_SECONDS, left))
            self._check()

    def _complete(self) -> None:
        with transaction.atomic():
            finished = _runs(self.account).filter(pk=self.run.pk, status=RunStatus.RUNNING, job_id=self.job_id)
            failed = run_failures(self.run)
            status = RunStatus.COMPLETED_WITH_ERRORS if failed else RunStatus.COMPLETED
            if not finished.update(status=status, completed_at=timezone.now(), current_item={}, updated_at=timezone.now()):
                raise Stop
            self.run.refresh_from_db()
            done = f"{self.run.items_processed} items processed for {self.run.credits_used} credits"
            if failed:
                log(self.run, LogLevel.WARNING, "run_completed_with_errors", f"Run completed with errors: {done}, {counted(failed, 'item')} failed")
            else:
                log(self.run, LogLevel.INFO, "run_completed", f"Run completed: {done}")
            announce_end(self.run)

    # Stages.

    def _stage(self, stage: Stage) -> bool:
        """Runs one stage to its end; whether it processed anything (then the between-stage delay follows)."""
        row = _stage_row(self.run, stage.number)
        if row.status in FINISHED_STAGE_STATUSES:
            return False
        self._check()
        pipeline = Pipeline.of(self.site)
        config = pipeline.settings.stage(stage.number)
        if not config.enabled:
            self._finish_stage(row, StageStatus.SKIPPED, LogLevel.INFO, f"Stage {stage.number} ({stage.name}) is disabled: skipped")
            return False
        failed = set(
            AutomationLog.objects.for_account(self.account).filter(run=self.run, stage=stage.number, event="item_failed").values_list("item_id", flat=True)
        )
        self._begin_stage(stage, row, pipeline, config, failed)
        worked = False
        while True:
            size = config.batch_size
            if config.per_run_limit:
                size = min(size, config.per_run_limit - row.processed - row.failed)
            batch = list(stage.pending(pipeline).exclude(pk__in=failed)[:size]) if size > 0 else []
            if not batch:
                break
            cost = stage.cost(pipeline, batch)
            if row.credits_used + cost > row.budget:
                self._finish_stage(
                    row,
                    StageStatus.BUDGET_REACHED,
                    LogLevel.WARNING,
                    f"Stage {stage.number} stopped at its budget: the next batch costs {counted(cost, 'credit')}, {row.budget - row.credits_used} left",
                )
                return worked
            options = StepOptions(user=self.user, use_testing=config.use_testing, approvals_left=self._approvals_left(stage, pipeline))
            for step in stage.steps(pipeline, batch, options):
                outcome = self._step(stage, pipeline, step)
                worked = True
                failed |= outcome.failed
                # The row's counts as _count wrote them; this engine alone writes them while it owns the run.
                row.processed += len(outcome.processed)
                row.failed += len(outcome.failed)
                row.credits_used += outcome.credits
                if outcome.out_of_credits:
                    self._finish_stage(row, StageStatus.FAILED, LogLevel.ERROR, f"Stage {stage.number} stopped: {OUT_OF_CREDITS.lower()}")
                    return worked
            delay = pipeline.settings.delays.within_stage
            if delay and stage.pending(pipeline).exclude(pk__in=failed).exists():
                self._sleep(delay)
        summary = f"{row.processed} processed, {row.failed} failed, {counted(row.credits_used, 'credit')}"
        self._finish_stage(row, StageStatus.COMPLETED, LogLevel.INFO, f"Stage {stage.number} completed: {summary}")
        return worked

    def _begin_stage(self, stage: Stage, row: AutomationStageRun, pipeline: Pipeline, config, failed: set[int]) -> None:
        pending = stage.pending(pipeline).exclude(pk__in=failed).count()
        with transaction.atomic():
            run = self._own()
            if row.status == StageStatus.PENDING:
                if stage.number == 2:
                    self._rebase_budget(run)
                shares = sum(pipeline.settings.stage(number).budget_pct for number in range(1, stage.number + 1))
                # Its share plus what the stages before it left: at most the run's share so far, less what it spent.
                row.budget = max(0, run.budget * shares // 100 - run.credits_used)
                row.pending_at_start = pending
                row.status, row.started_at = StageStatus.RUNNING, timezone.now()
                row.save(update_fields=["budget", "pending_at_start", "status", "started_at"])
                started = f"Stage {stage.number} ({stage.name}) started: {pending} pending, budget {counted(row.budget, 'credit')}"
                log(run, LogLevel.INFO, "stage_started", started, stage=stage.number)
            done = row.processed + row.failed
            total = done + (min(pending, config.per_run_limit - done) if config.per_run_limit else pending)
            run.current_stage = stage.number
            run.current_item = {"stage": stage.number, "item_type": stage.item_type, "item_id": None, "label": "", "done": done, "total": total}
            run.save(update_fields=["current_stage", "current_item", "updated_at"])
            self.run = run
        self.ctx.progress((stage.number - 1) * 100 // len(STAGES), f"Stage {stage.number}: {stage.name}")

    def _rebase_budget(self, run: AutomationRun) -> None:
        """Once clustering made its clusters, the one count the estimate had to guess is known:
        the run's budget becomes what it spent plus the exact estimate of the stages left, so that
        a guess too low does not cut the run short (``selectors.estimate`` does the same). What
        the account cannot pay for, each step's own credit hold refuses."""
        if not _stage_row(run, 1).processed:
            return
        budget = run.credits_used + selectors.remaining_credits(self.site, from_stage=2)
        if budget != run.budget:
            log(run, LogLevel.INFO, "budget_rebased", f"Clustering is done: the run's budget is now {budget} credits (estimated {run.budget})")
            run.budget = budget
            run.save(update_fields=["budget", "updated_at"])

    def _finish_stage(self, row: AutomationStageRun, status: str, level: str, message: str) -> None:
        with transaction.atomic():
            run = self._own()
            row.status, row.finished_at = status, timezone.now()
            row.save(update_fields=["status", "finished_at"])
            events = {
                StageStatus.COMPLETED: "stage_completed",
                StageStatus.SKIPPED: "stage_skipped",
                StageStatus.BUDGET_REACHED: "stage_budget_reached",
                StageStatus.FAILED: "stage_failed",
            }
            log(run, level, events[status], message, stage=row.stage)

    def _approvals_left(self, stage: Stage, pipeline: Pipeline) -> int | None:
        """How many items stage 7 may still approve: an auto-publishing site publishes at most
        ``total_items_per_run`` items of one run (0: no limit)."""
        publishing = pipeline.settings.publishing
        if stage.number != 7 or not (publishing.auto_approval_enabled and publishing.auto_publish_enabled and publishing.total_items_per_run):
            return None
        approved = AutomationLog.objects.for_account(self.account).filter(run=self.run, stage=7, event="item_approved").count()
        return max(0, publishing.total_items_per_run - approved)

    # Steps.

    def _step(self, stage: Stage, pipeline: Pipeline, step: Step) -> StepOutcome:
        items = [[item.pk, stage.label(item)[:LABEL_LENGTH]] for item in step.items]
        if step.apply is not None:
            return self._apply(stage, pipeline, step, items)
        with transaction.atomic():
            run = self._own()
            try:
                # Every start service writes in its own atomic block: a refused start leaves nothing.
                job = step.start()
            except InsufficientCredits:
                outcome = self._count(run, stage, items, done=set(), credits=0, reason=OUT_OF_CREDITS)
                return StepOutcome(outcome.processed, outcome.failed, out_of_credits=True)
            except APIException as refused:
                return self._count(run, stage, items, done=set(), credits=0, reason=_reason(refused))
            run.in_flight = {"job_id": job.pk, "stage": stage.number, "items": items}
            run.current_item = {**run.current_item, "item_id": items[0][0], "label": _step_label(items), "job_id": job.pk}
            run.save(update_fields=["in_flight", "current_item", "updated_at"])
        ended = self._run_to_end(job.pk)
        return self._settle(job.pk, ended, pipeline) or StepOutcome(set(), set())

    def _apply(self, stage: Stage, pipeline: Pipeline, step: Step, items: list) -> StepOutcome:
        """A step without a job: the work, its log lines and its counts in one transaction."""
        with transaction.atomic():
            run = self._own()
            run.current_item = {**run.current_item, "item_id": items[0][0], "label": _step_label(items), "job_id": None}
            try:
                with transaction.atomic():
                    result = step.apply()
            except APIException as refused:
                return self._count(run, stage, items, done=set(), credits=0, reason=_reason(refused))
            done = stage.done(pipeline, [pk for pk, _ in items])
            return self._count(run, stage, items, done=done, credits=0, result=result)

    def _run_to_end(self, job_id: int) -> dict:
        """Runs the step's job here, and waits while it runs elsewhere (a retry a worker took, or a
        requeued job after a crash), running it here whenever it waits queued and is due. The
        ended job's status and error."""
        execute(job_id=job_id, heartbeat=self.heartbeat)
        jobs = Job.objects.for_account(self.account)
        while True:
            job = jobs.filter(pk=job_id).values("status", "error", "attempts", "queued_at").first()
            if job is None:
                return {"status": JobStatus.FAILED, "error": None}
            if job["status"] not in ACTIVE_JOB_STATUSES:
                return job
            if job["status"] == JobStatus.QUEUED and _due(job, timezone.now()):
                execute(job_id=job_id, heartbeat=self.heartbeat)
                continue
            time.sleep(POLL_SECONDS)

    def _settle(self, job_id: int, job: dict, pipeline: Pipeline) -> StepOutcome | None:
        """Counts the in-flight job's step (``job``: how it ended) once: None when it was counted already."""
        with transaction.atomic():
            run = _runs(self.account).select_for_update().get(pk=self.run.pk)
            if run.in_flight.get("job_id") != job_id:
                return None
            stage = STAGES[run.in_flight["stage"]]
            items = run.in_flight["items"]
            credits = job_charges_recorded(self.account, job_id)
            done = stage.done(pipeline, [pk for pk, _ in items])
            reason = (job["error"] or {}).get("message") if job["status"] != JobStatus.SUCCEEDED else None
            run.in_flight = {}
            return self._count(run, stage, items, done=done, credits=credits, reason=reason, job_id=job_id)

    def _finish_in_flight(self) -> None:
        """After a crash: the step the dead engine left running is finished and counted first."""
        job_id = self.run.in_flight.get("job_id")
        if job_id is not None:
            message = f"Finishing job {job_id}, which was running when the worker stopped"
            log(self.run, LogLevel.INFO, "step_recovered", message, stage=self.run.in_flight.get("stage"))
            self._settle(job_id, self._run_to_end(job_id), Pipeline.of(self.site))

    def _count(
        self, run: AutomationRun, stage: Stage, items: list, *, done: set[int], credits: int, reason: str | None = None, result=None, job_id=None
    ) -> StepOutcome:
        """Writes a step's log lines and adds it to the stage's and the run's counts (inside the
        caller's transaction, which holds the run's row)."""
        failed = {pk for pk, _ in items if pk not in done}
        approved = stage.number == 7 and result == "approved"
        # Stage 7 says why a draft was held in review (its quality report's failing kinds).
        note = result.get("note") if isinstance(result, dict) else None
        lines = []
        for pk, label in items:
            if pk in done:
                event = "item_approved" if approved else "item_processed"
                level, message = LogLevel.INFO, f"{label}: {'approved' if approved else note or stage.outcome}"
            else:
                # An item left unprocessed always carries a reason (contract section 12): the job's
                # error or the refusal, else what the stage says of an item its step did not reach.
                why = (reason or stage.unprocessed).strip()[:500]
                event, level, message = "item_failed", LogLevel.ERROR, f"{label}: {why}"
            data = {"job_id": job_id} if job_id else {}
            lines.append(
                AutomationLog(
                    account_id=run.account_id, run=run, site_id=run.site_id, stage=stage.number, level=level, event=event,
                    message=message[:500], item_type=stage.item_type, item_id=pk, data=data, reason=why if event == "item_failed" else "",
                )
            )
        AutomationLog.objects.bulk_create(lines)
        AutomationStageRun.objects.for_account(run.account_id).filter(run=run, stage=stage.number).update(
            processed=F("processed") + len(done), failed=F("failed") + len(failed), credits_used=F("credits_used") + credits
        )
        run.items_processed += len(done)
        run.credits_used += credits
        run.current_item = {**run.current_item, "done": run.current_item.get("done", 0) + len(items)}
        run.save(update_fields=["items_processed", "credits_used", "current_item", "in_flight", "updated_at"])
        self.run = run
        step_finished.send(sender=AutomationRun, run=run, stage=stage.number, processed=done, failed=failed)
        return StepOutcome(done, failed, credits)


def _reason(refused: APIException) -> str:
    """A refusal's first field message (the services' errors are field errors), else its message."""
    detail = getattr(refused, "errors", None) or refused.detail
    while isinstance(detail, dict | list) and detail:
        detail = next(iter(detail.values())) if isinstance(detail, dict) else detail[0]
    return str(detail) or "refused"


def _step_label(items: list) -> str:
    first = items[0][1]
    return first if len(items) == 1 else f"{first} and {len(items) - 1} more"
