from celery import shared_task
from celery.signals import worker_ready

from inkwell.jobs import services


@shared_task(name="inkwell.jobs.run_job", bind=True, ignore_result=True)
def run_job(self, job_id: int) -> None:
    # No heartbeat thread when run eagerly in the caller's process (tests): its own connection
    # could not see the caller's uncommitted job row anyway.
    services.execute(job_id=job_id, heartbeat=not self.request.is_eager)


@shared_task(name="inkwell.jobs.sweep_stale_jobs", ignore_result=True)
def sweep_stale_jobs() -> dict:
    return services.sweep_stale_jobs()


@worker_ready.connect
def _sweep_when_ready(**_) -> None:
    """A restarted worker picks up what its predecessor left at once, not one sweep interval later."""
    services.sweep_stale_jobs()
