"""The publisher: publishing records, deployments, publishing content now, where it stands, and
the public site definition."""

from django.utils.cache import patch_cache_control
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny

from inkwell.api.envelope import created, ok
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import ApiView, validated, validated_query
from inkwell.publishing import definition, selectors, services
from inkwell.publishing import serializers as s
from inkwell.publishing.filters import DeploymentFilter, PublishingRecordFilter
from inkwell.publishing.models import Deployment, PublishingRecord
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.writer import serializers as writer_serializers
from inkwell.writer import refresh_serializers
from inkwell.writer.models import Content, ContentRefresh


class PublisherViewSet(AccountScopedViewSet):
    module = "publisher"
    throttle_scope = "content"


@extend_schema(tags=["publisher"])
class PublishingRecordViewSet(mixins.ListModelMixin, PublisherViewSet):
    """Every attempt to publish content, newest first: by whom or what (``trigger``), where, how it
    ended, and when the scheduler tries again after a failure."""

    queryset = PublishingRecord.objects.all()
    serializer_class = s.PublishingRecordSerializer
    filterset_class = PublishingRecordFilter

    @extend_schema(request=s.RecordPublicationInputSerializer, responses={201: s.PublishingRecordSerializer})
    def create(self, request):
        """Records a publication made outside Inkwell: the content becomes ``published`` at
        ``external_url`` (409 while it is being published)."""
        record = services.record_publication(user=request.user, **validated(s.RecordPublicationInputSerializer, request))
        return created(s.PublishingRecordSerializer(record).data)


@extend_schema(tags=["publisher"])
class DeploymentViewSet(mixins.ListModelMixin, PublisherViewSet):
    """Versions of each site's public definition, newest first; a new one is made when what the
    site publishes changed."""

    queryset = Deployment.objects.all()
    serializer_class = s.DeploymentSerializer
    filterset_class = DeploymentFilter

    def scoped_queryset(self, queryset):
        # The definition itself (every published article) is served by site-definition, not listed.
        return queryset.defer("definition")


class _ContentView(ApiView):
    module = "publisher"
    throttle_scope = "content"
    # The content id is resolved through AccountContentField: the caller's account, sites it may touch.
    tenant_scope = "own_account"


class PublishView(_ContentView):
    @extend_schema(
        tags=["publisher"],
        request=s.PublishInputSerializer,
        responses={200: s.PublishStatusSerializer, 409: ErrorEnvelopeSerializer, 422: ErrorEnvelopeSerializer, 502: ErrorEnvelopeSerializer},
    )
    def post(self, request):
        """Publishes approved content on its site's CMS now. The answer is where the content stands
        afterwards, with the attempt's record. Content that is not approved, a site with no active
        integration, or content already being published is a 409; internal links to addresses the
        site does not have (no live article there) are a 422 listing them, and nothing is sent. A CMS that refused the post or
        could not be reached is a 502: ``code`` names the cause (``cms_unreachable``,
        ``cms_auth_failed``, ``cms_rejected``, ...), ``error`` is the CMS's reason, and ``errors``
        holds ``next_retry_at`` (empty when no retry is planned) and ``attempts_left``; the status
        endpoint shows the same (``scheduled`` for a retry, else ``failed``)."""
        content = validated(s.PublishInputSerializer, request)["content"]
        services.publish_now(content=content, user=request.user)
        return ok(s.PublishStatusSerializer(selectors.publish_status(content)).data)


class PublishStatusView(_ContentView):
    @extend_schema(
        tags=["publisher"],
        parameters=[OpenApiParameter("content_id", int, required=True)],
        responses={200: s.PublishStatusSerializer},
    )
    def get(self, request):
        """Where the content stands on its CMS, with its newest publishing attempt."""
        content = validated_query(s.PublishStatusQuerySerializer, request)["content"]
        return ok(s.PublishStatusSerializer(selectors.publish_status(content)).data)


class SiteDefinitionView(ApiView):
    """Public: no credentials. Only active sites, and of them only what is published."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    tenant_scope = "public"
    throttle_scope = "content"

    @extend_schema(tags=["publisher"], parameters=[s.SiteDefinitionQuerySerializer], responses={200: dict})
    def get(self, request):
        """A site's public definition by slug (``site``) or ``domain``: the site, its sectors,
        categories, tags and published articles, as of its newest deployment (``version``)."""
        query = validated_query(s.SiteDefinitionQuerySerializer, request)
        site = definition.find_public_site(slug=query.get("site", ""), domain=query.get("domain", ""))
        if site is None:
            raise NotFound()
        response = ok(definition.public_definition(site))
        patch_cache_control(response, public=True, max_age=definition.cache_seconds())
        return response


@extend_schema(tags=["writer"])
class ContentPublishViewSet(AccountScopedViewSet):
    """Publishing's own routes under the writer's content, at the addresses clients know
    (``/writer/content/{id}/publish_to_cms/``, ``schedule/``, ``unschedule/``); the content is
    reached, and gated, as the writer's content views reach it."""

    module = "writer"
    throttle_scope = "content"
    queryset = Content.objects.all()
    serializer_class = s.PublishStatusSerializer

    @extend_schema(request=None, responses={200: s.PublishStatusSerializer, 409: ErrorEnvelopeSerializer, 422: ErrorEnvelopeSerializer, 502: ErrorEnvelopeSerializer})
    def publish_to_cms(self, request, pk=None):
        """Publishes approved content on its site's CMS now (as ``POST /publisher/publish/`` does):
        the answer is where it stands afterwards, with the attempt's record. Content that is not
        approved, a site with no active integration, or content already being published is a 409;
        internal links to addresses the site does not have are a 422 listing them;
        a CMS that refused or could not be reached is a 502 with its reason and the retry plan."""
        content = self.get_object()
        services.publish_now(content=content, user=request.user)
        return ok(s.PublishStatusSerializer(selectors.publish_status(content)).data)

    @extend_schema(request=writer_serializers.ScheduleInputSerializer, responses={200: writer_serializers.ScheduledResultSerializer, 409: ErrorEnvelopeSerializer})
    def schedule(self, request, pk=None):
        """Puts approved content on the publishing schedule: ``site_status`` becomes ``scheduled``.
        The time must be in the future (400); content that is not approved, a site with no active
        CMS integration, or content being published is a 409. A time outside the site's publishing
        days, time slots or daily, weekly or monthly limit (in the site's time zone) is a 409
        ``outside_publishing_rules`` naming the rule in ``error``; ``"override_rules": true``
        schedules it anyway and records the override on the content."""
        content = self.get_object()
        result = services.content_schedule(content=content, user=request.user, **validated(writer_serializers.ScheduleInputSerializer, request))
        return ok(writer_serializers.ScheduledResultSerializer(result).data)

    @extend_schema(request=None, responses={200: writer_serializers.ScheduleResultSerializer})
    def unschedule(self, request, pk=None):
        """Takes scheduled content off the schedule (``not_published``, no time); 409 when it is not scheduled."""
        return ok(writer_serializers.ScheduleResultSerializer(services.content_unschedule(content=self.get_object())).data)


@extend_schema(tags=["writer"])
class RefreshPublishViewSet(AccountScopedViewSet):
    """Sending a refresh of a live article as an update of its post (issue #37): now, or at a
    scheduled time (the publisher's sweep sends it, exactly once)."""

    module = "writer"
    throttle_scope = "content"
    queryset = ContentRefresh.objects.all()
    serializer_class = refresh_serializers.RefreshSerializer

    @extend_schema(request=None, responses={200: refresh_serializers.RefreshSerializer, 409: ErrorEnvelopeSerializer, 422: ErrorEnvelopeSerializer, 502: ErrorEnvelopeSerializer})
    def send(self, request, pk=None):
        """Updates the live post with the approved refresh now. Not approved, an article that is not
        live, no active integration, or a refresh being sent or sent: 409. Internal links to
        addresses the site does not have: 422 listing them. A CMS failure: 502 with
        the retry plan (the live post is unchanged)."""
        refresh = self.get_object()
        services.refresh_send_now(refresh=refresh, user=request.user)
        refresh.refresh_from_db()
        return ok(refresh_serializers.RefreshSerializer(refresh).data)

    @extend_schema(request=refresh_serializers.RefreshScheduleInputSerializer, responses={200: refresh_serializers.RefreshSerializer, 409: ErrorEnvelopeSerializer})
    def schedule(self, request, pk=None):
        """Schedules the approved refresh: the live post is updated at ``scheduled_at``. A time
        outside the site's publishing days or time slots is a 409 ``outside_publishing_rules``;
        ``"override_rules": true`` schedules it anyway and records the override."""
        refresh = services.refresh_schedule(refresh=self.get_object(), user=request.user, **validated(refresh_serializers.RefreshScheduleInputSerializer, request))
        return ok(refresh_serializers.RefreshSerializer(refresh).data)

    @extend_schema(request=None, responses={200: refresh_serializers.RefreshSerializer, 409: ErrorEnvelopeSerializer})
    def unschedule(self, request, pk=None):
        """Takes the refresh off the schedule (409 when it is not scheduled)."""
        return ok(refresh_serializers.RefreshSerializer(services.refresh_unschedule(refresh=self.get_object())).data)
