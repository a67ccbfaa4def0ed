"""Celery glue of outbound webhooks: a kick per delivery after its change commits, and the sweep
(beat, every WEBHOOK_SWEEP_SECONDS) that attempts whatever is due, kicked or not."""

from celery import shared_task
from celery.signals import worker_ready

from inkwell.webhooks import services


@shared_task(name="inkwell.webhooks.deliver", ignore_result=True)
def deliver(delivery_id: int) -> None:
    services.deliver(delivery_id=delivery_id)


@shared_task(name="inkwell.webhooks.deliver_due", ignore_result=True)
def deliver_due() -> int:
    services.recover_stalled()
    due = services.due_delivery_ids()
    for delivery_id in due:
        deliver.delay(delivery_id)
    return len(due)


@shared_task(name="inkwell.webhooks.purge_deliveries", ignore_result=True)
def purge_deliveries() -> int:
    return services.purge_deliveries()


@worker_ready.connect
def _deliver_when_ready(**_) -> None:
    """A restarted worker sends what waited in the outbox at once, not one sweep later."""
    deliver_due.delay()
