from datetime import timedelta

from celery import shared_task
from django.conf import settings

from inkwell.integration.services import purge_webhook_deliveries

# A delivery is kept well past the window in which a replay of it would be accepted.
DELIVERY_RETENTION = timedelta(days=1)


@shared_task(name="inkwell.integration.purge_webhook_deliveries", ignore_result=True)
def purge_old_webhook_deliveries() -> int:
    """Webhook deliveries are remembered only to make replays harmless; a replay older than the
    timestamp tolerance is refused anyway, so older rows only take space."""
    tolerance = timedelta(seconds=settings.INKWELL_CMS["WEBHOOK_TOLERANCE_SECONDS"])
    return purge_webhook_deliveries(older_than=max(DELIVERY_RETENTION, 2 * tolerance))
