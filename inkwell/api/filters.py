"""Query-string filters shared by every domain."""

import functools

from django import forms
from django.core.exceptions import ValidationError
from django_filters import rest_framework as filters
from django_filters.utils import translate_validation
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

# Row ids are 64-bit (BigAutoField). A larger number cannot name a row, and SQLite raises
# OverflowError on it instead of matching nothing.
MAX_ID = 2**63 - 1


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class IdFilter(filters.NumberFilter):
    """A row id such as ``?site_id=3``: a whole number from 1 to ``MAX_ID``, anything else is a 400."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class _BooleanFormField(forms.NullBooleanField):
    """``true`` or ``false`` (``1``/``0`` too); anything else, ``null`` and an empty value
    included, is an error rather than no filter."""

    default_error_messages = {"invalid": "Must be true or false"}
    true_values = frozenset({"true", "True", "1"})
    false_values = frozenset({"false", "False", "0"})
    no_filter_values: frozenset = frozenset()

    def to_python(self, value):
        if value is None or value in self.no_filter_values:
            return None
        if value is True or value in self.true_values:
            return True
        if value is False or value in self.false_values:
            return False
        raise ValidationError(self.error_messages["invalid"], code="invalid")

    def validate(self, value):
        pass


class _NullableBooleanFormField(_BooleanFormField):
    """The spellings of DRF's ``BooleanField(allow_null=True)``: an empty value or ``null`` is no
    filter."""

    true_values = frozenset(serializers.BooleanField.TRUE_VALUES)
    false_values = frozenset(serializers.BooleanField.FALSE_VALUES)
    no_filter_values = frozenset(serializers.BooleanField.NULL_VALUES)


class BooleanFilter(filters.BooleanFilter):
    field_class = _BooleanFormField

    def __init__(self, *args, **kwargs):
        # The raw value reaches the field: DRF's boolean widget would read "null" as no filter.
        kwargs.setdefault("widget", forms.TextInput)
        super().__init__(*args, **kwargs)


class NullableBooleanFilter(BooleanFilter):
    """A boolean filter that an empty value or ``null`` leaves off; documented as a nullable
    boolean with its ``help_text``."""

    field_class = _NullableBooleanFormField

    def __init__(self, *args, help_text: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        extend_schema_field({"type": "boolean", "nullable": True, **({"description": help_text} if help_text else {})})(self)


class _AnyCaseNullableBooleanFormField(_NullableBooleanFormField):
    def to_python(self, value):
        return super().to_python(value.lower() if isinstance(value, str) else value)


class AnyCaseNullableBooleanFilter(NullableBooleanFilter):
    """A nullable boolean read in any case (``TRUE``, ``Yes``), exactly as DRF's
    ``BooleanField(allow_null=True)`` reads a query value."""

    field_class = _AnyCaseNullableBooleanFormField


class _SharedFields(dict):
    """A query form's fields, which cleaning never changes: each form of the class takes them as
    they are instead of deep copies (Django's copy of ten fields cost more than the cleaning)."""

    def __deepcopy__(self, memo) -> dict:
        return dict(self)


@functools.cache
def _query_form_class(filterset_class: type[filters.FilterSet]) -> type[forms.Form]:
    """The form of a FilterSet's filters (what ``FilterSet.form`` builds on every instance), built once."""
    fields = {name: query_filter.field for name, query_filter in filterset_class.base_filters.items()}
    form_class = type(f"{filterset_class.__name__}Form", (filterset_class._meta.form,), fields)
    form_class.base_fields = _SharedFields(form_class.base_fields)
    return form_class


def validated_filter_query(filterset_class: type[filters.FilterSet], data: dict) -> dict:
    """``data`` (a query, one value per name) cleaned by the FilterSet's fields, for a list that is
    filtered without a queryset (plain SQL); invalid input raises the 400, as DjangoFilterBackend
    does."""
    form = _query_form_class(filterset_class)(data)
    if not form.is_valid():
        raise translate_validation(form.errors)
    return form.cleaned_data
