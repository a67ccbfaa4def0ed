"""The one way to run async work: a Job row, a Celery task that runs its handler, and a sweep
that never lets a job stay ``running`` after its worker died.

Domains register a handler per job kind in their ``jobs.py`` (imported by ``JobsConfig.ready``)::

    @job_kind("planner.auto_cluster", on_failure=notify_clustering_failed)
    def auto_cluster(ctx: JobContext) -> dict: ...

and start work with ``start_job(...)``; ``prepare`` runs inside the creating transaction (reserve
credits there: if it raises, no job exists and nothing was enqueued). Handlers may run again
after a worker crash, so they write their results in one transaction at the end.
"""

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from django.utils import timezone

from inkwell.api.logging import bind
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.signals import job_finished
from inkwell.observability import metrics

logger = logging.getLogger("inkwell.jobs")

INTERNAL_ERROR = {"code": "server_error", "message": "Internal server error"}
WORKER_LOST = {"code": "worker_lost", "message": "The worker running this job stopped before it finished"}


class JobFailed(Exception):
    """An expected failure a handler reports; ``message`` is shown to the user as is."""

    def __init__(self, message: str, code: str = "job_failed"):
        super().__init__(message)
        self.code = code
        self.message = message


class JobCancelled(Exception):
    """Raised inside a handler (by ``JobContext.progress``) once the job was asked to stop."""


@dataclass(frozen=True)
class JobKind:
    name: str
    handler: Callable[["JobContext"], dict | None]
    on_failure: Callable[[Job], None] | None
    max_attempts: int


_KINDS: dict[str, JobKind] = {}


def job_kind(*, name: str, on_failure: Callable[[Job], None] | None = None, max_attempts: int | None = None):
    """Registers the decorated function as the handler of jobs of kind ``name``."""

    def register(handler):
        _KINDS[name] = JobKind(name, handler, on_failure, max_attempts or settings.INKWELL_JOBS["MAX_ATTEMPTS"])
        return handler

    return register


class JobContext:
    """What a handler gets: its job (``params`` hold the input) and a way to report progress."""

    def __init__(self, job: Job):
        self.job = job

    @property
    def params(self) -> dict:
        return self.job.params

    def record_result(self, result: dict) -> None:
        """Writes the job's result now, inside the handler's transaction with the rows it
        describes: an attempt whose worker dies after that commit finds it on the job
        (``job.result``) and returns it instead of doing the work twice."""
        Job.objects.for_account(self.job.account_id).filter(pk=self.job.pk).update(result=result)

    def progress(self, percent: int, message: str = "") -> None:
        """Records progress (0..100) and proves the worker alive; raises JobCancelled once cancel was asked."""
        percent = max(0, min(100, int(percent)))
        # One UPDATE in the common case; only when it finds nothing to update is the cancel flag read.
        recorded = Job.dangerously_unscoped.filter(pk=self.job.pk, status=JobStatus.RUNNING, cancel_requested=False).update(
            progress=percent, progress_message=message[:255], heartbeat_at=timezone.now()
        )
        self.job.progress, self.job.progress_message = percent, message[:255]
        if not recorded and Job.dangerously_unscoped.filter(pk=self.job.pk, cancel_requested=True).exists():
            raise JobCancelled()


def start_job(
    *, account, kind: str, params: dict | None = None, site=None, user=None, prepare: Callable[[Job], None] | None = None, inline: bool = False
) -> Job:
    """Creates a queued job and enqueues it once the surrounding transaction commits.

    ``inline``: nothing is enqueued; the caller runs the job in its own process with
    ``execute(job.pk)`` once the job is committed (the automation engine does, step by step). Should
    the caller die first, the stale-job sweep hands the job to the workers like any other.
    """
    if kind not in _KINDS:
        raise LookupError(f"no handler registered for job kind {kind!r}")
    with transaction.atomic():
        job = Job.objects.create(account=account, site=site, created_by=user, kind=kind, params=params or {})
        if prepare is not None:
            prepare(job)
        if not inline:
            transaction.on_commit(lambda: enqueue(job_id=job.pk))
    return job


def enqueue(*, job_id: int, countdown: float | None = None) -> None:
    """Hands the job to the broker. A broker outage is logged, not raised: the sweep enqueues again."""
    from inkwell.jobs.tasks import run_job

    try:
        run_job.apply_async((job_id,), countdown=countdown)
    except Exception:
        logger.warning("job %s could not be enqueued; the stale-job sweep will retry", job_id, exc_info=True)


def cancel_job(*, job: Job) -> Job:
    """A queued job stops at once; a running one stops at its next progress report."""
    with transaction.atomic():
        if _finish(job, JobStatus.CANCELLED, from_statuses=(JobStatus.QUEUED,), error={"code": "cancelled", "message": "Cancelled"}):
            return job
        Job.dangerously_unscoped.filter(pk=job.pk, status=JobStatus.RUNNING).update(cancel_requested=True)
    job.refresh_from_db()
    return job


class _Heartbeat(threading.Thread):
    """Marks a running job alive while its handler works, so the sweep can tell a dead worker."""

    def __init__(self, job_id: int, interval: float):
        super().__init__(name=f"job-heartbeat-{job_id}", daemon=True)
        self.job_id, self.interval = job_id, interval
        self.stopped = threading.Event()

    def run(self):
        try:
            while not self.stopped.wait(self.interval):
                try:
                    Job.dangerously_unscoped.filter(pk=self.job_id, status=JobStatus.RUNNING).update(heartbeat_at=timezone.now())
                except DatabaseError:
                    # The database restarting: beat again on a new connection, or the sweep
                    # would take the job for lost while its handler is still at work.
                    logger.warning("heartbeat of job %s failed; trying again", self.job_id)
                    connection.close()
        finally:
            connection.close()

    def stop(self):
        self.stopped.set()
        self.join(timeout=self.interval + 5)


def execute(*, job_id: int, heartbeat: bool = True) -> None:
    """Runs a queued job once: claims it, runs its handler, records the outcome.

    The claim is a conditional UPDATE, so a duplicate delivery of the same message does nothing.
    """
    now = timezone.now()
    claimed = Job.dangerously_unscoped.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=now, heartbeat_at=now, attempts=F("attempts") + 1
    )
    if not claimed:
        return
    job = Job.dangerously_unscoped.select_related("account").get(pk=job_id)
    metrics.record_job_started(job.kind)
    with bind(account_id=job.account_id, job_id=job.pk):
        _run(job, heartbeat=heartbeat)


def _run(job: Job, *, heartbeat: bool) -> None:
    """Runs the claimed job's handler and records its outcome."""
    kind = _KINDS.get(job.kind)
    if kind is None:
        logger.error("job %s has kind %r, which no handler is registered for", job.pk, job.kind)
        _fail(job, INTERNAL_ERROR)
        return
    beat = _Heartbeat(job.pk, settings.INKWELL_JOBS["HEARTBEAT_SECONDS"]) if heartbeat else None
    if beat:
        beat.start()
    try:
        result = kind.handler(JobContext(job))
    except JobCancelled:
        _finish(job, JobStatus.CANCELLED, error={"code": "cancelled", "message": "Cancelled"})
    except JobFailed as failure:
        _fail(job, {"code": failure.code, "message": failure.message})
    except Exception as exc:  # noqa: BLE001  (every failure ends the job; unexpected ones are logged in full)
        _handle_unexpected(job, kind, exc)
    else:
        _finish(job, JobStatus.SUCCEEDED, result=result if result is not None else {})
    finally:
        if beat:
            beat.stop()


def _handle_unexpected(job: Job, kind: JobKind, exc: Exception) -> None:
    code, message = getattr(exc, "code", None), getattr(exc, "message", None)
    # Errors that carry a safe code and message (the AI engine's) are the user's to see; a
    # transient one (timeout, rate limit) is tried again with backoff while attempts remain.
    if getattr(exc, "retryable", False) and job.attempts < kind.max_attempts:
        delay = settings.INKWELL_JOBS["RETRY_BACKOFF_SECONDS"] * 2 ** (job.attempts - 1)
        logger.warning("job %s (%s) attempt %s failed with %s; retrying in %ss", job.pk, job.kind, job.attempts, code, delay)
        # The job says why it waits and until when (issue 30: it went back to queued showing its
        # last message, "Generating image 1 of 4").
        waiting = waiting_message(waits_for=getattr(exc, "waits_for", "the service it calls"), retry_at=timezone.now() + timedelta(seconds=delay))
        requeued = Job.dangerously_unscoped.filter(pk=job.pk, status=JobStatus.RUNNING)
        if requeued.update(status=JobStatus.QUEUED, queued_at=timezone.now(), progress_message=waiting):
            metrics.record_job_retried(job.kind, "transient_error")
            enqueue(job_id=job.pk, countdown=delay)
        return
    if isinstance(code, str) and isinstance(message, str):
        logger.warning("job %s (%s) failed: %s", job.pk, job.kind, code)
        _fail(job, {"code": code, "message": message})
    else:
        logger.error("job %s (%s) failed unexpectedly", job.pk, job.kind, exc_info=exc)
        _fail(job, INTERNAL_ERROR)


def waiting_message(*, waits_for: str, retry_at: datetime) -> str:
    """What a job retried after a transient error shows while it waits: "Waiting for the AI provider,
    retrying at 14:05:09 UTC"."""
    return f"Waiting for {waits_for}, retrying at {retry_at.astimezone(UTC):%H:%M:%S} UTC"


def _fail(job: Job, error: dict) -> None:
    _finish(job, JobStatus.FAILED, error=error)


def _finish(job: Job, status: str, *, result=None, error=None, from_statuses=(JobStatus.RUNNING,)) -> bool:
    """Moves the job to a final status (only from ``from_statuses``) and tells who depends on it."""
    with transaction.atomic():
        updated = Job.dangerously_unscoped.filter(pk=job.pk, status__in=from_statuses).update(
            status=status,
            result=result,
            error=error,
            finished_at=timezone.now(),
            progress=100 if status == JobStatus.SUCCEEDED else F("progress"),
        )
        if not updated:
            return False
        job.refresh_from_db()
        job_finished.send(sender=Job, job=job)
        ran = (job.finished_at - job.started_at).total_seconds() if job.started_at else None
        transaction.on_commit(lambda: metrics.record_job_finished(job.kind, status, ran))
    with bind(account_id=job.account_id, job_id=job.pk):
        logger.info("job %s (%s) %s (attempt %s)", job.pk, job.kind, status, job.attempts)
    kind = _KINDS.get(job.kind)
    if status != JobStatus.SUCCEEDED and kind is not None and kind.on_failure is not None:
        try:
            kind.on_failure(job)
        except Exception:
            logger.exception("on_failure of job %s (%s) raised", job.pk, job.kind)
    return True


def sweep_stale_jobs(*, now: datetime | None = None) -> dict[str, int]:
    """Recovers jobs whose worker died (no heartbeat) and messages the broker lost.

    A running job silent for longer than ``STALE_AFTER_SECONDS`` is queued again while it has
    attempts left, else failed; a queued job nobody picked up for ``REQUEUE_AFTER_SECONDS`` is
    enqueued again (a duplicate message is harmless: only one claim succeeds).
    """
    now = now or timezone.now()
    config = settings.INKWELL_JOBS
    stale_before = now - timedelta(seconds=config["STALE_AFTER_SECONDS"])
    counts = {"requeued": 0, "failed": 0, "reenqueued": 0}
    for job in Job.dangerously_unscoped.filter(status=JobStatus.RUNNING, heartbeat_at__lt=stale_before):
        kind = _KINDS.get(job.kind)
        max_attempts = kind.max_attempts if kind else 1
        if job.attempts < max_attempts:
            moved = Job.dangerously_unscoped.filter(pk=job.pk, status=JobStatus.RUNNING, heartbeat_at=job.heartbeat_at).update(
                status=JobStatus.QUEUED, queued_at=now
            )
            if moved:
                logger.warning("job %s (%s) lost its worker; queued again (attempt %s of %s)", job.pk, job.kind, job.attempts + 1, max_attempts)
                metrics.record_job_retried(job.kind, "worker_lost")
                enqueue(job_id=job.pk)
                counts["requeued"] += 1
        elif _finish(job, JobStatus.FAILED, error=WORKER_LOST):
            logger.warning("job %s (%s) lost its worker and has no attempts left; failed", job.pk, job.kind)
            counts["failed"] += 1
    waiting_before = now - timedelta(seconds=config["REQUEUE_AFTER_SECONDS"])
    for job_id, kind in Job.dangerously_unscoped.filter(status=JobStatus.QUEUED, queued_at__lt=waiting_before).values_list("pk", "kind"):
        if Job.dangerously_unscoped.filter(pk=job_id, status=JobStatus.QUEUED).update(queued_at=now):
            enqueue(job_id=job_id)
            metrics.record_job_retried(kind, "message_lost")
            counts["reenqueued"] += 1
    return counts

