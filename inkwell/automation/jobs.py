"""Job kind ``automation.run``: one job drives one automation run (``inkwell.automation.engine``)."""

from django.db import transaction
from django.utils import timezone

from inkwell.automation.engine import Engine, announce_end, log
from inkwell.automation.models import AutomationRun, LogLevel, RunStatus
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.services import JobContext, job_kind

RUN_JOB = "automation.run"
# A run outlives several worker restarts (each deploy is one); each restart costs the job an attempt.
RUN_ATTEMPTS = 10


def run_job_ended(job: Job) -> None:
    """The job driving a run failed (an error, or its worker died on the last attempt) or was
    cancelled through the jobs API: the run ends with it, unless another job drives it by now."""
    with transaction.atomic():
        run = (
            AutomationRun.objects.for_account(job.account_id)
            .select_for_update()
            .filter(job_id=job.pk, status__in=(RunStatus.QUEUED, RunStatus.RUNNING))
            .select_related("site", "account")
            .first()
        )
        if run is None:
            return
        cancelled = job.status == JobStatus.CANCELLED
        run.status = RunStatus.CANCELLED if cancelled else RunStatus.FAILED
        run.error_message = None if cancelled else (job.error or {}).get("message") or "The run stopped unexpectedly"
        run.completed_at, run.current_item = timezone.now(), {}
        run.save(update_fields=["status", "error_message", "completed_at", "current_item", "updated_at"])
        if cancelled:
            log(run, LogLevel.WARNING, "run_cancelled", "Run cancelled: its job was cancelled")
        else:
            log(run, LogLevel.ERROR, "run_failed", f"Run failed: {run.error_message}")
        announce_end(run)


@job_kind(name=RUN_JOB, on_failure=run_job_ended, max_attempts=RUN_ATTEMPTS)
def run_automation(ctx: JobContext) -> dict:
    return Engine(ctx).drive()
