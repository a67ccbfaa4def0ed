"""Serializer helpers every app's input serializers share: unknown fields refused, every field optional."""

from collections.abc import Mapping

from rest_framework import serializers

REQUIRED = "This field is required"
UNKNOWN_FIELD = "Unknown field"


class RejectUnknownFieldsMixin:
    """Refuses fields the serializer does not have (400 ``Unknown field`` on each), except the
    read-only fields of ``echoes``, the serializer of the matching GET: what a GET answers can
    be sent back unchanged, and its read-only fields are ignored."""

    unknown_field_message = UNKNOWN_FIELD
    echoes: type[serializers.Serializer] | None = None

    def to_internal_value(self, data):
        if isinstance(data, Mapping) and self.echoes is not None:
            echoed = {name for name, field in self.echoes().fields.items() if field.read_only and name not in self.fields}
            data = {name: value for name, value in data.items() if name not in echoed}
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, Mapping) else []
        unknown_errors = {name: [self.unknown_field_message] for name in unknown}
        try:
            values = super().to_internal_value(data)
        except serializers.ValidationError as error:
            if isinstance(error.detail, dict):
                error.detail.update(unknown_errors)
            raise
        if unknown_errors:
            raise serializers.ValidationError(unknown_errors)
        return values


class OptionalFieldsMixin:
    """Every field optional: a save changes only the fields it names."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False
