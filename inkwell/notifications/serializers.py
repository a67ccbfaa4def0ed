from rest_framework import serializers

from inkwell.notifications.models import Notification, NotificationCategory, NotificationType

FILTER_VALUES = [*NotificationCategory.values, *NotificationType.values]
INVALID_TYPE_MESSAGE = f"Invalid notification type: use one of the categories {', '.join(NotificationCategory.values)} or an event name"


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


class NotificationListQuerySerializer(serializers.Serializer):
    is_read = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true for read notifications only, false for unread ones.",
        error_messages={"invalid": "Invalid is_read value: use true or false"},
    )
    notification_type = serializers.ChoiceField(
        choices=FILTER_VALUES,
        required=False,
        allow_blank=True,
        help_text="A category (`ai_task`, `system`, `credit`, `billing`, `integration`, `content`, `info`, `automation`) or one event name.",
        error_messages={"invalid_choice": INVALID_TYPE_MESSAGE},
    )


class ReadAllResultSerializer(serializers.Serializer):
    updated = serializers.IntegerField(help_text="How many notifications were marked read.")


class UnreadCountSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Unread notifications the caller sees.")
