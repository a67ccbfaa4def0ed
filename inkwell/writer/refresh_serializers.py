"""Serializers of refreshes of live articles (issue #37)."""

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inkwell.api import fields
from inkwell.api.serializers import RejectUnknownFieldsMixin
from inkwell.writer.image_serializers import AccountContentField, _AccountRowField
from inkwell.writer.models import ContentRefresh, ContentStatus
from inkwell.writer.serializers import INVALID_STATUS, PAST_PUBLISH_TIME

REFRESH_NOT_YOURS = "Refresh must belong to your account"


@extend_schema_field(OpenApiTypes.INT)
class AccountRefreshField(_AccountRowField):
    model = ContentRefresh
    default_error_messages = {"does_not_exist": REFRESH_NOT_YOURS, "incorrect_type": REFRESH_NOT_YOURS}


class RefreshSerializer(serializers.ModelSerializer):
    content_id = serializers.IntegerField(read_only=True)
    site_id = serializers.IntegerField(read_only=True)
    created_by_id = serializers.IntegerField(read_only=True, allow_null=True)
    last_edited_by_id = serializers.IntegerField(read_only=True, allow_null=True, help_text="Who last changed its text: under the site's four-eyes rule, someone else approves it.")

    class Meta:
        model = ContentRefresh
        fields = [
            "id", "content_id", "site_id", "title", "html", "meta_title", "meta_description", "reason", "status", "send_status",
            "scheduled_at", "sent_at", "created_by_id", "last_edited_by_id", "last_edited_at", "created_at", "updated_at",
        ]
        read_only_fields = fields


class RefreshCreateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    content_id = AccountContentField(source="content", help_text="The live article to refresh.")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)
    title = serializers.CharField(required=False, max_length=300, help_text="Default: the article's.")
    html = serializers.CharField(required=False, allow_blank=True, help_text="Default: the article's body.")
    meta_title = serializers.CharField(required=False, allow_blank=True, max_length=60)
    meta_description = serializers.CharField(required=False, allow_blank=True, max_length=160)


class RefreshUpdateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """``status`` moves the refresh through review like a draft: draft → review → approved. A
    refresh as the GET answers it goes back as it is: its read-only fields are ignored."""

    echoes = RefreshSerializer

    title = serializers.CharField(required=False, max_length=300)
    html = serializers.CharField(required=False, allow_blank=True)
    meta_title = serializers.CharField(required=False, allow_blank=True, max_length=60)
    meta_description = serializers.CharField(required=False, allow_blank=True, max_length=160)
    status = serializers.ChoiceField(
        choices=[choice for choice in ContentStatus.choices if choice[0] != ContentStatus.PUBLISHED], required=False, error_messages={"invalid_choice": INVALID_STATUS}
    )


class RefreshScheduleInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    scheduled_at = fields.DateTimeField(help_text="When to update the live post: a timestamp in the future.")
    override_rules = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Schedule it even outside the site's publishing days or time slots (else 409 outside_publishing_rules); the override is recorded.",
    )

    def validate_scheduled_at(self, value):
        if value <= timezone.now():
            raise serializers.ValidationError(PAST_PUBLISH_TIME)
        return value
