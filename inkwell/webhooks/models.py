"""Outbound webhooks (Standard Webhooks): the endpoints an account registers, the outbox of events
written in the transaction of the change that raised them, one delivery per event and endpoint,
and every attempt at a delivery.

The outbox is the delivery row itself: ``enqueue_event`` writes the event and a ``pending``
delivery for each subscribed endpoint in the caller's transaction, so a rolled-back change leaves
nothing to send and a committed one cannot be lost with a worker or the broker; Celery is only
the kick, and the sweep (beat) finds anything pending that no kick reached.
"""

from typing import ClassVar

from django.db import models

from inkwell.crypto import EncryptedTextField
from inkwell.tenancy.models import AccountOwnedModel

URL_MAX_LENGTH = 500
DESCRIPTION_MAX_LENGTH = 200
EXCERPT_MAX_LENGTH = 500


class EventType(models.TextChoices):
    """The events an endpoint may subscribe to (docs/api.md, "Webhooks")."""

    CONTENT_APPROVED = "content.approved", "Content approved"
    CONTENT_SCHEDULED = "content.scheduled", "Content scheduled"
    CONTENT_PUBLISHED = "content.published", "Content published"
    CONTENT_PUBLISH_FAILED = "content.publish_failed", "Content publishing failed"
    CONTENT_UPDATED = "content.updated", "Content updated"
    AUTOMATION_RUN_COMPLETED = "automation.run_completed", "Automation run completed"
    AUTOMATION_RUN_FAILED = "automation.run_failed", "Automation run failed"


# The test ping's type: sent only by ``POST /webhooks/{id}/test/``, never subscribed to.
TEST_EVENT_TYPE = "webhook.test"


class WebhookEndpoint(AccountOwnedModel):
    """A URL of the account's that receives the events it subscribed to, signed with its secret.

    ``previous_secret`` still signs (beside ``secret``) until ``previous_secret_expires_at``: the
    overlap window of a rotation. ``failing_since`` is the first failed attempt after the last
    success; an endpoint failing for ``WEBHOOK_DISABLE_AFTER_DAYS`` is switched off
    (``disabled_at``, ``is_active`` false) and the account is told.
    """

    url = models.CharField(max_length=URL_MAX_LENGTH)
    events = models.JSONField(default=list)
    description = models.CharField(max_length=DESCRIPTION_MAX_LENGTH, blank=True)
    is_active = models.BooleanField(default=True)
    secret = EncryptedTextField()
    previous_secret = EncryptedTextField(blank=True)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Account-wide: events of every site go to it, so only owners and admins see it.
    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["account", "is_active"], name="webhook_endpoint_account")]

    def __str__(self):
        return f"Webhook {self.pk} → {self.url}"


class WebhookEvent(AccountOwnedModel):
    """One event as sent: ``message_id`` is the ``webhook-id`` of every delivery and attempt of
    it, and ``payload`` the exact body (``{type, timestamp, data}``), the same on every attempt."""

    message_id = models.CharField(max_length=40, unique=True)
    event_type = models.CharField(max_length=40)
    payload = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["-created_at", "-id"]
        # The hourly purge of old events.
        indexes = [models.Index(fields=["created_at"], name="webhook_event_created")]


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERING = "delivering", "Delivering"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class WebhookDelivery(AccountOwnedModel):
    """The outbox row: one event to one endpoint. ``pending`` with ``next_attempt_at`` until a
    worker claims it (``delivering``, conditional UPDATE); then ``succeeded``, ``pending`` again
    after a back-off, or ``failed`` once ``max_attempts`` are spent."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    max_attempts = models.PositiveIntegerField()
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    # Sent again by hand: its next attempt is labelled a redelivery.
    redelivery = models.BooleanField(default=False)
    last_response_code = models.PositiveIntegerField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The sweep: pending rows due by now, and deliveries whose worker died.
            models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due"),
            models.Index(fields=["status", "claimed_at"], name="webhook_delivery_claimed"),
            # The delivery log of an endpoint, newest first.
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_endpoint"),
            # The hourly purge of old deliveries.
            models.Index(fields=["created_at"], name="webhook_delivery_created"),
        ]


class AttemptOutcome(models.TextChoices):
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class AttemptTrigger(models.TextChoices):
    AUTOMATIC = "automatic", "Automatic"
    REDELIVERY = "redelivery", "Redelivered by hand"
    TEST = "test", "Test ping"


class WebhookAttempt(AccountOwnedModel):
    """One HTTP request of a delivery: when, how long, the answer's status code (none when no
    answer came: ``error`` says why) and the first characters of its body."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    trigger = models.CharField(max_length=10, choices=AttemptTrigger.choices, default=AttemptTrigger.AUTOMATIC)
    outcome = models.CharField(max_length=10, choices=AttemptOutcome.choices)
    response_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=40, blank=True)
    body_excerpt = models.CharField(max_length=EXCERPT_MAX_LENGTH, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField()

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["delivery_id", "number"]
        indexes = [models.Index(fields=["delivery", "number"], name="webhook_attempt_delivery")]
