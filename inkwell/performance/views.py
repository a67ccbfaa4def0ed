"""Search performance endpoints (issue #37; contract section 12).

``POST /integration/sites/{site_id}/search-performance/import/`` takes one Search Console export;
``GET /integration/sites/{site_id}/search-performance/`` answers the site's opportunities;
``GET /writer/content/{id}/performance/`` the article's rows, and ``POST
/writer/content/{id}/reviewed/`` marks it reviewed. The site and the content are reached through the
account's scoped querysets: another account's is a 404.
"""

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework.parsers import MultiPartParser

from inkwell.api.envelope import ok
from inkwell.api.exceptions import PayloadTooLarge
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import validated
from inkwell.performance import selectors, services
from inkwell.performance import serializers as s
from inkwell.tenancy.models import Site
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.writer.models import Content


class UploadParser(MultiPartParser):
    """Multipart, refused before it is read when larger than ``SEARCH_PERFORMANCE_MAX_UPLOAD_BYTES``."""

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        except ValueError:
            length = 0
        if length > settings.SEARCH_PERFORMANCE_MAX_UPLOAD_BYTES:
            raise PayloadTooLarge()
        return super().parse(stream, media_type, parser_context)


@extend_schema(tags=["search performance"])
class SiteSearchPerformanceViewSet(AccountScopedViewSet):
    module = "optimizer"
    throttle_scope = "content"
    queryset = Site.objects.all()
    lookup_url_kwarg = "site_id"
    pagination_class = None
    serializer_class = s.SitePerformanceSerializer
    parser_classes = [UploadParser]

    @extend_schema(request={"multipart/form-data": s.ImportInputSerializer}, responses={200: s.ImportResultSerializer, 400: ErrorEnvelopeSerializer, 413: ErrorEnvelopeSerializer})
    def import_export(self, request, site_id=None):
        """Imports one Search Console Performance export for the site and the period
        ``start_date``..``end_date``: Pages.csv, Queries.csv or Dates.csv, the ZIP that holds them,
        or Search Analytics API JSON (``dimensions`` names its keys). Importing a period again
        replaces it. A file of another shape is a 400 naming the file and line, and nothing is
        imported. Pages are matched to the site's articles by their live address."""
        site = self.get_object()
        values = validated(s.ImportInputSerializer, request, json_types=False)
        upload = values["file"]
        outcome = services.search_performance_import(
            account=request.account,
            site=site,
            data=upload.read(),
            filename=upload.name or "",
            start_date=values["start_date"],
            end_date=values["end_date"],
            dimensions=values.get("dimensions", ""),
            user=request.user,
        )
        return ok(s.ImportResultSerializer({"imported": outcome.imported, "matched": outcome.matched, "unmatched": outcome.unmatched}).data)

    @extend_schema(responses={200: s.SitePerformanceSerializer})
    def summary(self, request, site_id=None):
        """The site's opportunities in its newest imported period: striking-distance queries with
        what to do, decaying articles, queries two articles compete for, and articles due for review
        (each list at most 50 long, the most important first)."""
        site = self.get_object()
        data = {
            "striking_distance": [opportunity.__dict__ for opportunity in selectors.striking_distance(site=site)],
            "decaying": selectors.decaying_articles(site=site),
            "cannibalization": selectors.cannibalization(site=site),
            # The longest overdue first, as many as the other lists hold; the console pages the whole queue.
            "due_for_review": selectors.due_for_review(site=site)[: selectors.MAX_LISTED],
        }
        return ok(s.SitePerformanceSerializer(data).data)


@extend_schema(tags=["search performance"])
class ContentPerformanceViewSet(AccountScopedViewSet):
    module = "writer"
    throttle_scope = "content"
    queryset = Content.objects.all()
    serializer_class = s.ArticlePerformanceSerializer

    def scoped_queryset(self, queryset):
        return queryset.select_related("site")

    @extend_schema(responses={200: s.ArticlePerformanceSerializer})
    def performance(self, request, pk=None):
        """The article's clicks, impressions, CTR and position per imported period (oldest
        first), its queries in the newest period, its change against the previous period, and
        its review-by date."""
        return ok(s.ArticlePerformanceSerializer(selectors.article_performance(content=self.get_object())).data)

    @extend_schema(request=s.ReviewInputSerializer, responses={200: s.ReviewSerializer})
    def reviewed(self, request, pk=None):
        """Marks the article reviewed today: its next review falls the site's period later, or on
        ``review_by`` when given."""
        content = self.get_object()
        values = validated(s.ReviewInputSerializer, request)
        services.article_reviewed(account=request.account, content=content, review_by=values.get("review_by"))
        return ok(s.ReviewSerializer(selectors.review_of(content=content)).data)
