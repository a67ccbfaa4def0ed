from celery import shared_task
from celery.signals import worker_ready

from inkwell.system.health import record_worker_heartbeat


@shared_task(name="inkwell.system.tasks.worker_heartbeat", ignore_result=True)
def worker_heartbeat() -> None:
    record_worker_heartbeat()


@worker_ready.connect
def _heartbeat_when_ready(**_) -> None:
    """Report at once, so health is right from the first seconds rather than after one beat interval."""
    record_worker_heartbeat()
