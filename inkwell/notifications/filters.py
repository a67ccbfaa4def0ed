"""The list filters of the notifications endpoint."""

from django.db.models import QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inkwell.api.filters import NullableBooleanFilter
from inkwell.notifications import selectors
from inkwell.notifications.models import Notification, NotificationCategory, NotificationType

FILTER_VALUES = [*NotificationCategory.values, *NotificationType.values]
INVALID_TYPE_MESSAGE = f"Invalid notification type: use one of the categories {', '.join(NotificationCategory.values)} or an event name"


class NotificationFilter(filters.FilterSet):
    """Filters a ``selectors.visible`` queryset (which carries the caller's ``is_read``)."""

    is_read = NullableBooleanFilter(
        help_text="true for read notifications only, false for unread ones.",
        error_messages={"invalid": "Invalid is_read value: use true or false"},
    )
    notification_type = filters.ChoiceFilter(
        choices=[(value, value) for value in FILTER_VALUES],
        method="filter_notification_type",
        error_messages={"invalid_choice": INVALID_TYPE_MESSAGE},
    )

    class Meta:
        model = Notification
        fields = ["is_read", "notification_type"]

    # An empty value is no filter, so the document lists it among the values.
    @extend_schema_field(
        serializers.ChoiceField(
            choices=FILTER_VALUES,
            allow_blank=True,
            help_text="A category (`ai_task`, `system`, `credit`, `billing`, `integration`, `content`, `info`, `automation`) or one event name.",
        )
    )
    def filter_notification_type(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        """A category stands for its events (``selectors.filtered``)."""
        return selectors.filtered(queryset, notification_type=value)
