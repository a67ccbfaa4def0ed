"""Serializers of search performance (issue #37; contract section 12)."""

from rest_framework import serializers

from inkwell.api.serializers import RejectUnknownFieldsMixin

FILE_REQUIRED = "Attach one file: Search Console's Pages.csv or Queries.csv, the ZIP that holds them, or Search Analytics API JSON"


class ImportInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    file = serializers.FileField(help_text="Pages.csv, Queries.csv or Dates.csv of the Performance export, its ZIP, or Search Analytics API JSON.")
    start_date = serializers.DateField(help_text="The first day of the period the export covers (YYYY-MM-DD).")
    end_date = serializers.DateField(help_text="The last day of the period (YYYY-MM-DD).")
    dimensions = serializers.CharField(
        required=False, allow_blank=True, max_length=40, help_text="For API JSON: the request's dimensions in order, e.g. query,page."
    )


class ImportResultSerializer(serializers.Serializer):
    imported = serializers.IntegerField(help_text="Rows imported (every table of the file).")
    matched = serializers.IntegerField(help_text="Rows with a page that matched one of the site's articles.")
    unmatched = serializers.ListField(child=serializers.CharField(), help_text="Pages that matched no article (at most 200).")


class PeriodRowSerializer(serializers.Serializer):
    start_date = serializers.DateField()
    end_date = serializers.DateField()
    clicks = serializers.IntegerField()
    impressions = serializers.IntegerField()
    ctr = serializers.FloatField(help_text="A fraction: 0.0455 is 4.55%.")
    position = serializers.FloatField(allow_null=True, help_text="Average position, weighted by impressions.")


class QueryRowSerializer(serializers.Serializer):
    query = serializers.CharField()
    clicks = serializers.IntegerField()
    impressions = serializers.IntegerField()
    ctr = serializers.FloatField()
    position = serializers.FloatField()


class ChangeSerializer(serializers.Serializer):
    clicks = serializers.IntegerField()
    clicks_pct = serializers.FloatField(allow_null=True)
    impressions = serializers.IntegerField()
    position = serializers.FloatField(allow_null=True, help_text="Negative: the article moved up.")


class ReviewSerializer(serializers.Serializer):
    review_by = serializers.DateField(allow_null=True)
    reviewed_at = serializers.DateTimeField(allow_null=True)


class ArticlePerformanceSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    url = serializers.CharField()
    periods = PeriodRowSerializer(many=True)
    current = PeriodRowSerializer(allow_null=True)
    previous = PeriodRowSerializer(allow_null=True)
    change = ChangeSerializer(allow_null=True)
    queries = QueryRowSerializer(many=True)
    review = ReviewSerializer()


class ReviewInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    review_by = serializers.DateField(required=False, allow_null=True, help_text="The next review date; empty: the site's default after today.")


class LinkSourceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()


class OpportunitySerializer(serializers.Serializer):
    kind = serializers.CharField()
    query = serializers.CharField()
    content_id = serializers.IntegerField()
    content_title = serializers.CharField()
    clicks = serializers.IntegerField()
    impressions = serializers.IntegerField()
    position = serializers.FloatField()
    action = serializers.CharField()
    link_from = LinkSourceSerializer(many=True)


class DecayingSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    title = serializers.CharField()
    clicks = serializers.IntegerField()
    previous_clicks = serializers.IntegerField()
    drop_pct = serializers.FloatField()


class CompetingArticleSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    title = serializers.CharField()
    clicks = serializers.IntegerField()
    impressions = serializers.IntegerField()
    position = serializers.FloatField()


class CannibalizationSerializer(serializers.Serializer):
    query = serializers.CharField()
    impressions = serializers.IntegerField()
    articles = CompetingArticleSerializer(many=True)


class DueForReviewSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    title = serializers.CharField()
    review_by = serializers.DateField()


class SitePerformanceSerializer(serializers.Serializer):
    striking_distance = OpportunitySerializer(many=True)
    decaying = DecayingSerializer(many=True)
    cannibalization = CannibalizationSerializer(many=True)
    due_for_review = DueForReviewSerializer(many=True)
