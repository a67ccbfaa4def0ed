"""Webhook rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py)."""

from django.utils import timezone

from inkwell.webhooks import signing
from inkwell.webhooks.models import AttemptOutcome, DeliveryStatus, EventType, WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent


def make_endpoint(tenant, *, url: str = "https://hooks.example.com/inkwell", events: list[str] | None = None, **fields) -> WebhookEndpoint:
    fields.setdefault("secret", signing.generate_secret())
    return WebhookEndpoint.objects.create(account=tenant.account, url=url, events=events if events is not None else list(EventType.values), **fields)


def make_delivery(endpoint: WebhookEndpoint, *, status: str = DeliveryStatus.FAILED, marker: str = "", attempts: int = 1) -> WebhookDelivery:
    """A delivery of a ``content.updated`` event that was attempted ``attempts`` times."""
    now = timezone.now()
    event = WebhookEvent.objects.create(
        account_id=endpoint.account_id,
        message_id=signing.message_id(),
        event_type=EventType.CONTENT_UPDATED,
        payload=f'{{"type":"content.updated","timestamp":"{now.isoformat()}","data":{{"title":"{marker}"}}}}',
    )
    delivery = WebhookDelivery.objects.create(
        account_id=endpoint.account_id, endpoint=endpoint, event=event, status=status, attempts=attempts, max_attempts=attempts, last_response_code=500
    )
    for number in range(1, attempts + 1):
        WebhookAttempt.objects.create(
            account_id=endpoint.account_id, delivery=delivery, number=number, outcome=AttemptOutcome.FAILED, response_code=500, body_excerpt=marker, started_at=now
        )
    return delivery


def _endpoint(tenant, marker: str) -> WebhookEndpoint:
    """An endpoint whose URL and description carry the marker, with a failed delivery that does too."""
    endpoint = make_endpoint(tenant, url=f"https://hooks.example.com/{marker}", description=marker)
    make_delivery(endpoint, marker=marker)
    return endpoint


def delivery_of_victim(tenant, obj) -> int | None:
    """The matrix's ``delivery_id``: a delivery of the victim's endpoint ``obj`` (None for the rows of other routes)."""
    if not isinstance(obj, WebhookEndpoint):
        return None
    return WebhookDelivery.objects.for_account(tenant.account).filter(endpoint=obj).values_list("pk", flat=True).first()


CROSS_ACCOUNT_FACTORIES = {WebhookEndpoint: _endpoint}
# Path parameters besides ``pk`` that name a row of the victim, filled by the matrix.
CROSS_ACCOUNT_PATH_VALUES = {"delivery_id": delivery_of_victim}
