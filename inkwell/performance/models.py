"""Search performance of a site's articles (issue #37): what Search Console reported, per period,
and each article's review date.

An import covers one site, one period (``start_date``..``end_date``) and one breakdown
(``kind``: ``page``, ``query``, ``date`` or ``page+query``). Importing the same site, period and
breakdown again replaces its rows: the import is idempotent per period.
"""

from django.conf import settings
from django.db import models

from inkwell.tenancy.models import AccountOwnedModel, Site
from inkwell.writer.models import Content


class SearchImportSource(models.TextChoices):
    CSV = "csv", "Search Console CSV"
    ZIP = "zip", "Search Console ZIP"
    API_JSON = "api_json", "Search Analytics API JSON"


class SearchPerformanceImport(AccountOwnedModel):
    """One breakdown of one period of a site's Search Console data, as last imported."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    start_date = models.DateField()
    end_date = models.DateField()
    kind = models.CharField(max_length=20)
    source = models.CharField(max_length=10, choices=SearchImportSource.choices)
    filename = models.CharField(max_length=200, blank=True)
    imported = models.PositiveIntegerField(default=0)
    matched = models.PositiveIntegerField(default=0)
    unmatched = models.JSONField(default=list, blank=True, help_text="Pages that matched no live article (at most 200).")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-end_date", "-id"]
        constraints = [models.UniqueConstraint(fields=["site", "start_date", "end_date", "kind"], name="search_import_once_per_period")]
        indexes = [models.Index(fields=["account", "site", "-end_date"], name="search_import_site_recent")]


class SearchMetric(AccountOwnedModel):
    """One row of the report: a page, a query, a day, or a query on a page, in one period."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    search_import = models.ForeignKey(SearchPerformanceImport, on_delete=models.CASCADE, related_name="metrics")
    content = models.ForeignKey(Content, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=20)
    start_date = models.DateField()
    end_date = models.DateField()
    page = models.CharField(max_length=1000, blank=True)
    query = models.CharField(max_length=1000, blank=True)
    day = models.DateField(null=True, blank=True)
    clicks = models.PositiveIntegerField(default=0)
    impressions = models.PositiveIntegerField(default=0)
    ctr = models.FloatField(default=0)
    position = models.FloatField(default=0)

    class Meta:
        ordering = ["-end_date", "-clicks", "id"]
        indexes = [
            models.Index(fields=["account", "site", "kind", "-end_date"], name="search_metric_site_kind"),
            models.Index(fields=["content", "kind", "-end_date"], name="search_metric_content"),
            models.Index(fields=["search_import"], name="search_metric_import"),
        ]


class ArticleReview(AccountOwnedModel):
    """An article's review: when it was last reviewed, a review-by date set by hand (else the site
    default after publishing or the last review), and the due date it was last reminded of."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    content = models.OneToOneField(Content, on_delete=models.CASCADE, related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_by = models.DateField(null=True, blank=True)
    reminded_for = models.DateField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["account", "site"], name="article_review_site")]
