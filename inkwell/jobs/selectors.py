"""Reads of jobs that the console polls."""

from inkwell.api.sql import account_row_conditions, fetched_rows, loaded, model_columns, quoted_table, sql_columns, sql_where
from inkwell.jobs.models import Job

# What a job's progress fragment shows (console/components/job_progress.html), with what its link to
# the job's outcome is made of (the console's ``job_outcome_url``).
PROGRESS_FIELDS = ("kind", "status", "progress", "progress_message", "result", "error", "params", "site_id")
_PROGRESS_COLUMNS = model_columns("j", Job, ("id", *PROGRESS_FIELDS))


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
