"""Fields the API's serializers share: web addresses, and dates and timestamps.

Dates and timestamps the API accepts: days from 1900-01-01 to 2999-12-31.

The calendar's own edges (0001-01-01, 9999-12-31) break arithmetic that any date takes part in
(the day after an ``end_date``, a time zone offset, a retry delay) with ``OverflowError``. No
date this API deals with lies near them, so a date outside the range is a 400 on its field,
wherever a date or a timestamp is accepted: serializer fields and query filters alike.
"""

from datetime import date, datetime

import django_filters
from django import forms
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from rest_framework import serializers

EARLIEST_DATE = date(1900, 1, 1)
LATEST_DATE = date(2999, 12, 31)
DATE_OUT_OF_RANGE = f"Enter a date between {EARLIEST_DATE.isoformat()} and {LATEST_DATE.isoformat()}"


def in_date_range(value: date | datetime) -> bool:
    day = value.date() if isinstance(value, datetime) else value
    return EARLIEST_DATE <= day <= LATEST_DATE


class DateField(serializers.DateField):
    def to_internal_value(self, value):
        day = super().to_internal_value(value)
        if not in_date_range(day):
            raise serializers.ValidationError(DATE_OUT_OF_RANGE)
        return day


class DateTimeField(serializers.DateTimeField):
    default_error_messages = {"overflow": DATE_OUT_OF_RANGE}

    def to_internal_value(self, value):
        moment = super().to_internal_value(value)
        if not in_date_range(moment):
            raise serializers.ValidationError(DATE_OUT_OF_RANGE)
        return moment


class FormDateField(forms.DateField):
    """The form field of a ``django_filters.DateFilter`` (``field_class``)."""

    def to_python(self, value):
        if value == "":  # given, but empty: not the same as left out
            raise DjangoValidationError(self.error_messages["invalid"], code="invalid")
        day = super().to_python(value)
        if day is not None and not in_date_range(day):
            raise DjangoValidationError(DATE_OUT_OF_RANGE, code="invalid")
        return day


class DateFilter(django_filters.DateFilter):
    field_class = FormDateField


class WebURLField(serializers.URLField):
    """An http or https URL: DRF's ``URLField`` also takes ``ftp``, and an address the console
    shows as a link must be one a browser opens as a page."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, URLValidator)]
        self.validators.append(URLValidator(schemes=["http", "https"], message=self.error_messages["invalid"]))
