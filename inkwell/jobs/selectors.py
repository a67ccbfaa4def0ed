"""Reads of jobs that the console polls."""

from django.db import connection

from inkwell.api.sql import LARGEST_SQL_INTEGER, account_conditions, quoted_table, sql_where
from inkwell.jobs.models import Job

# What a job's progress fragment shows (console/components/job_progress.html).
PROGRESS_COLUMNS = ("kind", "status", "progress", "progress_message", "result", "error")


def job_progress_state(*, account_id: int, site_ids: frozenset[int] | None, job_id: int) -> tuple | None:
    """The values a job's progress shows, in one plain statement: the console asks every second
    while the job runs, and mostly hears that nothing changed. None when the job is not among the
    caller's (another account's, or of a site not granted)."""
    if job_id > LARGEST_SQL_INTEGER:
        return None
    conditions, params = account_conditions("j", account_id=account_id, site_ids=site_ids)
    columns = ", ".join(f"j.{column}" for column in PROGRESS_COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {quoted_table(Job)} j {sql_where([*conditions, 'j.id = %s'])}", [*params, job_id])
        return cursor.fetchone()
