"""Reads of outbound webhooks."""

from django.db.models import Prefetch, QuerySet

from inkwell.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint


def delivery_log(*, endpoint: WebhookEndpoint) -> QuerySet:
    """The endpoint's deliveries, newest first, each with its event and its attempts in order
    (three queries for a page, whatever its size)."""
    attempts = WebhookAttempt.objects.for_account(endpoint.account_id).order_by("number")
    return (
        WebhookDelivery.objects.for_account(endpoint.account_id)
        .filter(endpoint=endpoint)
        .select_related("event")
        .prefetch_related(Prefetch("attempt_log", queryset=attempts))
        .order_by("-created_at", "-id")
    )


def delivery_of(*, endpoint: WebhookEndpoint, delivery_id) -> WebhookDelivery:
    """One delivery of the endpoint; another endpoint's (or account's) is a DoesNotExist."""
    return delivery_log(endpoint=endpoint).get(pk=delivery_id)
