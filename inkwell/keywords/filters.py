"""The query filters of the keywords library: its list and its sector statistics, in the API and on
the console's library page.

The library is filtered by plain SQL (``selectors``), not by a queryset, so these FilterSets only
validate: ``api.filters.validated_filter_query`` cleans a query with their form's fields and the
selectors are built from the cleaned data (``library_filters``). The messages are the ones the
library has always answered, word for word (those of DRF's fields).
"""

import re

from django import forms
from django.core.exceptions import ValidationError
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field

from inkwell.api.filters import MAX_ID, TEXT_TOO_LONG, AnyCaseNullableBooleanFilter, ChoiceFilter, FilterSet, IntegerFilter, RangeCheckedForm, TextFilter, row_id_filter
from inkwell.keywords.models import BAND_BY_LABEL, MAX_VOLUME, DifficultyBand
from inkwell.keywords.selectors import DEFAULT_ORDERING, ORDERING_FIELDS, LibraryFilters

MAX_SECTOR_IDS = 500
MAX_SEARCH_LENGTH = 100
ORDERINGS = [prefix + field for field in ORDERING_FIELDS for prefix in ("", "-")]
DIFFICULTIES = [band.label for band in DifficultyBand]
COUNTRY = re.compile(r"^[A-Za-z]{2}$")
SITE_SECTOR_HELP = (
    "A sector of one of your sites (the planner's sector_id): its industry sector's keywords, added to "
    "those of sector_ids. Another account's sector, or one of a site you may not see, is a 404."
)


class SectorIdsField(forms.CharField):
    """``sector_ids=3,7,12``: comma-separated positive integers, sorted and without repeats; blank
    (as a form sends it) is no filter."""

    default_error_messages = {
        "invalid_ids": "Enter sector ids as comma-separated whole numbers, for example 3,7,12",
        "too_many": f"At most {MAX_SECTOR_IDS} sector ids",
    }

    def to_python(self, value) -> tuple[int, ...] | None:
        parts = [part.strip() for part in super().to_python(value).split(",") if part.strip()]
        if not parts:
            return None
        if not all(part.isdigit() and 1 <= int(part) <= MAX_ID for part in parts):
            raise ValidationError(self.error_messages["invalid_ids"], code="invalid_ids")
        if len(parts) > MAX_SECTOR_IDS:
            raise ValidationError(self.error_messages["too_many"], code="too_many")
        return tuple(sorted({int(part) for part in parts}))


class CountryField(forms.CharField):
    """A two-letter country code, upper-cased; blank is no filter."""

    default_error_messages = {"invalid_country": "Enter a two-letter country code such as US"}

    def __init__(self, **kwargs):
        super().__init__(max_length=2, error_messages={"max_length": TEXT_TOO_LONG.format(max_length=2)}, **kwargs)

    def clean(self, value) -> str:
        value = super().clean(value)
        if value and not COUNTRY.match(value):
            raise ValidationError(self.error_messages["invalid_country"], code="invalid_country")
        return value.upper()


def _filter(field_class, schema: dict) -> filters.Filter:
    """A filter of the library's own kind of value, documented by ``schema``."""
    query_filter = filters.Filter()
    query_filter.field_class = field_class
    return extend_schema_field(schema)(query_filter)


def _volume_filter() -> IntegerFilter:
    return IntegerFilter(min_value=0, max_value=MAX_VOLUME)


class LibraryQueryForm(RangeCheckedForm):
    RANGES = (("volume_min", "volume_max"),)


class LibraryFilter(FilterSet):
    """The library list's query; anything invalid is a 400 with field errors."""

    sector_ids = _filter(SectorIdsField, {"type": "string", "description": "Comma-separated industry sector ids."})
    site_sector_id = row_id_filter(SITE_SECTOR_HELP)
    search = TextFilter(max_length=MAX_SEARCH_LENGTH, help_text="Part of the keyword, any case.")
    country = _filter(CountryField, {"type": "string", "maxLength": 2, "description": "Two-letter country code."})
    volume_min = _volume_filter()
    volume_max = _volume_filter()
    difficulty = ChoiceFilter(
        choices=[(label, label) for label in DIFFICULTIES],
        error_messages={"invalid_choice": "Invalid difficulty: use easy, medium, hard or very_hard"},
    )
    is_high_opportunity = AnyCaseNullableBooleanFilter(error_messages={"invalid": "Must be a valid boolean."})
    is_paid = AnyCaseNullableBooleanFilter(error_messages={"invalid": "Must be a valid boolean."})
    ordering = ChoiceFilter(
        choices=[(ordering, ordering) for ordering in ORDERINGS],
        default=DEFAULT_ORDERING,
        error_messages={"invalid_choice": "Invalid ordering: use keyword, volume, difficulty or country, with a leading - for descending"},
    )

    class Meta:
        form = LibraryQueryForm


class SectorStatsFilter(FilterSet):
    sector_ids = _filter(SectorIdsField, {"type": "string", "description": "Comma-separated industry sector ids; all sectors with keywords when absent."})
    site_id = row_id_filter("Count `added` for this site only.")
    site_sector_id = row_id_filter(SITE_SECTOR_HELP)


def library_filters(query: dict) -> LibraryFilters:
    """The selectors' filters from a ``LibraryFilter`` query's cleaned data."""
    difficulty = query.get("difficulty")
    return LibraryFilters(
        sector_ids=query.get("sector_ids"),
        search=(query.get("search") or "").strip(),
        country=query.get("country") or None,
        volume_min=query.get("volume_min"),
        volume_max=query.get("volume_max"),
        difficulty=BAND_BY_LABEL[difficulty] if difficulty else None,
        is_high_opportunity=query.get("is_high_opportunity"),
        is_paid=query.get("is_paid"),
        ordering=query.get("ordering") or DEFAULT_ORDERING,
    )
