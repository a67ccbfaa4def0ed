from celery import shared_task

from inkwell.system.health import record_worker_heartbeat


@shared_task(name="inkwell.system.tasks.worker_heartbeat", ignore_result=True)
def worker_heartbeat() -> None:
    record_worker_heartbeat()
