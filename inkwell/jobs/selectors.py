"""Reads of jobs that the console polls."""

from inkwell.api.sql import account_row_conditions, fetched_rows, loaded, model_columns, quoted_table, sql_columns, sql_where
from django.db.models import Q

from inkwell.jobs.models import Job, JobStatus

# What a job's progress fragment shows (console/components/job_progress.html), with what its link to
# the job's outcome is made of (the console's ``job_outcome_url``).
PROGRESS_FIELDS = ("kind", "status", "progress", "progress_message", "result", "error", "params", "site_id")
_PROGRESS_COLUMNS = model_columns("j", Job, ("id", "queued_at", *PROGRESS_FIELDS))


def job_progress(*, account_id: int, site_ids: frozenset[int] | None, job_id: int) -> Job | None:
    """The job with only what its progress shows loaded (``PROGRESS_FIELDS``), in one plain
    statement: the console asks every second while the job runs, and mostly hears that nothing
    changed. None when the job is not among the caller's (another account's, or of a site not
    granted)."""
    scope = account_row_conditions("j", account_id=account_id, site_ids=site_ids, row_id=job_id)
    if scope is None:
        return None
    conditions, params = scope
    rows = fetched_rows(f"SELECT {sql_columns(_PROGRESS_COLUMNS)} FROM {quoted_table(Job)} j {sql_where(conditions)}", params, _PROGRESS_COLUMNS)
    return loaded(_PROGRESS_COLUMNS, rows[0]) if rows else None


def progress_state(job: Job) -> tuple:
    """What a job's progress shows, as the ETag of its fragment names it."""
    return tuple(getattr(job, name) for name in PROGRESS_FIELDS)


def queue_position(job: Job) -> int | None:
    """A queued job's place in the queue all workers share (1: next), counting the queued jobs of
    every account queued before it (a count, nothing of theirs); None when the job is not queued
    (issue 30: a queued job showed 0% and no position)."""
    if job.status != JobStatus.QUEUED:
        return None
    ahead = Q(queued_at__lt=job.queued_at) | Q(queued_at=job.queued_at, pk__lt=job.pk)
    return Job.dangerously_unscoped.filter(ahead, status=JobStatus.QUEUED).count() + 1
