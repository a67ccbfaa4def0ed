"""Query-string filters shared by every domain."""

import copy

from django import forms
from django.core.exceptions import ValidationError
from django_filters import rest_framework as filters
from django_filters.fields import ChoiceField as ChoiceFormField
from django_filters.utils import translate_validation
from drf_spectacular.plumbing import build_choice_description_list
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inkwell.api.serializers import REQUIRED

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


# The lists that moved from query serializers to FilterSets (planner, automation) answer a bad
# value in DRF's words, as they did: the same messages whichever of the two checks a parameter.
INVALID_INTEGER = str(serializers.IntegerField.default_error_messages["invalid"])
INTEGER_TOO_LONG = str(serializers.IntegerField.default_error_messages["max_string_length"])
TEXT_TOO_LONG = str(serializers.CharField.default_error_messages["max_length"])


def _integer_schema(min_value: int, max_value: int, help_text: str) -> dict:
    schema = {"type": "integer", "minimum": min_value, "maximum": max_value}
    if max_value > 2**31 - 1:
        schema["format"] = "int64"
    return {**schema, **({"description": help_text} if help_text else {})}


class IntegerFormField(forms.IntegerField):
    """A whole number as ``serializers.IntegerField`` reads one: given but empty is invalid (left
    out is no filter), and a string longer than DRF's limit is refused before it is parsed."""

    default_error_messages = {"invalid": INVALID_INTEGER, "max_string_length": INTEGER_TOO_LONG, "required": REQUIRED}

    def to_python(self, value):
        if value == "":
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        if isinstance(value, str) and len(value) > serializers.IntegerField.MAX_STRING_LENGTH:
            raise ValidationError(self.error_messages["max_string_length"], code="max_string_length")
        return super().to_python(value)


class IntegerFilter(filters.NumberFilter):
    """A whole number from ``min_value`` to ``max_value`` (``?difficulty_min=30``), documented as
    an integer with its bounds and its ``help_text``."""

    field_class = IntegerFormField

    def __init__(self, *args, min_value: int, max_value: int, help_text: str = "", **kwargs):
        super().__init__(*args, min_value=min_value, max_value=max_value, **kwargs)
        extend_schema_field(_integer_schema(min_value, max_value, help_text))(self)


def row_id_filter(help_text: str, **kwargs) -> IntegerFilter:
    """A row id such as ``?site_id=3`` (1 to ``MAX_ID``) in DRF's words, for the lists that answer in them."""
    return IntegerFilter(min_value=1, max_value=MAX_ID, help_text=help_text, **kwargs)


class _ChoiceFormField(ChoiceFormField):
    """One of the choices; given but empty is not one of them (left out is no filter)."""

    def clean(self, value):
        # The raw value: to_python turns a parameter left out (None) into "" as well.
        if value == "":
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value})
        return super().clean(value)


class ChoiceFilter(filters.ChoiceFilter):
    """One of ``choices``, refused with ``error_messages["invalid_choice"]`` when given empty too;
    documented as a serializer's choice field is: their enum, never empty, its ``help_text`` and
    the list of choices."""

    field_class = _ChoiceFormField

    def __init__(self, *args, choices, help_text: str = "", default: str | None = None, **kwargs):
        super().__init__(*args, choices=choices, **kwargs)
        described = "\n\n".join(text for text in (help_text, build_choice_description_list(choices)) if text)
        schema = {"type": "string", "enum": [value for value, _ in choices], "minLength": 1, "description": described}
        extend_schema_field({**schema, **({"default": default} if default is not None else {})})(self)


class TextFilter(filters.CharFilter):
    """Text of at most ``max_length`` characters (surrounding spaces dropped; empty is no filter),
    documented as a string with its ``maxLength`` and its ``help_text``."""

    def __init__(self, *args, max_length: int, help_text: str = "", **kwargs):
        kwargs.setdefault("error_messages", {"max_length": TEXT_TOO_LONG.format(max_length=max_length)})
        super().__init__(*args, max_length=max_length, **kwargs)
        extend_schema_field({"type": "string", "maxLength": max_length, **({"description": help_text} if help_text else {})})(self)


class RangeCheckedForm(forms.Form):
    """A query form whose ``RANGES`` (pairs of lower and upper bound) may not be crossed: checked
    once every value is valid, as a serializer's ``validate`` runs, and the first range broken is
    the one reported, on its upper bound."""

    RANGES: tuple[tuple[str, str], ...] = ()

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        for low, high in self.RANGES:
            if cleaned.get(low) is not None and cleaned.get(high) is not None and cleaned[low] > cleaned[high]:
                self.add_error(high, f"{high} must be greater than or equal to {low}")
                break
        return cleaned


class _SharedFields(dict):
    """A form class's fields, which its forms share: Django deep-copies them for every form, for
    forms that change their fields, and these never do."""

    def __deepcopy__(self, memo):
        return dict(self)


class _ShallowCopiedFilters(dict):
    """A FilterSet class's filters, which each FilterSet copies shallowly rather than deeply (its
    own ``parent`` and ``model``; a filter keeps nothing else of a request)."""

    def __deepcopy__(self, memo):
        copies = {}
        for name, filter_ in self.items():
            copies[name] = copy.copy(filter_)
            if filter_.method is not None:
                copies[name].method = filter_.method  # binds the method to the copy, whose parent it reads
        return copies


class FilterSet(filters.FilterSet):
    """django-filter's FilterSet with its set-up done once per class rather than once per request:
    the form class and its fields are built once and shared, and the filters copied shallowly.
    Deep copies of both cost more than the query of the planner's keyword list did. A field
    therefore holds nothing of a request; a check that needs the request reads ``form.request``."""

    @classmethod
    def get_filters(cls):
        return _ShallowCopiedFilters(super().get_filters())

    @classmethod
    def shared_form_class(cls) -> type[forms.Form]:
        form_class = cls.__dict__.get("_shared_form_class")
        if form_class is None:
            fields = {name: filter_.field for name, filter_ in cls.base_filters.items()}
            form_class = type(f"{cls.__name__}Form", (cls._meta.form,), fields)
            form_class.base_fields = _SharedFields(form_class.base_fields)
            cls._shared_form_class = form_class
        return form_class

    def get_form_class(self):
        return self.shared_form_class()

    @property
    def form(self):
        form = super().form
        form.request = self.request
        return form


def validated_filter_query(filterset_class: type[FilterSet], data: dict) -> dict:
    """``data`` (a query, one value per name) cleaned by the FilterSet's fields, for a list that is
    filtered without a queryset (plain SQL); invalid input raises the 400, as DjangoFilterBackend
    does."""
    form = filterset_class.shared_form_class()(data)
    if not form.is_valid():
        raise translate_validation(form.errors)
    return form.cleaned_data
