import re

from rest_framework import serializers

from inkwell.api.filters import MAX_ID
from inkwell.keywords.models import BAND_BY_LABEL, DifficultyBand
from inkwell.keywords.selectors import DEFAULT_ORDERING, ORDERING_FIELDS, LibraryFilters

MAX_SECTOR_IDS = 500
MAX_VOLUME = 2**31 - 1
ORDERINGS = [prefix + field for field in ORDERING_FIELDS for prefix in ("", "-")]
COUNTRY = re.compile(r"^[A-Za-z]{2}$")
SITE_SECTOR_HELP = (
    "A sector of one of your sites (the planner's sector_id): its industry sector's keywords, added to "
    "those of sector_ids. Another account's sector, or one of a site you may not see, is a 404."
)


class SectorIdsField(serializers.CharField):
    """``sector_ids=3,7,12``: comma-separated positive integers."""

    default_error_messages = {
        "invalid_ids": "Enter sector ids as comma-separated whole numbers, for example 3,7,12",
        "too_many": f"At most {MAX_SECTOR_IDS} sector ids",
    }

    def run_validation(self, data=serializers.empty):
        # A blank value (``sector_ids=``, as a form sends it) means no filter, like one of spaces;
        # CharField would return it as "" without calling to_internal_value.
        if data == "":
            return None
        return super().run_validation(data)

    def to_internal_value(self, data) -> tuple[int, ...] | None:
        text = super().to_internal_value(data)
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            return None
        if not all(part.isdigit() and 1 <= int(part) <= MAX_ID for part in parts):
            self.fail("invalid_ids")
        if len(parts) > MAX_SECTOR_IDS:
            self.fail("too_many")
        return tuple(sorted({int(part) for part in parts}))


class LibraryQuerySerializer(serializers.Serializer):
    """The query parameters of the library list; anything invalid is a 400 with field errors."""

    sector_ids = SectorIdsField(required=False, allow_blank=True, help_text="Comma-separated industry sector ids.")
    site_sector_id = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID, help_text=SITE_SECTOR_HELP)
    search = serializers.CharField(required=False, allow_blank=True, max_length=100, help_text="Part of the keyword, any case.")
    country = serializers.CharField(required=False, allow_blank=True, max_length=2, help_text="Two-letter country code.")
    volume_min = serializers.IntegerField(required=False, min_value=0, max_value=MAX_VOLUME)
    volume_max = serializers.IntegerField(required=False, min_value=0, max_value=MAX_VOLUME)
    difficulty = serializers.ChoiceField(
        choices=[band.label for band in DifficultyBand],
        required=False,
        error_messages={"invalid_choice": "Invalid difficulty: use easy, medium, hard or very_hard"},
    )
    is_high_opportunity = serializers.BooleanField(required=False, allow_null=True, default=None)
    is_paid = serializers.BooleanField(required=False, allow_null=True, default=None)
    ordering = serializers.ChoiceField(
        choices=ORDERINGS,
        required=False,
        default=DEFAULT_ORDERING,
        error_messages={"invalid_choice": "Invalid ordering: use keyword, volume, difficulty or country, with a leading - for descending"},
    )

    def validate_country(self, value: str) -> str:
        if value and not COUNTRY.match(value):
            raise serializers.ValidationError("Enter a two-letter country code such as US")
        return value.upper()

    def validate(self, attrs):
        low, high = attrs.get("volume_min"), attrs.get("volume_max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"volume_max": ["volume_max must be greater than or equal to volume_min"]})
        return attrs

    @staticmethod
    def to_filters(data: dict) -> LibraryFilters:
        difficulty = data.get("difficulty")
        return LibraryFilters(
            sector_ids=data.get("sector_ids"),
            search=data.get("search", "").strip(),
            country=data.get("country") or None,
            volume_min=data.get("volume_min"),
            volume_max=data.get("volume_max"),
            difficulty=BAND_BY_LABEL[difficulty] if difficulty else None,
            is_high_opportunity=data["is_high_opportunity"],
            is_paid=data["is_paid"],
            ordering=data["ordering"],
        )


class SectorStatsQuerySerializer(serializers.Serializer):
    sector_ids = SectorIdsField(required=False, allow_blank=True, help_text="Comma-separated industry sector ids; all sectors with keywords when absent.")
    site_id = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID, help_text="Count `added` for this site only.")
    site_sector_id = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID, help_text=SITE_SECTOR_HELP)


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
