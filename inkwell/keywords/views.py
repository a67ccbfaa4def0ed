from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny

from inkwell.api.envelope import ok
from inkwell.api.exceptions import Gone
from inkwell.api.views import ApiGenericViewSet, ApiView, validated_query
from inkwell.keywords import selectors
from inkwell.keywords import serializers as s
from inkwell.tenancy.access import can_access_site
from inkwell.tenancy.models import Site

LIBRARY_PATH = "/api/v1/keywords-library/"


@extend_schema(tags=["keywords library"])
class KeywordsLibraryViewSet(ApiGenericViewSet):
    """The shared, read-only keywords library, by industry sector."""

    tenant_scope = "global"
    serializer_class = s.LibraryItemSerializer
    filter_backends: list = []  # its query serializers filter, not django-filter

    @extend_schema(parameters=[s.LibraryQuerySerializer], responses={200: s.LibraryItemSerializer(many=True)})
    def list(self, request):
        query = selectors.with_site_sector(request, validated_query(s.LibraryQuerySerializer, request))
        return self.get_paginated_response(self.paginate_queryset(selectors.LibraryPage(s.LibraryQuerySerializer.to_filters(query))))

    @extend_schema(parameters=[s.SectorStatsQuerySerializer], responses={200: s.SectorStatsSerializer(many=True)})
    @action(detail=False, methods=["get"], pagination_class=None)
    def sector_stats(self, request):
        query = selectors.with_site_sector(request, validated_query(s.SectorStatsQuerySerializer, request))
        site = None
        if "site_id" in query:
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
