"""The shapes of the library's answers, for the OpenAPI document (the answers themselves are built
by the selectors); its queries are validated by ``filters``."""

from rest_framework import serializers

from inkwell.keywords.models import DifficultyBand


class LibraryItemSerializer(serializers.Serializer):
    """Documents a library item; the list itself is built by the database (selectors.library_page)."""

    id = serializers.IntegerField()
    keyword = serializers.CharField()
    volume = serializers.IntegerField()
    difficulty = serializers.ChoiceField(choices=[band.label for band in DifficultyBand])
    country = serializers.CharField()
    industry_sector = serializers.IntegerField()
    industry_sector_name = serializers.CharField()
    is_high_opportunity = serializers.BooleanField()
    is_paid = serializers.BooleanField()
    credit_cost = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class SectorStatsNumbersSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    added = serializers.IntegerField()
    available = serializers.IntegerField()
    high_opportunity = serializers.IntegerField()
    paid = serializers.IntegerField()
    free = serializers.IntegerField()


class SectorStatsSerializer(serializers.Serializer):
    sector_id = serializers.IntegerField()
    sector_name = serializers.CharField()
    sector_description = serializers.CharField()
    stats = SectorStatsNumbersSerializer()
