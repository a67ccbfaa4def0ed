"""The shared boolean filters: what each reads as true, false or no filter, and the message a
FilterSet answers with for anything else."""

import pytest
from django.http import QueryDict
from django_filters import rest_framework as filters

from inkwell.api.filters import BooleanFilter, NullableBooleanFilter
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
