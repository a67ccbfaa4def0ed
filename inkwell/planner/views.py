from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action

from inkwell.api.envelope import created, ok
from inkwell.api.filters import validated_filter_query
from inkwell.api.idempotency import idempotent
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import FiltersTheListOnlyMixin, validated
from inkwell.jobs.serializers import JobStartedSerializer
from inkwell.jobs.views import job_accepted
from inkwell.planner import selectors, services
from inkwell.planner import serializers as s
from inkwell.planner.filters import ClusterFilter, IdeaFilter, KeywordFilter, keyword_list_filters
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.tenancy.access import accessible_site_ids
from inkwell.tenancy.viewsets import AccountScopedViewSet

PAYMENT_REQUIRED = {402: ErrorEnvelopeSerializer}


class PlannerViewSet(FiltersTheListOnlyMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    """Planner rows of the caller's account: every role reads them, owners, admins and editors
    change them, editors and viewers only on the sites granted to them. Lists filter through the
    view's FilterSet (``inkwell.planner.filters``)."""

    module = "planner"
    throttle_scope = "general"


@extend_schema(tags=["planner"])
class KeywordViewSet(PlannerViewSet):
    """Library keywords a site works on. Statuses: `active`, `paused`, `archived`."""

    queryset = Keyword.objects.select_related("cluster")
    serializer_class = s.KeywordSerializer
    filterset_class = KeywordFilter

    @extend_schema(responses={200: s.KeywordSerializer(many=True)})
    def list(self, request):
        # The FilterSet validates the query; the rows are read in plain SQL scoped to the caller's
        # account and sites (selectors.KeywordListPage), not through get_queryset.
        query = validated_filter_query(KeywordFilter, request.query_params)
        filters = keyword_list_filters(query, account_id=request.account.pk, site_ids=accessible_site_ids(request))
        return self.get_paginated_response(self.paginate_queryset(selectors.KeywordListPage(filters)))

    @extend_schema(request=s.KeywordCreateInputSerializer, responses={201: s.KeywordSerializer, **PAYMENT_REQUIRED})
    def create(self, request):
        """Adds one library keyword to a site's sector; a paid one costs its `credit_cost`."""
        keyword = services.keyword_create(account=request.account, **validated(s.KeywordCreateInputSerializer, request))
        return created(self.get_serializer(keyword).data)

    @extend_schema(request=s.KeywordUpdateInputSerializer, responses={200: s.KeywordSerializer})
    def update(self, request, pk=None):
        keyword = self.get_object()
        keyword = services.keyword_update(keyword=keyword, **validated(s.KeywordUpdateInputSerializer, request))
        return ok(self.get_serializer(keyword).data)

    @extend_schema(request=s.KeywordUpdateInputSerializer, responses={200: s.KeywordSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk)

    @extend_schema(request=s.BulkIdsInputSerializer, responses={200: s.BulkDeleteResultSerializer})
    @action(detail=False, methods=["post"])
    def bulk_delete(self, request):
        """Deletes the caller's keywords among `ids` for good; other ids are reported as `not_found`."""
        data = validated(s.BulkIdsInputSerializer, request)
        return ok(services.keywords_bulk_delete(keywords=self.get_queryset(), ids=data["ids"]))

    @extend_schema(request=s.BulkStatusInputSerializer, responses={200: s.BulkStatusResultSerializer})
    @action(detail=False, methods=["post"])
    def bulk_status(self, request):
        data = validated(s.BulkStatusInputSerializer, request)
        return ok(services.keywords_bulk_status(keywords=self.get_queryset(), ids=data["ids"], status=data["status"]))

    @extend_schema(request=s.AddToWorkflowInputSerializer, responses={200: s.AddToWorkflowResultSerializer, **PAYMENT_REQUIRED})
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def add_to_workflow(self, request):
        """Adds many library keywords of the sector's industry sector to the site; the paid ones are
        charged their `credit_cost` all together (402 and nothing added when the balance is short)."""
        return ok(services.add_to_workflow(account=request.account, **validated(s.AddToWorkflowInputSerializer, request)))


@extend_schema(tags=["planner"])
class ClusterViewSet(PlannerViewSet):
    """Groups of a site's keywords, with their keyword count and total volume. Statuses: `active`, `archived`.
    Deleting a cluster keeps its keywords, unclustered."""

    queryset = Cluster.objects.all()
    serializer_class = s.ClusterSerializer
    filterset_class = ClusterFilter

    def scoped_queryset(self, queryset):
        # The totals only where a cluster is shown: grouping would refuse the row locks others take.
        return selectors.with_cluster_totals(queryset) if self.action in ("list", "retrieve") else queryset

    @extend_schema(responses={200: s.ClusterSerializer(many=True)})
    def list(self, request):
        clusters = self.filter_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(self.paginate_queryset(clusters), many=True).data)

    @extend_schema(request=s.ClusterCreateInputSerializer, responses={201: s.ClusterSerializer})
    def create(self, request):
        cluster = services.cluster_create(account=request.account, **validated(s.ClusterCreateInputSerializer, request))
        return created(self.get_serializer(selectors.cluster_with_totals(request.account, cluster.pk)).data)

    @extend_schema(request=s.ClusterUpdateInputSerializer, responses={200: s.ClusterSerializer})
    def update(self, request, pk=None):
        cluster = self.get_object()
        cluster = services.cluster_update(cluster=cluster, **validated(s.ClusterUpdateInputSerializer, request))
        return ok(self.get_serializer(selectors.cluster_with_totals(request.account, cluster.pk)).data)

    @extend_schema(request=s.ClusterUpdateInputSerializer, responses={200: s.ClusterSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk)

    @extend_schema(request=s.AutoClusterInputSerializer, responses={202: JobStartedSerializer, **PAYMENT_REQUIRED})
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def auto_cluster(self, request):
        """Groups keywords into named clusters with AI, as a job (`planner.auto_cluster`) that costs
        `clustering` credits per keyword; `ai_cluster_complete` or `ai_cluster_failed` tells the outcome."""
        job = services.start_auto_cluster(account=request.account, user=request.user, **validated(s.AutoClusterInputSerializer, request))
        return job_accepted(job)

    @extend_schema(request=s.GenerateIdeasInputSerializer, responses={202: JobStartedSerializer, **PAYMENT_REQUIRED})
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def generate_ideas(self, request):
        """Writes `ideas_per_cluster` content ideas for each cluster with AI, as a job (`planner.generate_ideas`)
        that costs `idea_generation` credits per cluster; `ai_ideas_complete` or `ai_ideas_failed` tells the outcome."""
        data = validated(s.GenerateIdeasInputSerializer, request)
        job = services.start_generate_ideas(account=request.account, user=request.user, clusters=self.get_queryset(), **data)
        return job_accepted(job)


@extend_schema(tags=["planner"])
class IdeaViewSet(PlannerViewSet):
    """Article ideas of a site. Statuses: `new`, `converted` (it became a writer task), `archived`."""

    queryset = ContentIdea.objects.all()
    serializer_class = s.IdeaSerializer
    filterset_class = IdeaFilter

    @extend_schema(responses={200: s.IdeaSerializer(many=True)})
    def list(self, request):
        ideas = self.filter_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(self.paginate_queryset(ideas), many=True).data)

    @extend_schema(request=s.IdeaCreateInputSerializer, responses={201: s.IdeaSerializer})
    def create(self, request):
        idea = services.idea_create(account=request.account, **validated(s.IdeaCreateInputSerializer, request))
        return created(self.get_serializer(idea).data)

    @extend_schema(request=s.IdeaUpdateInputSerializer, responses={200: s.IdeaSerializer})
    def update(self, request, pk=None):
        idea = self.get_object()
        idea = services.idea_update(idea=idea, **validated(s.IdeaUpdateInputSerializer, request))
        return ok(self.get_serializer(idea).data)

    @extend_schema(request=s.IdeaUpdateInputSerializer, responses={200: s.IdeaSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk)
