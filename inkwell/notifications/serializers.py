from rest_framework import serializers

from inkwell.api.serializers import RejectUnknownFieldsMixin
from inkwell.notifications.models import PERSONAL_EVENTS, Notification


class NotificationSerializer(serializers.ModelSerializer):
    """The spec's Notification resource, plus the id of the site it concerns (null when account-wide).
    ``is_read`` and ``read_at`` are the caller's own, annotated by ``selectors.visible``."""

    is_read = serializers.BooleanField(read_only=True, help_text="Whether the caller has read it.")
    read_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When the caller first read it.")
    metadata = serializers.DictField(read_only=True, help_text="Event details such as `count` and `credits`.")

    class Meta:
        model = Notification
        fields = [
            "id",
            "notification_type",
            "severity",
            "title",
            "message",
            "is_read",
            "created_at",
            "read_at",
            "action_label",
            "action_url",
            "metadata",
            "site",
        ]
        read_only_fields = fields


class ReadAllResultSerializer(serializers.Serializer):
    updated = serializers.IntegerField(help_text="How many notifications were marked read.")


class UnreadCountSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Unread notifications the caller sees.")


class PreferenceSerializer(serializers.Serializer):
    notification_type = serializers.CharField()
    label = serializers.CharField(read_only=True)
    in_app = serializers.BooleanField()
    email = serializers.BooleanField()


class PreferenceChangeSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """One event's channels; a preference as the GET answers it goes back as it is (its label is ignored)."""

    echoes = PreferenceSerializer
    notification_type = serializers.ChoiceField(choices=PERSONAL_EVENTS, error_messages={"invalid_choice": "Not an event you choose channels for"})
    in_app = serializers.BooleanField(required=False)
    email = serializers.BooleanField(required=False)


class PreferencesInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    preferences = PreferenceChangeSerializer(many=True, max_length=len(PERSONAL_EVENTS) * 2)
