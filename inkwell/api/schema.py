"""OpenAPI documentation of the envelopes: every 2xx body is shown inside ``{success, data, message}``
(lists inside the paginated envelope), and every operation documents the error envelope."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

DOCUMENTED_ERROR_STATUSES = ("400", "401", "403", "404", "429", "500")
# Any write may conflict with the current state: a duplicate, the last owner, or a uniqueness race
# lost to a concurrent request (the exception handler answers every IntegrityError 409).
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
WRITE_ERROR_STATUSES = ("409",)


class ErrorEnvelopeSerializer(serializers.Serializer):
    success = serializers.BooleanField(help_text="Always false.")
    error = serializers.CharField(help_text="General message, e.g. 'Validation failed'.")
    code = serializers.CharField(help_text="Machine-readable error code.")
    request_id = serializers.CharField(help_text="Quote it when reporting a problem.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), required=False, help_text="Field name to messages."
    )


def _success_envelope(schema: dict) -> dict:
    return {
        "type": "object",
        "required": ["success", "data"],
        "properties": {"success": {"type": "boolean"}, "data": schema, "message": {"type": "string"}},
    }


class EnvelopeAutoSchema(AutoSchema):
    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        handler = getattr(self.view, getattr(self.view, "action", None) or self.method.lower(), None)
        if getattr(handler, "idempotent", False):
            parameters = [
                *parameters,
                OpenApiParameter(
                    "Idempotency-Key",
                    str,
                    OpenApiParameter.HEADER,
                    description="Sent again with the same key, the request answers its first successful answer and does nothing more.",
                ),
            ]
        return parameters

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        paginated = self._is_list_view() and self._get_paginator() is not None
        for status_code, response in responses.items():
            if status_code.startswith("2") and not paginated:
                for media_type in response.get("content", {}).values():
                    media_type["schema"] = _success_envelope(media_type["schema"])
        error_statuses = [*DOCUMENTED_ERROR_STATUSES, *map(str, getattr(self.view, "error_statuses", ()))]
        if self.method in WRITE_METHODS:
            error_statuses.extend(WRITE_ERROR_STATUSES)
        for status_code in error_statuses:
            responses.setdefault(status_code, self._get_response_for_code(ErrorEnvelopeSerializer, status_code))
        return responses


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "inkwell.tenancy.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "inkwell.tenancy.authentication.ApiKeyAuthentication"
    name = "apiKeyAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization", "description": "`ApiKey <key>`"}


class SessionCookieScheme(OpenApiAuthenticationExtension):
    target_class = "inkwell.tenancy.authentication.SessionAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
