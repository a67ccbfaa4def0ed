"""Query-string filters shared by every domain."""

from django import forms
from django.core.exceptions import ValidationError
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field

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

    def to_python(self, value):
        if value is None:
            return None
        if value in (True, "true", "True", "1"):
            return True
        if value in (False, "false", "False", "0"):
            return False
        raise ValidationError("Must be true or false", code="invalid")

    def validate(self, value):
        pass


class BooleanFilter(filters.BooleanFilter):
    field_class = _BooleanFormField

    def __init__(self, *args, **kwargs):
        # The raw value reaches the field: DRF's boolean widget would read "null" as no filter.
        kwargs.setdefault("widget", forms.TextInput)
        super().__init__(*args, **kwargs)
