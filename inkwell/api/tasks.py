from celery import shared_task

from inkwell.api.idempotency import expired_before
from inkwell.api.models import IdempotencyRecord


@shared_task(name="inkwell.api.purge_idempotency_records", ignore_result=True)
def purge_idempotency_records() -> int:
    """Keys are replayed for INKWELL_IDEMPOTENCY_TTL_HOURS; older records only take space."""
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=expired_before()).delete()
    return deleted
