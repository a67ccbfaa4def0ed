"""The shared boolean filters: what each reads as true, false or no filter, and the message a
FilterSet answers with for anything else; a query validated by a FilterSet's fields without a queryset."""

import pytest
from django.http import QueryDict
from django_filters import rest_framework as filters
from rest_framework.exceptions import ValidationError

from inkwell.api.filters import AnyCaseNullableBooleanFilter, BooleanFilter, FilterSet, IdFilter, NullableBooleanFilter, validated_filter_query
from inkwell.tenancy.models import Site

pytestmark = pytest.mark.django_db


class SiteFilter(filters.FilterSet):
    strict = BooleanFilter(field_name="is_active")
    lenient = NullableBooleanFilter(field_name="is_active", error_messages={"invalid": "Invalid lenient value: use true or false"})

    class Meta:
        model = Site
        fields = ["strict", "lenient"]


def cleaned(query: str):
    filterset = SiteFilter(QueryDict(query), queryset=Site.objects.none())
    return filterset.form.cleaned_data if filterset.is_valid() else dict(filterset.errors)


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("1", True), ("false", False), ("0", False)])
def test_a_boolean_filter_reads_true_and_false(value, expected):
    assert cleaned(f"strict={value}")["strict"] is expected


@pytest.mark.parametrize("value", ["", "null", "yes", "maybe"])
def test_a_boolean_filter_refuses_anything_else_even_an_empty_value(value):
    assert cleaned(f"strict={value}") == {"strict": ["Must be true or false"]}


@pytest.mark.parametrize(("value", "expected"), [("", None), ("null", None), ("yes", True), ("on", True), ("no", False), ("off", False)])
def test_a_nullable_boolean_filter_reads_drf_spellings_and_leaves_blank_or_null_off(value, expected):
    assert cleaned(f"lenient={value}")["lenient"] is expected


def test_a_nullable_boolean_filter_answers_with_its_own_message():
    assert cleaned("lenient=maybe") == {"lenient": ["Invalid lenient value: use true or false"]}


class QueryFilter(FilterSet):
    site_id = IdFilter()
    paid = AnyCaseNullableBooleanFilter(error_messages={"invalid": "Must be a valid boolean."})


@pytest.mark.parametrize(("value", "expected"), [("TRUE", True), ("Yes", True), ("t", True), ("OFF", False), ("No", False), ("NULL", None), ("", None)])
def test_an_any_case_nullable_boolean_filter_reads_drf_spellings_in_any_case(value, expected):
    assert validated_filter_query(QueryFilter, {"paid": value})["paid"] is expected


def test_a_filter_query_is_cleaned_by_the_filtersets_fields():
    assert validated_filter_query(QueryFilter, {"site_id": "7"}) == {"site_id": 7, "paid": None}


def test_an_invalid_filter_query_raises_the_field_errors_drf_answers_with_a_400():
    with pytest.raises(ValidationError) as refused:
        validated_filter_query(QueryFilter, {"site_id": "0", "paid": "maybe"})
    assert {name: [str(message) for message in messages] for name, messages in refused.value.detail.items()} == {
        "site_id": ["Ensure this value is greater than or equal to 1."],
        "paid": ["Must be a valid boolean."],
    }


def test_a_filter_query_cleans_with_the_same_fields_every_time_and_leaves_them_unchanged():
    """Cleaning never changes a field, so each query's form shares them instead of deep-copying them."""
    validated_filter_query(QueryFilter, {"site_id": "1"})
    field = QueryFilter.base_filters["site_id"].field
    with pytest.raises(ValidationError):
        validated_filter_query(QueryFilter, {"site_id": "x"})
    assert validated_filter_query(QueryFilter, {"site_id": "2"}) == {"site_id": 2, "paid": None}
    assert QueryFilter.base_filters["site_id"].field is field and field.min_value == 1
