"""Input and output shapes of ``/webhooks/``. The secret goes out twice only: in the answer that
creates an endpoint and in the answer that rotates it; it never comes in."""

from django.conf import settings
from rest_framework import serializers

from inkwell import netguard
from inkwell.api.serializers import REQUIRED, RejectUnknownFieldsMixin
from inkwell.webhooks.models import DESCRIPTION_MAX_LENGTH, URL_MAX_LENGTH, EventType, WebhookAttempt, WebhookDelivery, WebhookEndpoint

PRIVATE_ADDRESS_NOT_ALLOWED = (
    "This address points at a private or loopback network, which is not allowed for a webhook unless the server sets CMS_ALLOW_PRIVATE_URLS=true"
)
ADDRESS_NOT_ALLOWED = "This address points at a link-local, multicast or reserved network, which is never allowed for a webhook"
INVALID_EVENT = "Invalid event type: choose from {choices}"
NO_EVENTS = "Choose at least one event"
REPEATED_EVENT = "Each event may be named once"


def webhook_url(value: str) -> None:
    """The same guard as a CMS's address (``CMS_ALLOW_PRIVATE_URLS`` included): Inkwell calls it."""
    try:
        netguard.check_url_shape(value)
    except netguard.InvalidURL as error:
        raise serializers.ValidationError(error.message) from None
    try:
        netguard.check_url(value, allow_private=settings.INKWELL_CMS["ALLOW_PRIVATE_URLS"])
    except netguard.AddressNotAllowed as refused:
        raise serializers.ValidationError(PRIVATE_ADDRESS_NOT_ALLOWED if refused.private else ADDRESS_NOT_ALLOWED) from None


class EventsField(serializers.ListField):
    def __init__(self, **kwargs):
        choices = ", ".join(EventType.values)
        child = serializers.ChoiceField(choices=EventType.choices, error_messages={"invalid_choice": INVALID_EVENT.format(choices=choices)})
        super().__init__(child=child, allow_empty=False, max_length=len(EventType.values), error_messages={"empty": NO_EVENTS, "null": REQUIRED}, **kwargs)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        if len(set(values)) != len(values):
            raise serializers.ValidationError(REPEATED_EVENT)
        return values


class WebhookEndpointSerializer(serializers.ModelSerializer):
    events = serializers.ListField(child=serializers.ChoiceField(choices=EventType.choices), help_text="The event types delivered to this URL.")

    class Meta:
        model = WebhookEndpoint
        fields = ["id", "url", "events", "is_active", "description", "created_at"]
        read_only_fields = fields


class WebhookEndpointCreatedSerializer(WebhookEndpointSerializer):
    secret = serializers.CharField(read_only=True, help_text="Shown only in this answer: `whsec_` + base64 of the key that signs every delivery (Standard Webhooks).")

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class WebhookEndpointCreateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    url = serializers.CharField(max_length=URL_MAX_LENGTH, validators=[webhook_url], error_messages={"blank": REQUIRED, "null": REQUIRED}, help_text="Where the events are POSTed: an http(s) URL.")
    events = EventsField()
    description = serializers.CharField(max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True, default="")
    is_active = serializers.BooleanField(required=False, default=True)


class WebhookEndpointUpdateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    echoes = WebhookEndpointSerializer

    url = serializers.CharField(max_length=URL_MAX_LENGTH, validators=[webhook_url], required=False, error_messages={"blank": REQUIRED, "null": REQUIRED})
    events = EventsField(required=False)
    description = serializers.CharField(max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True)
    is_active = serializers.BooleanField(required=False, help_text="Switching an endpoint on again forgets its failing streak.")


class SecretRotatedSerializer(serializers.Serializer):
    secret = serializers.CharField(help_text="The new secret, shown only in this answer.")
    previous_secret_expires_at = serializers.DateTimeField(help_text="Until then deliveries carry a signature with the previous secret too.")


class WebhookAttemptSerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookAttempt
        fields = ["number", "trigger", "outcome", "response_code", "error", "duration_ms", "body_excerpt", "started_at"]
        read_only_fields = fields


class WebhookDeliverySerializer(serializers.ModelSerializer):
    webhook_id = serializers.CharField(source="event.message_id", read_only=True, help_text="The `webhook-id` header of every attempt.")
    event_type = serializers.CharField(source="event.event_type", read_only=True)
    attempt_log = WebhookAttemptSerializer(many=True, read_only=True, help_text="Every attempt, first to last.")

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "webhook_id",
            "event_type",
            "status",
            "attempts",
            "max_attempts",
            "next_attempt_at",
            "last_response_code",
            "delivered_at",
            "created_at",
            "attempt_log",
        ]
        read_only_fields = fields
