"""Job kinds for the tests and benchmarks of the job engine itself (no domain owns them).

Worker processes started by tests load this module with ``celery worker -I tests.job_handlers``;
in-process tests import it.
"""

import time

from inkwell.jobs.services import JobContext, JobFailed, job_kind

SLEEP_KIND = "test.sleep"
ECHO_KIND = "test.echo"
FAIL_KIND = "test.fail"


@job_kind(name=ECHO_KIND)
def echo(ctx: JobContext) -> dict:
    return {"echo": ctx.params.get("value"), "attempt": ctx.job.attempts}


@job_kind(name=SLEEP_KIND)
def sleep(ctx: JobContext) -> dict:
    """Works for ``seconds`` on its first attempt (reporting progress), at once on a later one."""
    seconds = ctx.params.get("seconds", 1) if ctx.job.attempts == 1 else 0
    steps = max(1, int(seconds * 10))
    for step in range(steps):
        time.sleep(seconds / steps)
        ctx.progress(100 * step // steps, f"step {step + 1} of {steps}")
    return {"slept": seconds, "attempt": ctx.job.attempts}


@job_kind(name=FAIL_KIND)
def fail(ctx: JobContext) -> dict:
    raise JobFailed(ctx.params.get("message", "It did not work"), code="test_failure")
