from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny

from inkwell.api.envelope import ok
from inkwell.api.exceptions import Gone
from inkwell.api.filters import validated_filter_query
from inkwell.api.views import ApiGenericViewSet, ApiView
from inkwell.keywords import selectors
from inkwell.keywords import serializers as s
from inkwell.keywords.filters import LibraryFilter, SectorStatsFilter, library_filters
from inkwell.keywords.models import SeedKeyword
from inkwell.tenancy.access import can_access_site
from inkwell.tenancy.models import Site

LIBRARY_PATH = "/api/v1/keywords-library/"


@extend_schema(tags=["keywords library"])
class KeywordsLibraryViewSet(ApiGenericViewSet):
    """The shared, read-only keywords library, by industry sector."""

    tenant_scope = "global"
    serializer_class = s.LibraryItemSerializer
    # The FilterSets validate and the selectors filter in plain SQL; the queryset names the model
    # only for the OpenAPI document of the FilterSets, and no request reads it.
    queryset = SeedKeyword.objects.none()

    @property
    def filterset_class(self):
        return SectorStatsFilter if self.action == "sector_stats" else LibraryFilter

    @extend_schema(summary="List keywords library", responses={200: s.LibraryItemSerializer(many=True)})
    def list(self, request):
        query = selectors.with_site_sector(request, validated_filter_query(LibraryFilter, request.query_params.dict()))
        return self.get_paginated_response(self.paginate_queryset(selectors.LibraryPage(library_filters(query))))

    @extend_schema(responses={200: s.SectorStatsSerializer(many=True)})
    @action(detail=False, methods=["get"], pagination_class=None)
    def sector_stats(self, request):
        query = selectors.with_site_sector(request, validated_filter_query(SectorStatsFilter, request.query_params.dict()))
        site = None
        if query.get("site_id") is not None:
            site = Site.objects.for_account(request.account).filter(pk=query["site_id"]).first()
            if site is None or not can_access_site(request, site.pk):
                raise NotFound()
        return ok(selectors.sector_stats(account=request.account, site=site, sector_ids=query.get("sector_ids")))


@extend_schema(exclude=True)
class SeedKeywordsGoneView(ApiView):
    """``/auth/seed-keywords/`` was replaced by ``/keywords-library/`` in release 1.8.2, without
    compatibility. Retired: it answers 410 naming the new path, and is left out of the schema."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    tenant_scope = "public"

    def get(self, request, *args, **kwargs):
        raise Gone(error=f"This endpoint was removed; use {LIBRARY_PATH}")

    post = put = patch = delete = get


@extend_schema(exclude=True)
class SeedKeywordsItemGoneView(SeedKeywordsGoneView):
    """Any path below the retired endpoint: the same 410."""
