"""Query-string filters shared by every domain."""

from django import forms
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
