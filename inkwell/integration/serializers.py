"""Input and output shapes of the integration endpoints. Credentials go in and never come out:
an integration shows ``app_password_set``, and its webhook secret is shown once, when it is made
or rotated."""


from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inkwell import netguard
from inkwell.api import fields
from inkwell.integration.models import ConnectionStatus, Platform, SiteIntegration, SyncStatus
from inkwell.jobs.models import JobStatus
from inkwell.tenancy.serializers import REQUIRED, AccountSiteField

INVALID_PLATFORM = "Invalid platform"
PRIVATE_ADDRESS_NOT_ALLOWED = (
    "This address points at a private or loopback network, which is not allowed for a CMS unless the server sets CMS_ALLOW_PRIVATE_URLS=true"
)
ADDRESS_NOT_ALLOWED = "This address points at a link-local, multicast or reserved network, which is never allowed for a CMS"
INVALID_EVENT = "Invalid event"
WEBHOOK_EVENTS = ("post.updated", "post.trashed", "post.deleted")
MAX_CONTENT_TYPE_LENGTH = 100


def cms_base_url(value: str) -> None:
    """An http(s) URL whose host is not this server's surroundings (unless the operator allows
    private addresses): the CMS is called from here, so no server-side request forgery."""
    try:
        netguard.check_url_shape(value)
    except netguard.InvalidURL as error:
        raise serializers.ValidationError(error.message) from None
    try:
        netguard.check_url(value, allow_private=settings.INKWELL_CMS["ALLOW_PRIVATE_URLS"])
    except netguard.AddressNotAllowed as refused:
        raise serializers.ValidationError(PRIVATE_ADDRESS_NOT_ALLOWED if refused.private else ADDRESS_NOT_ALLOWED) from None


def _text(max_length: int, **kwargs) -> serializers.CharField:
    return serializers.CharField(max_length=max_length, error_messages={"blank": REQUIRED, "null": REQUIRED}, **kwargs)


class BaseUrlField(serializers.CharField):
    def __init__(self, **kwargs):
        super().__init__(max_length=500, validators=[cms_base_url], error_messages={"blank": REQUIRED, "null": REQUIRED}, **kwargs)

    def to_internal_value(self, data):
        # One spelling per site: "https://blog.example.com/" and "https://blog.example.com" are the same CMS.
        return super().to_internal_value(data).rstrip("/")


class IntegrationSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    app_password_set = serializers.SerializerMethodField(help_text="An application password is stored (it is never shown).")
    sync_job_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = SiteIntegration
        fields = [
            "id",
            "site_id",
            "platform",
            "base_url",
            "username",
            "app_password_set",
            "is_active",
            "connection_status",
            "connection_message",
            "last_tested_at",
            "remote_site_name",
            "structure_updated_at",
            "sync_status",
            "sync_job_id",
            "last_synced_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_app_password_set(self, integration: SiteIntegration) -> bool:
        return bool(integration.app_password)


class IntegrationCreatedSerializer(IntegrationSerializer):
    webhook_secret = serializers.CharField(read_only=True, help_text="Shown only in this answer: the CMS signs its webhooks with it.")

    class Meta(IntegrationSerializer.Meta):
        fields = [*IntegrationSerializer.Meta.fields, "webhook_secret"]
        read_only_fields = fields


class WebhookSecretSerializer(serializers.Serializer):
    webhook_secret = serializers.CharField(help_text="Shown only in this answer; the previous secret no longer works.")


class IntegrationCreateInputSerializer(serializers.Serializer):
    site_id = AccountSiteField(source="site")
    platform = serializers.ChoiceField(choices=Platform.choices, error_messages={"invalid_choice": INVALID_PLATFORM})
    base_url = BaseUrlField(help_text="The CMS's address, e.g. https://blog.example.com")
    username = _text(150)
    app_password = _text(200, write_only=True, help_text="A WordPress application password of that user; stored encrypted.")
    is_active = serializers.BooleanField(required=False, default=True)


class IntegrationUpdateInputSerializer(serializers.Serializer):
    """The site and platform of an integration are fixed. ``app_password`` left out keeps the
    stored one (a client never gets it back to send again)."""

    base_url = BaseUrlField()
    username = _text(150)
    app_password = _text(200, write_only=True, required=False)
    is_active = serializers.BooleanField(required=False)


class RemoteUserSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    can_publish = serializers.BooleanField(help_text="The user may publish posts.")


class ConnectionResultSerializer(serializers.Serializer):
    connected = serializers.BooleanField()
    message = serializers.CharField()
    user = RemoteUserSerializer(allow_null=True)
    site_name = serializers.CharField(allow_blank=True)
    elapsed_ms = serializers.IntegerField()
    error_code = serializers.CharField(allow_null=True, help_text="cms_auth_failed, cms_unreachable, cms_timeout, ...; null when connected.")


class CollectionInputSerializer(serializers.Serializer):
    content_type = _text(MAX_CONTENT_TYPE_LENGTH, help_text="A content type's slug, e.g. post or page.")


class CollectionCheckSerializer(serializers.Serializer):
    content_type = serializers.CharField()
    ok = serializers.BooleanField()
    count = serializers.IntegerField()
    message = serializers.CharField(allow_blank=True)
    error_code = serializers.CharField(allow_null=True)


class ContentTypeSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    rest_base = serializers.CharField()
    taxonomies = serializers.ListField(child=serializers.CharField())


class RemoteSiteSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    url = serializers.CharField()
    time_zone = serializers.CharField(allow_blank=True)


class ContentTypesSerializer(serializers.Serializer):
    content_types = ContentTypeSerializer(many=True)
    structure_updated_at = serializers.DateTimeField(allow_null=True)
    message = serializers.CharField(allow_blank=True)
    error_code = serializers.CharField(allow_null=True)


class StructureSerializer(ContentTypesSerializer):
    updated = serializers.BooleanField(help_text="False when the CMS could not be read; the stored structure is shown.")
    site = RemoteSiteSerializer(allow_null=True)


class SiteSyncInputSerializer(serializers.Serializer):
    site_id = AccountSiteField(source="site")


class SyncRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    job_id = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=SyncStatus.choices)
    counts = serializers.JSONField()
    error_code = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_blank=True)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    duration_ms = serializers.IntegerField(allow_null=True)


class SyncJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=JobStatus.choices)
    progress = serializers.IntegerField()
    progress_message = serializers.CharField(allow_blank=True)
    error = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class SyncStatusSerializer(serializers.Serializer):
    integration_id = serializers.IntegerField()
    sync_status = serializers.ChoiceField(choices=SyncStatus.choices)
    last_synced_at = serializers.DateTimeField(allow_null=True)
    job = SyncJobSerializer(allow_null=True)
    last_run = SyncRunSerializer(allow_null=True)


class SyncHealthQuerySerializer(serializers.Serializer):
    window_days = serializers.IntegerField(min_value=1, max_value=365, required=False, default=30)


class ConnectionHealthSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ConnectionStatus.choices)
    message = serializers.CharField(allow_blank=True)
    last_tested_at = serializers.DateTimeField(allow_null=True)


class SyncCountsSerializer(serializers.Serializer):
    categories = serializers.IntegerField(help_text="Categories of the site that came from the CMS.")
    tags = serializers.IntegerField(help_text="Tags of the site that came from the CMS.")
    contents_linked = serializers.IntegerField(help_text="Our content that has a post on the CMS.")
    contents_published = serializers.IntegerField(help_text="Of those, the ones published.")
    runs = serializers.IntegerField(help_text="Syncs started within the window.")
    runs_succeeded = serializers.IntegerField()
    runs_failed = serializers.IntegerField()


class SyncErrorSerializer(serializers.Serializer):
    run_id = serializers.IntegerField()
    at = serializers.DateTimeField()
    code = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)


class SyncTimingsSerializer(serializers.Serializer):
    runs_measured = serializers.IntegerField(help_text="Finished runs the timings cover (the most recent, at most 50).")
    last_ms = serializers.IntegerField(allow_null=True)
    avg_ms = serializers.IntegerField(allow_null=True)
    p95_ms = serializers.IntegerField(allow_null=True)
    max_ms = serializers.IntegerField(allow_null=True)


class SyncHealthSerializer(serializers.Serializer):
    integration_id = serializers.IntegerField()
    connection = ConnectionHealthSerializer()
    sync_status = serializers.ChoiceField(choices=SyncStatus.choices)
    last_synced_at = serializers.DateTimeField(allow_null=True)
    window_days = serializers.IntegerField()
    counts = SyncCountsSerializer()
    last_errors = SyncErrorSerializer(many=True)
    timings = SyncTimingsSerializer()


@extend_schema_field({"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "minLength": 1, "maxLength": 100}]})
class PostIdField(serializers.Field):
    """A post's id as the CMS sends it: WordPress sends a number, other CMSs a string."""

    default_error_messages = {"invalid": "Enter the post's id as a number or a string", "required": REQUIRED, "null": REQUIRED}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, str)):
            self.fail("invalid")
        value = str(data).strip()
        if not value or len(value) > 100:
            self.fail("invalid")
        return value

    def to_representation(self, value):
        return value


class WebhookPostSerializer(serializers.Serializer):
    id = PostIdField(help_text="The post's id on the CMS.")
    status = serializers.CharField(max_length=20, required=False, help_text="publish, future, draft, pending, private or trash.")
    link = fields.WebURLField(max_length=500, required=False, allow_blank=True)
    modified_gmt = fields.DateTimeField(required=False, allow_null=True, help_text="When the post last changed, in UTC.")


class WebhookPayloadSerializer(serializers.Serializer):
    event = serializers.ChoiceField(choices=WEBHOOK_EVENTS, error_messages={"invalid_choice": INVALID_EVENT})
    post = WebhookPostSerializer()
    site_id = serializers.IntegerField(required=False, help_text="The site, when the API key is account-wide.")

    def validate(self, attrs):
        if attrs["event"] == "post.updated" and not attrs["post"].get("status"):
            raise serializers.ValidationError({"post": {"status": [REQUIRED]}})
        return attrs


class WebhookResultSerializer(serializers.Serializer):
    applied = serializers.BooleanField(required=False, help_text="The delivery changed our content.")
    duplicate = serializers.BooleanField(required=False, help_text="This delivery was received before; nothing was done again.")
    ignored = serializers.BooleanField(required=False, help_text="No content of ours is that post (or the integration is inactive).")
    content_id = serializers.IntegerField(required=False)
    site_status = serializers.CharField(required=False)
    external_url = serializers.CharField(required=False)
