"""Shapes of the publisher endpoints."""

from rest_framework import serializers

from inkwell.api.fields import WebURLField

from inkwell.publishing.models import Deployment, PublishingRecord
from inkwell.writer.image_serializers import AccountContentField
from inkwell.writer.models import ContentStatus, SiteStatus


class PublishingRecordSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    content_id = serializers.IntegerField(read_only=True)
    created_by_id = serializers.IntegerField(read_only=True, allow_null=True)
    # A plain string, not a URL, in the schema: a failed attempt has none.
    external_url = serializers.CharField(read_only=True, help_text="The post's URL on the CMS; empty when the attempt made none.")

    class Meta:
        model = PublishingRecord
        fields = [
            "id",
            "site_id",
            "content_id",
            "platform",
            "trigger",
            "status",
            "attempt",
            "external_id",
            "external_url",
            "error_code",
            "error",
            "retry_at",
            "created_by_id",
            "created_at",
            "finished_at",
            "duration_ms",
        ]
        read_only_fields = fields


class RecordPublicationInputSerializer(serializers.Serializer):
    content_id = AccountContentField(source="content")
    external_url = WebURLField(max_length=500, help_text="Where the content is live.")
    external_id = serializers.CharField(max_length=100, required=False, allow_blank=True, default="", help_text="Its id on the CMS, if known.")


class DeploymentSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)

    class Meta:
        model = Deployment
        fields = ["id", "site_id", "version", "checksum", "article_count", "created_at"]
        read_only_fields = fields


class PublishInputSerializer(serializers.Serializer):
    content_id = AccountContentField(source="content")


class PublishStatusQuerySerializer(serializers.Serializer):
    content_id = AccountContentField(source="content")


class PublishStatusSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ContentStatus.choices)
    site_status = serializers.ChoiceField(choices=SiteStatus.choices)
    scheduled_publish_at = serializers.DateTimeField(allow_null=True)
    published_at = serializers.DateTimeField(allow_null=True)
    external_id = serializers.CharField()
    external_url = serializers.CharField()
    next_retry_at = serializers.DateTimeField(allow_null=True, help_text="When the scheduler tries again after a failed attempt.")
    last_record = PublishingRecordSerializer(allow_null=True)


class SiteDefinitionQuerySerializer(serializers.Serializer):
    site = serializers.SlugField(max_length=80, required=False, help_text="The site's slug.")
    domain = serializers.CharField(max_length=253, required=False, help_text="The site's domain, any case.")

    def validate(self, attrs):
        if bool(attrs.get("site")) == bool(attrs.get("domain")):
            raise serializers.ValidationError({"site": ["Give either site (a slug) or domain"]})
        return attrs
