"""Writes of outbound webhooks: endpoints and their secrets, the outbox, and delivering it.

The outbox: ``enqueue_event`` is called by a domain inside the transaction of the change that
raised the event (content approved, scheduled, published ...). It writes the event and one
``pending`` delivery per active endpoint of the account subscribed to its type, in that same
transaction: a change rolled back leaves no delivery, a change committed leaves one that survives
any worker or broker. Only once the transaction commits is each delivery *kicked* to a worker
(``transaction.on_commit`` → Celery); a kick that never arrives is made up by the sweep (beat,
every ``WEBHOOK_SWEEP_SECONDS``), which hands every due delivery to the workers again.

One attempt is three steps, like publishing's:

1. claim: a conditional UPDATE moves a due ``pending`` delivery to ``delivering`` (on SQLite and
   PostgreSQL alike; two workers racing for it, one UPDATE matches and the other does nothing);
2. send (no transaction held): one POST, signed per Standard Webhooks, through the address guard,
   redirects not followed, ``WEBHOOK_TIMEOUT_SECONDS`` for the whole answer;
3. finish (one transaction): the attempt is recorded, the delivery ``succeeded``, ``pending``
   again after the next wait of ``WEBHOOK_RETRY_SCHEDULE``, or ``failed``; the endpoint's
   health follows (failing for ``WEBHOOK_DISABLE_AFTER_DAYS`` switches it off, with a
   notification).

A worker that dies in step 2 leaves the delivery ``delivering``; the sweep closes such a claim
after ``WEBHOOK_STALE_SECONDS`` as a failed attempt (``worker_lost``) and the delivery goes on.
"""

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx2
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from inkwell import netguard
from inkwell.api.exceptions import BusinessRuleViolation, StateConflict
from inkwell.notifications import events as notification_events
from inkwell.tenancy.models import Account
from inkwell.webhooks import signing
from inkwell.webhooks.models import (
    EXCERPT_MAX_LENGTH,
    TEST_EVENT_TYPE,
    AttemptOutcome,
    AttemptTrigger,
    DeliveryStatus,
    EventType,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)

logger = logging.getLogger("inkwell.webhooks")

USER_AGENT = "Inkwell-Webhooks/1.0"
# Read at most this much of an answer: only its first characters are kept.
MAX_READ_BYTES = 64 * 1024
TOO_MANY_ENDPOINTS = "An account may register at most {limit} webhook endpoints"
NOT_REDELIVERABLE = "Only a failed delivery can be redelivered; this one is {status}"
ENDPOINT_OFF = "The endpoint is switched off: switch it on first"


def _options() -> dict:
    return settings.INKWELL_WEBHOOKS


def _allow_private() -> bool:
    return settings.INKWELL_CMS["ALLOW_PRIVATE_URLS"]


def retry_delays() -> list[timedelta]:
    """The waits before each retry after a failed attempt (docs/publishing.md, "Webhooks")."""
    return [timedelta(seconds=seconds) for seconds in _options()["RETRY_SCHEDULE_SECONDS"]]


def automatic_attempts() -> int:
    """Attempts of a delivery before it is ``failed``: the first and one per wait of the schedule."""
    return 1 + len(_options()["RETRY_SCHEDULE_SECONDS"])


# Endpoints and secrets


@transaction.atomic
def endpoint_create(*, account: Account, url: str, events: list[str], description: str = "", is_active: bool = True) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret, which the caller shows once: it is stored encrypted and never
    returned again. More than ``WEBHOOK_MAX_ENDPOINTS`` per account is a 422."""
    # The account row is locked, so two creations at once cannot both pass the count.
    Account.objects.select_for_update().filter(pk=account.pk).first()
    limit = _options()["MAX_ENDPOINTS"]
    if WebhookEndpoint.objects.for_account(account).count() >= limit:
        raise BusinessRuleViolation({"url": [TOO_MANY_ENDPOINTS.format(limit=limit)]})
    secret = signing.generate_secret()
    endpoint = WebhookEndpoint.objects.create(account=account, url=url, events=events, description=description, is_active=is_active, secret=secret)
    return endpoint, secret


def _give_up_pending(endpoint: WebhookEndpoint, now: datetime) -> None:
    """An endpoint switched off sends nothing more: what waited for it is ``failed`` (and may be
    redelivered by hand once it is on again)."""
    WebhookDelivery.objects.for_account(endpoint.account_id).filter(endpoint=endpoint, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.FAILED, next_attempt_at=None
    )


@transaction.atomic
def endpoint_update(*, endpoint: WebhookEndpoint, **fields) -> WebhookEndpoint:
    """Changes the URL, events, description or ``is_active``. Switching an endpoint on forgets
    its failing streak; switching it off fails what was waiting for it."""
    endpoint = WebhookEndpoint.objects.for_account(endpoint.account_id).select_for_update().get(pk=endpoint.pk)
    now = timezone.now()
    if "is_active" in fields and fields["is_active"] != endpoint.is_active:
        if fields["is_active"]:
            endpoint.failing_since, endpoint.disabled_at = None, None
        else:
            _give_up_pending(endpoint, now)
    for name, value in fields.items():
        setattr(endpoint, name, value)
    endpoint.save()
    return endpoint


def endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """The endpoint goes with its deliveries and their attempts."""
    endpoint.delete()


@transaction.atomic
def secret_rotate(*, endpoint: WebhookEndpoint, now: datetime | None = None) -> tuple[WebhookEndpoint, str]:
    """A new secret (shown once by the caller). The one it replaces keeps signing beside it for
    ``WEBHOOK_SECRET_OVERLAP_HOURS``, so receivers can switch without missing a message."""
    now = now or timezone.now()
    endpoint = WebhookEndpoint.objects.for_account(endpoint.account_id).select_for_update().get(pk=endpoint.pk)
    secret = signing.generate_secret()
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_secret_expires_at = now + timedelta(hours=_options()["SECRET_OVERLAP_HOURS"])
    endpoint.secret = secret
    endpoint.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at", "updated_at"])
    return endpoint, secret


def signing_secrets(*, endpoint: WebhookEndpoint, now: datetime | None = None) -> list[str]:
    """The secrets that sign a message now: the current one, and the previous one during a rotation's overlap."""
    now = now or timezone.now()
    secrets_ = [endpoint.secret]
    if endpoint.previous_secret and endpoint.previous_secret_expires_at and endpoint.previous_secret_expires_at > now:
        secrets_.append(endpoint.previous_secret)
    return secrets_


# The outbox


def _payload(event_type: str, data: dict, now: datetime) -> str:
    """The body every attempt sends: ``{type, timestamp, data}`` (Standard Webhooks' payload)."""
    timestamp = now.isoformat().replace("+00:00", "Z")
    return json.dumps({"type": event_type, "timestamp": timestamp, "data": data}, separators=(",", ":"), cls=DjangoJSONEncoder)


def _new_event(account_id: int, event_type: str, data: dict, now: datetime) -> WebhookEvent:
    return WebhookEvent.objects.create(account_id=account_id, message_id=signing.message_id(), event_type=event_type, payload=_payload(event_type, data, now))


def enqueue_event(*, account_id: int, type: str, data: dict) -> int:
    """Puts the event ``type`` in the outbox of every active endpoint of the account subscribed to
    it, in the caller's transaction (call it inside the transaction of the change). The deliveries
    are kicked to the workers once that transaction commits; the number of deliveries written."""
    if type not in EventType.values:
        raise ValueError(f"unknown webhook event type {type!r}")
    endpoints = [
        endpoint_id
        for endpoint_id, events in WebhookEndpoint.objects.for_account(account_id).filter(is_active=True).values_list("pk", "events")
        if type in events
    ]
    if not endpoints:
        return 0
    now = timezone.now()
    with transaction.atomic():
        event = _new_event(account_id, type, data, now)
        deliveries = WebhookDelivery.objects.bulk_create(
            [
                WebhookDelivery(account_id=account_id, endpoint_id=endpoint_id, event=event, max_attempts=automatic_attempts(), next_attempt_at=now)
                for endpoint_id in endpoints
            ]
        )
    delivery_ids = [delivery.pk for delivery in deliveries]
    if any(pk is None for pk in delivery_ids):  # a backend that returns no ids from bulk_create
        delivery_ids = list(WebhookDelivery.objects.for_account(account_id).filter(event=event).values_list("pk", flat=True))
    transaction.on_commit(lambda: kick(delivery_ids=delivery_ids))
    return len(delivery_ids)


def kick(*, delivery_ids: list[int]) -> None:
    """Hands deliveries to the workers. A broker outage is logged, not raised: the rows are in
    the outbox, and the sweep hands them over again."""
    from inkwell.webhooks.tasks import deliver as deliver_task

    for delivery_id in delivery_ids:
        try:
            deliver_task.delay(delivery_id)
        except Exception:
            logger.warning("webhook delivery %s could not be queued; the sweep will send it", delivery_id, exc_info=True)


# One attempt: claim, send, finish


@dataclass(frozen=True)
class SendResult:
    response_code: int | None
    error: str
    body_excerpt: str
    duration_ms: int

    @property
    def succeeded(self) -> bool:
        return self.response_code is not None and 200 <= self.response_code < 300


def _claim(delivery_id: int, now: datetime) -> datetime | None:
    """Moves a due pending delivery of an active endpoint to ``delivering``; the claim's time, or
    None when it is not (or no longer) due."""
    claimed = WebhookDelivery.dangerously_unscoped.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now, endpoint__is_active=True
    ).update(status=DeliveryStatus.DELIVERING, claimed_at=now, attempts=F("attempts") + 1)
    return now if claimed else None


def _excerpt(body: bytes) -> str:
    return body[: EXCERPT_MAX_LENGTH * 4].decode("utf-8", errors="replace")[:EXCERPT_MAX_LENGTH]


def send(*, url: str, body: str, headers: dict[str, str], timeout: float) -> SendResult:
    """One POST of ``body`` to ``url``: through the address guard (checked before, and on the very
    address the connection opens), no redirect followed, ``timeout`` for the whole answer. Never
    raises for what the receiver or the network does: the result says it."""
    started = time.monotonic()

    def result(code: int | None, error: str, body_read: bytes = b"") -> SendResult:
        return SendResult(code, error, _excerpt(body_read), int((time.monotonic() - started) * 1000))

    allow_private = _allow_private()
    try:
        netguard.check_url(url, allow_private=allow_private)
        with httpx2.Client(
            transport=netguard.guarded_transport(allow_private=allow_private),
            timeout=httpx2.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
        ) as client, client.stream("POST", url, content=body.encode(), headers=headers) as response:
            deadline = started + timeout
            read = bytearray()
            for chunk in response.iter_bytes():
                read += chunk
                if len(read) >= MAX_READ_BYTES:
                    break
                if time.monotonic() > deadline:
                    return result(None, "timeout", bytes(read))
            return result(response.status_code, "", bytes(read))
    except netguard.AddressNotAllowed:
        return result(None, "address_not_allowed")
    except httpx2.TimeoutException:
        return result(None, "timeout")
    except httpx2.TransportError:
        return result(None, "unreachable")
    except httpx2.HTTPError:
        return result(None, "request_failed")


def _headers(endpoint: WebhookEndpoint, event: WebhookEvent) -> dict[str, str]:
    timestamp = int(time.time())
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": event.message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signing.signature_header(secrets_=signing_secrets(endpoint=endpoint), message_id=event.message_id, timestamp=timestamp, body=event.payload),
    }


def _failure_text(result: SendResult) -> str:
    return f"HTTP {result.response_code}" if result.response_code is not None else result.error.replace("_", " ")


def _finish(delivery: WebhookDelivery, claimed_at: datetime, result: SendResult, *, trigger: str, started_at: datetime) -> bool:
    """Records the attempt and moves the delivery on; False when the claim is no longer ours (the
    sweep took it for lost meanwhile), and nothing is written."""
    now = timezone.now()
    with transaction.atomic():
        current = WebhookDelivery.objects.for_account(delivery.account_id).select_for_update().filter(
            pk=delivery.pk, status=DeliveryStatus.DELIVERING, claimed_at=claimed_at
        ).first()
        if current is None:
            return False
        if current.redelivery and trigger == AttemptTrigger.AUTOMATIC:
            trigger = AttemptTrigger.REDELIVERY
        WebhookAttempt.objects.create(
            account_id=current.account_id,
            delivery=current,
            number=current.attempts,
            trigger=trigger,
            outcome=AttemptOutcome.SUCCEEDED if result.succeeded else AttemptOutcome.FAILED,
            response_code=result.response_code,
            error=result.error,
            body_excerpt=result.body_excerpt,
            duration_ms=result.duration_ms,
            started_at=started_at,
        )
        current.last_response_code = result.response_code
        current.claimed_at, current.redelivery = None, False
        if result.succeeded:
            current.status, current.delivered_at, current.next_attempt_at = DeliveryStatus.SUCCEEDED, now, None
        elif current.attempts < current.max_attempts:
            delays = retry_delays()
            wait = delays[min(current.attempts, len(delays)) - 1] if delays else timedelta(0)
            current.status, current.next_attempt_at = DeliveryStatus.PENDING, now + wait
        else:
            current.status, current.next_attempt_at = DeliveryStatus.FAILED, None
        current.save(update_fields=["status", "last_response_code", "claimed_at", "redelivery", "delivered_at", "next_attempt_at"])
        if trigger != AttemptTrigger.TEST:
            _follow_health(current.endpoint_id, current.account_id, result, now)
    if not result.succeeded:
        logger.info("webhook delivery %s attempt %s failed (%s)", delivery.pk, current.attempts, _failure_text(result))
    return True


def _follow_health(endpoint_id: int, account_id: int, result: SendResult, now: datetime) -> None:
    """A success ends the endpoint's failing streak; a failure starts one, and one that has lasted
    ``WEBHOOK_DISABLE_AFTER_DAYS`` switches the endpoint off and tells the account."""
    endpoints = WebhookEndpoint.objects.for_account(account_id).filter(pk=endpoint_id)
    if result.succeeded:
        endpoints.filter(failing_since__isnull=False).update(failing_since=None)
        return
    endpoints.filter(failing_since__isnull=True).update(failing_since=now)
    days = _options()["DISABLE_AFTER_DAYS"]
    endpoint = endpoints.select_for_update().filter(is_active=True, failing_since__lte=now - timedelta(days=days)).first()
    if endpoint is None:
        return
    endpoint.is_active, endpoint.disabled_at = False, now
    endpoint.save(update_fields=["is_active", "disabled_at", "updated_at"])
    _give_up_pending(endpoint, now)
    notification_events.webhook_endpoint_disabled(
        account=Account.objects.get(pk=account_id), endpoint_id=endpoint.pk, url=endpoint.url, days=days, last_failure=_failure_text(result)
    )
    logger.warning("webhook endpoint %s switched off after failing for %s days", endpoint.pk, days)


def deliver(*, delivery_id: int, trigger: str = AttemptTrigger.AUTOMATIC) -> WebhookDelivery | None:
    """One attempt at a delivery that is due: the delivery as it ends, or None when it was not due
    (sent already, claimed by another worker, endpoint switched off), which is how a duplicate kick
    does nothing."""
    now = timezone.now()
    claimed_at = _claim(delivery_id, now)
    if claimed_at is None:
        return None
    delivery = WebhookDelivery.dangerously_unscoped.select_related("endpoint", "event").get(pk=delivery_id)
    headers = _headers(delivery.endpoint, delivery.event)
    result = send(url=delivery.endpoint.url, body=delivery.event.payload, headers=headers, timeout=_options()["TIMEOUT_SECONDS"])
    _finish(delivery, claimed_at, result, trigger=trigger, started_at=now)
    delivery.refresh_from_db()
    return delivery


# The sweep


def recover_stalled(*, now: datetime | None = None) -> int:
    """Closes claims whose worker died mid-send as failed attempts (``worker_lost``); the delivery
    goes on as after any failure. Returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=_options()["STALE_SECONDS"])
    stalled = WebhookDelivery.dangerously_unscoped.filter(status=DeliveryStatus.DELIVERING, claimed_at__lt=cutoff).select_related("endpoint")
    recovered = 0
    for delivery in stalled:
        lost = SendResult(None, "worker_lost", "", 0)
        if _finish(delivery, delivery.claimed_at, lost, trigger=AttemptTrigger.AUTOMATIC, started_at=delivery.claimed_at):
            recovered += 1
    return recovered


def due_delivery_ids(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Pending deliveries of active endpoints whose time has come, oldest first (index ``webhook_delivery_due``)."""
    now = now or timezone.now()
    due = WebhookDelivery.dangerously_unscoped.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now, endpoint__is_active=True)
    return list(due.order_by("next_attempt_at", "id").values_list("pk", flat=True)[:limit])


def deliver_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """One sweep in this process: recover lost claims, then attempt what is due. Safe to run in
    several processes at once (each delivery's claim). Returns the attempts made."""
    recover_stalled(now=now)
    return sum(1 for delivery_id in due_delivery_ids(now=now, limit=limit) if deliver(delivery_id=delivery_id) is not None)


def purge_deliveries(*, now: datetime | None = None) -> int:
    """Deletes finished deliveries (and their attempts) older than ``WEBHOOK_RETENTION_DAYS``, and
    events left with no delivery. Returns the deliveries deleted."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=_options()["RETENTION_DAYS"])
    old = WebhookDelivery.dangerously_unscoped.filter(created_at__lt=cutoff, status__in=[DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED])
    deleted, by_model = old.delete()
    WebhookEvent.dangerously_unscoped.filter(created_at__lt=cutoff, deliveries__isnull=True).delete()
    return by_model.get(WebhookDelivery._meta.label, 0)


# By hand: redelivery and the test ping


@transaction.atomic
def delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Sends a failed delivery once more, as soon as a worker takes it (the same ``webhook-id``,
    a fresh timestamp and signature). A delivery still pending, being sent or delivered, or an
    endpoint switched off, is a 409."""
    current = WebhookDelivery.objects.for_account(delivery.account_id).select_for_update().select_related("endpoint").get(pk=delivery.pk)
    if not current.endpoint.is_active:
        raise StateConflict({"is_active": [ENDPOINT_OFF]})
    if current.status != DeliveryStatus.FAILED:
        raise StateConflict({"status": [NOT_REDELIVERABLE.format(status=current.status)]})
    current.status, current.next_attempt_at, current.max_attempts = DeliveryStatus.PENDING, timezone.now(), current.attempts + 1
    current.redelivery = True
    current.save(update_fields=["status", "next_attempt_at", "max_attempts", "redelivery"])
    delivery_id = current.pk
    transaction.on_commit(lambda: kick(delivery_ids=[delivery_id]))
    return current


def endpoint_test(*, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """A ``webhook.test`` message sent now, in this request, once (no retry): the delivery with
    its one attempt, listed in the endpoint's deliveries like any other. It works on an endpoint
    switched off too (to check a fix before switching it on), and leaves its health alone."""
    now = timezone.now()
    with transaction.atomic():
        event = _new_event(endpoint.account_id, TEST_EVENT_TYPE, {"endpoint_id": endpoint.pk, "message": "A test ping from Inkwell"}, now)
        delivery = WebhookDelivery.objects.create(
            account_id=endpoint.account_id, endpoint=endpoint, event=event, max_attempts=1, status=DeliveryStatus.DELIVERING, attempts=1, claimed_at=now
        )
    result = send(url=endpoint.url, body=event.payload, headers=_headers(endpoint, event), timeout=_options()["TIMEOUT_SECONDS"])
    _finish(delivery, now, result, trigger=AttemptTrigger.TEST, started_at=now)
    delivery.refresh_from_db()
    return delivery
