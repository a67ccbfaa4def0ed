"""/integration/: a site's CMS integration, its connection tests, structure and syncs, and the
webhook the CMS calls (spec: Integration).

Roles: everyone reads the integrations of the sites they can see; owners and admins create,
change and delete them (credentials are theirs alone); editors may also
test the connection, refresh the structure and start syncs, which change no credentials.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission

from inkwell.api.envelope import created, ok
from inkwell.api.exceptions import PlanInactive
from inkwell.api.views import ApiView, validated, validated_query
from inkwell.integration import selectors, services
from inkwell.integration import serializers as s
from inkwell.integration.filters import IntegrationFilter
from inkwell.integration.models import SiteIntegration
from inkwell.jobs.serializers import JobStartedSerializer
from inkwell.jobs.views import job_accepted
from inkwell.system.permissions import ModuleEnabled
from inkwell.tenancy.authentication import ApiKeyAuthentication
from inkwell.tenancy.models import CONTENT_WRITER_ROLES, MANAGER_ROLES, ApiKey
from inkwell.tenancy.viewsets import AccountScopedViewSet


@extend_schema(tags=["integration"])
class IntegrationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    """CMS integrations of the caller's sites. The application password is never shown
    (``app_password_set``); the webhook secret only in the answers that make one."""

    queryset = SiteIntegration.objects.all()
    serializer_class = s.IntegrationSerializer
    filterset_class = IntegrationFilter
    module = "integration"
    throttle_scope = "general"
    write_roles = MANAGER_ROLES

    def scoped_queryset(self, queryset):
        return queryset.select_related("sync_job") if self.action == "sync_status" else queryset

    @extend_schema(request=s.IntegrationCreateInputSerializer, responses={201: s.IntegrationCreatedSerializer})
    def create(self, request):
        """Connects a site to its CMS (one integration per site and platform: 409). The answer
        holds the webhook secret, which is never shown again."""
        integration = services.integration_create(account=request.account, **validated(s.IntegrationCreateInputSerializer, request))
        return created(s.IntegrationCreatedSerializer(integration).data, secret=True)

    @extend_schema(request=s.IntegrationUpdateInputSerializer, responses={200: s.IntegrationSerializer})
    def update(self, request, pk=None, partial=False):
        """Changes the address, user, application password (kept when left out) or ``is_active``;
        new credentials are ``untested`` until the next connection test."""
        integration = self.get_object()
        integration = services.integration_update(integration=integration, **validated(s.IntegrationUpdateInputSerializer, request, partial=partial))
        return ok(self.get_serializer(integration).data)

    @extend_schema(request=s.IntegrationUpdateInputSerializer, responses={200: s.IntegrationSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk, partial=True)

    def perform_destroy(self, instance):
        services.integration_delete(integration=instance)

    @extend_schema(request=None, responses={200: s.WebhookSecretSerializer})
    @action(detail=True, methods=["post"])
    def rotate_webhook_secret(self, request, pk=None):
        """A new webhook secret, shown in this answer only; the old one stops working at once."""
        return ok({"webhook_secret": services.rotate_webhook_secret(integration=self.get_object())}, secret=True)

    @extend_schema(request=None, responses={200: s.ConnectionResultSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_WRITER_ROLES)
    def test_connection(self, request, pk=None):
        """Logs in to the CMS with the stored credentials. Answers 200 whether it worked or not:
        ``connected``, a message, the CMS user and site name, the time taken and, on failure, an
        ``error_code`` (``cms_auth_failed``, ``cms_unreachable``, ``cms_timeout``, ...)."""
        return ok(services.check_connection(integration=self.get_object()))

    @extend_schema(request=s.CollectionInputSerializer, responses={200: s.CollectionCheckSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_WRITER_ROLES)
    def test_collection_connection(self, request, pk=None):
        """Whether the credentials can list one content type (``post``, ``page``, ...) and how many items it has."""
        integration = self.get_object()
        return ok(services.check_collection(integration=integration, **validated(s.CollectionInputSerializer, request)))

    @extend_schema(request=None, responses={200: s.StructureSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_WRITER_ROLES)
    def update_structure(self, request, pk=None):
        """Reads the CMS site's facts and content types now and stores them (``updated`` false,
        with the reason, when the CMS cannot be read)."""
        return ok(services.update_structure(integration=self.get_object()))

    @extend_schema(request=None, responses={200: s.ContentTypesSerializer})
    @action(detail=True, methods=["get"])
    def content_types(self, request, pk=None):
        """The CMS's content types as the last structure update read them (read now the first time)."""
        return ok(services.content_types(integration=self.get_object()))

    @extend_schema(request=None, responses={202: JobStartedSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_WRITER_ROLES)
    def sync(self, request, pk=None):
        """Syncs in the background (job ``integration.sync``): categories and tags into
        taxonomies, content types, and the published state of our content. 409 while a sync of
        this integration is queued or running, or when it is inactive."""
        job = services.start_sync(account=request.account, integration=self.get_object(), user=request.user)
        return job_accepted(job)

    @extend_schema(request=s.SiteSyncInputSerializer, responses={202: JobStartedSerializer})
    @action(detail=False, methods=["post"], write_roles=CONTENT_WRITER_ROLES)
    def site_sync(self, request):
        """``sync`` of the site's integration (409 when the site has none)."""
        job = services.start_site_sync(account=request.account, user=request.user, **validated(s.SiteSyncInputSerializer, request))
        return job_accepted(job)

    @extend_schema(request=None, responses={200: s.SyncStatusSerializer})
    @action(detail=True, methods=["get"])
    def sync_status(self, request, pk=None):
        """The current (or last) sync: its job's status and progress, and the last run's record."""
        return ok(selectors.sync_status(self.get_object()))

    @extend_schema(request=None, parameters=[s.SyncHealthQuerySerializer], responses={200: s.SyncHealthSerializer})
    @action(detail=True, methods=["get"])
    def sync_health(self, request, pk=None):
        """Sync statistics: what came from the CMS, runs over the last ``window_days`` days (30 by
        default), the last five errors, durations of recent runs, and the connection's state."""
        integration = self.get_object()
        return ok(selectors.sync_health(integration, **validated_query(s.SyncHealthQuerySerializer, request)))


class CmsApiKey(BasePermission):
    """The webhook's caller: an account API key, of an account whose plan is active."""

    def has_permission(self, request, view) -> bool:
        key = request.auth
        if not isinstance(key, ApiKey):
            return False
        subscription = getattr(key.user.account, "subscription", None)
        if subscription is None or not subscription.is_active:
            raise PlanInactive()
        request.account = key.user.account
        return True


class CmsWebhookView(ApiView):
    """``POST /integration/webhook/cms/``: the CMS tells us a post changed.

    No user logs in here: the caller proves itself twice, with an account API key
    (``Authorization: ApiKey <key>``) and with ``X-Inkwell-Signature: sha256=<hex>``, the
    HMAC-SHA256 of ``"{X-Inkwell-Timestamp}." + raw body`` with the integration's webhook secret.
    A missing or wrong key, a wrong signature, or a timestamp more than
    ``WEBHOOK_TOLERANCE_SECONDS`` (300) from now answers 401; a malformed body 400. A delivery
    received before answers ``{"duplicate": true}``, a post that is none of our content
    ``{"ignored": true}``, both 200. See docs/publishing.md, "The CMS webhook".
    """

    tenant_scope = "public"
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [CmsApiKey, ModuleEnabled]
    module = "integration"
    throttle_scope = "general"

    @extend_schema(
        tags=["integration"],
        request=s.WebhookPayloadSerializer,
        responses={200: s.WebhookResultSerializer},
        parameters=[
            OpenApiParameter(services.TIMESTAMP_HEADER, str, OpenApiParameter.HEADER, required=True, description="Unix seconds when the CMS signed the delivery."),
            OpenApiParameter(services.SIGNATURE_HEADER, str, OpenApiParameter.HEADER, required=True, description='"sha256=" and the hex HMAC-SHA256 of "{timestamp}." + body.'),
        ],
    )
    def post(self, request):
        delivery = services.authenticate_webhook(
            key=request.auth,
            timestamp=request.headers.get(services.TIMESTAMP_HEADER),
            signature=request.headers.get(services.SIGNATURE_HEADER),
            raw_body=request.body,
        )
        payload = validated(s.WebhookPayloadSerializer, request, data=delivery.payload)
        return ok(services.receive_webhook(integration=delivery.integration, signature=delivery.signature, **payload))
