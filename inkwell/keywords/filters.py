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

from inkwell.api.filters import MAX_ID, AnyCaseNullableBooleanFilter
from inkwell.keywords.models import BAND_BY_LABEL, DifficultyBand
from inkwell.keywords.selectors import DEFAULT_ORDERING, ORDERING_FIELDS, LibraryFilters

MAX_SECTOR_IDS = 500
MAX_VOLUME = 2**31 - 1
MAX_SEARCH_LENGTH = 100
# DRF's IntegerField refuses longer strings before parsing them.
MAX_INTEGER_STRING_LENGTH = 1000
ORDERINGS = [prefix + field for field in ORDERING_FIELDS for prefix in ("", "-")]
DIFFICULTIES = [band.label for band in DifficultyBand]
COUNTRY = re.compile(r"^[A-Za-z]{2}$")
SITE_SECTOR_HELP = (
    "A sector of one of your sites (the planner's sector_id): its industry sector's keywords, added to "
    "those of sector_ids. Another account's sector, or one of a site you may not see, is a 404."
)
VOLUME_RANGE_MESSAGE = "volume_max must be greater than or equal to volume_min"


def _too_long_message(limit: int) -> str:
    return f"Ensure this field has no more than {limit} characters."


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


class QueryIntegerField(forms.IntegerField):
    """A whole number that, when given, must be one: an empty value is an error, not "no filter"."""

    default_error_messages = {"invalid": "A valid integer is required.", "max_string_length": "String value too large."}

    def to_python(self, value) -> int | None:
        if value is None:
            return None
        if isinstance(value, str) and len(value) > MAX_INTEGER_STRING_LENGTH:
            raise ValidationError(self.error_messages["max_string_length"], code="max_string_length")
        number = super().to_python(value)
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return number


class QueryChoiceField(forms.ChoiceField):
    """One of the choices when given; an empty value is not one of them."""

    def to_python(self, value) -> str | None:
        return None if value is None else super().to_python(value)

    def validate(self, value) -> None:
        if value is not None and not self.valid_value(value):
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value})


class CountryField(forms.CharField):
    """A two-letter country code, upper-cased; blank is no filter."""

    default_error_messages = {"invalid_country": "Enter a two-letter country code such as US"}

    def __init__(self, **kwargs):
        super().__init__(max_length=2, error_messages={"max_length": _too_long_message(2)}, **kwargs)

    def clean(self, value) -> str:
        value = super().clean(value)
        if value and not COUNTRY.match(value):
            raise ValidationError(self.error_messages["invalid_country"], code="invalid_country")
        return value.upper()


def _filter(field_class, schema: dict, **field_kwargs) -> filters.Filter:
    """A filter that only validates (the selectors filter), documented by ``schema``."""
    query_filter = filters.Filter(**field_kwargs)
    query_filter.field_class = field_class
    return extend_schema_field(schema)(query_filter)


def _id_filter(help_text: str) -> filters.Filter:
    schema = {"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_ID, "description": help_text}
    return _filter(QueryIntegerField, schema, min_value=1, max_value=MAX_ID)


def _volume_filter() -> filters.Filter:
    return _filter(QueryIntegerField, {"type": "integer", "minimum": 0, "maximum": MAX_VOLUME}, min_value=0, max_value=MAX_VOLUME)


def _choice_schema(choices: list[str], **extra) -> dict:
    return {"type": "string", "enum": choices, "minLength": 1, "description": "\n".join(f"* `{choice}` - {choice}" for choice in choices), **extra}


class LibraryQueryForm(forms.Form):
    def clean(self):
        cleaned = super().clean()
        low, high = cleaned.get("volume_min"), cleaned.get("volume_max")
        # Only between valid values, as a serializer's validate() runs only when every field is valid.
        if not self._errors and low is not None and high is not None and low > high:
            self.add_error("volume_max", VOLUME_RANGE_MESSAGE)
        return cleaned


class LibraryFilter(filters.FilterSet):
    """The library list's query; anything invalid is a 400 with field errors."""

    sector_ids = _filter(SectorIdsField, {"type": "string", "description": "Comma-separated industry sector ids."})
    site_sector_id = _id_filter(SITE_SECTOR_HELP)
    search = _filter(
        forms.CharField,
        {"type": "string", "maxLength": MAX_SEARCH_LENGTH, "description": "Part of the keyword, any case."},
        max_length=MAX_SEARCH_LENGTH,
        error_messages={"max_length": _too_long_message(MAX_SEARCH_LENGTH)},
    )
    country = _filter(CountryField, {"type": "string", "maxLength": 2, "description": "Two-letter country code."})
    volume_min = _volume_filter()
    volume_max = _volume_filter()
    difficulty = _filter(
        QueryChoiceField,
        _choice_schema(DIFFICULTIES),
        choices=[(label, label) for label in DIFFICULTIES],
        error_messages={"invalid_choice": "Invalid difficulty: use easy, medium, hard or very_hard"},
    )
    is_high_opportunity = AnyCaseNullableBooleanFilter(error_messages={"invalid": "Must be a valid boolean."})
    is_paid = AnyCaseNullableBooleanFilter(error_messages={"invalid": "Must be a valid boolean."})
    ordering = _filter(
        QueryChoiceField,
        _choice_schema(ORDERINGS, default=DEFAULT_ORDERING),
        choices=[(ordering, ordering) for ordering in ORDERINGS],
        error_messages={"invalid_choice": "Invalid ordering: use keyword, volume, difficulty or country, with a leading - for descending"},
    )

    class Meta:
        form = LibraryQueryForm


class SectorStatsFilter(filters.FilterSet):
    sector_ids = _filter(SectorIdsField, {"type": "string", "description": "Comma-separated industry sector ids; all sectors with keywords when absent."})
    site_id = _id_filter("Count `added` for this site only.")
    site_sector_id = _id_filter(SITE_SECTOR_HELP)


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
