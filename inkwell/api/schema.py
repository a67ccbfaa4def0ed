"""OpenAPI documentation of the envelopes: every 2xx body is shown inside ``{success, data, message}``
(lists inside the paginated envelope), and every operation documents the error envelope.

Every operation has a summary and a description (its own docstring, else one made from what it
does), and one tag; the tags follow the content flow (``TAGS``) before the account administration.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import get_doc
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


# The tags in the order of the content flow, then the account administration; each path prefix
# (after /api/v1/) names its tag, the longest prefix winning.
TAGS = [
    ("library", "The shared keywords library: seed keywords by industry sector."),
    ("planner", "A site's workflow keywords, clusters and content ideas."),
    ("writer", "Writer tasks, content, revisions, images and taxonomies."),
    ("linker", "Internal links between a site's articles."),
    ("optimizer", "Content analysis and AI optimization."),
    ("publishing", "Publishing to the CMS, the site's publishing settings and its definition."),
    ("integration", "CMS integrations (WordPress, Ghost): connection, sync, structure and the webhooks."),
    ("automation", "The seven-stage automation pipeline: configuration, runs and logs."),
    ("jobs", "Background jobs: progress, results and cancellation."),
    ("notifications", "The account's notifications."),
    ("billing", "Credits: balance, usage, transactions and limits."),
    ("system", "AI and image providers, prompts, modules, content settings and health."),
    ("auth", "Registration, login, tokens and passwords."),
    ("account", "Account administration: the account, users, roles, sites, sectors, access and API keys."),
]
TAG_BY_PATH_PREFIX = {
    "keywords-library": "library",
    "auth/keywords-library": "library",
    "planner": "planner",
    "writer": "writer",
    "linker": "linker",
    "optimizer": "optimizer",
    "publisher": "publishing",
    "integration/sites": "publishing",
    "integration/settings": "publishing",
    "integration": "integration",
    "automation": "automation",
    "jobs": "jobs",
    "notifications": "notifications",
    "billing": "billing",
    "system": "system",
    "auth": "account",
    **{f"auth/{name}": "auth" for name in ("register", "login", "logout", "token", "refresh", "password", "change-password", "me")},
}
ACTION_VERBS = {"list": "List", "retrieve": "Get", "create": "Create", "update": "Replace", "partial_update": "Update", "destroy": "Delete"}
METHOD_VERBS = {"GET": "Get", "POST": "", "PUT": "Replace", "PATCH": "Update", "DELETE": "Delete"}


def tag_of(path: str) -> str:
    """The tag of an operation at ``path`` (``/api/v1/...``)."""
    relative = path.removeprefix("/api/v1/").strip("/")
    matches = [prefix for prefix in TAG_BY_PATH_PREFIX if relative == prefix or relative.startswith(f"{prefix}/")]
    return TAG_BY_PATH_PREFIX[max(matches, key=len)] if matches else "system"


def _words(name: str) -> str:
    return name.replace("_", " ").replace("-", " ").strip()


def tag_operations_by_content_flow(result, generator, request, public):
    """Postprocessing hook: one tag per operation from its path, and the tags in flow order.

    Operations open to anonymous callers say so with ``security: []`` rather than drf-spectacular's
    ``[{}]``: both mean "no credential needed" (there is no document-wide ``security``), but
    openapi-python-client reads ``[{}]`` as "authenticated" and generates functions that demand an
    ``AuthenticatedClient`` (openapi-generators/openapi-python-client#1372)."""
    used = set()
    for path, operations in result.get("paths", {}).items():
        for operation in operations.values():
            if isinstance(operation, dict) and "operationId" in operation:
                operation["tags"] = [tag_of(path)]
                used.add(operation["tags"][0])
                if operation.get("security") == [{}]:
                    operation["security"] = []
    result["tags"] = [{"name": name, "description": description} for name, description in TAGS if name in used]
    return result


# Request bodies whose shape the path chooses (``/system/settings/content/{key}/save/``): every field of
# every shape is optional, so one body can fit several shapes, which ``oneOf`` forbids and ``anyOf`` says.
SHAPES_CHOSEN_BY_PATH = ("ContentSettingsInputRequest",)


def shapes_chosen_by_path_are_any_of(result, generator, request, public):
    """Postprocessing hook: the components of SHAPES_CHOSEN_BY_PATH are ``anyOf`` their shapes."""
    schemas = result.get("components", {}).get("schemas", {})
    for name in SHAPES_CHOSEN_BY_PATH:
        if "oneOf" in schemas.get(name, {}):
            schemas[name]["anyOf"] = schemas[name].pop("oneOf")
    return result


class EnvelopeAutoSchema(AutoSchema):
    def get_summary(self):
        return super().get_summary() or self._made_summary()

    def get_description(self):
        # The action's or the view's own docstring, never one inherited from a base class (which
        # describes the base: "Counts refused requests...").
        handler = getattr(self.view, getattr(self.view, "action", None) or self.method.lower(), None)
        own = get_doc(handler) if handler is not None and handler.__doc__ else ""
        own = own or (get_doc(type(self.view)) if type(self.view).__dict__.get("__doc__") else "")
        if own:
            return own
        scope = "public" if getattr(self.view, "tenant_scope", None) == "public" else "the caller's account"
        return f"{self._made_summary()} ({self.method} {self.path}). Acts on {scope}; errors answer the error envelope."

    def _resource(self, *, plural: bool) -> str:
        queryset = getattr(self.view, "queryset", None)
        if queryset is not None:
            meta = queryset.model._meta
            name = str(meta.verbose_name)
            if not plural:
                return name
            # Django's default plural only adds an "s": "taxonomys".
            if str(meta.verbose_name_plural) == f"{name}s" and name.endswith("y") and name[-2:-1] not in "aeiou":
                return f"{name[:-1]}ies"
            return str(meta.verbose_name_plural)
        segments = [part for part in self.path.strip("/").split("/") if not part.startswith("{")]
        return _words(segments[-1]) if segments else "resource"

    def _made_summary(self) -> str:
        action = getattr(self.view, "action", None)
        if action in ACTION_VERBS:
            return f"{ACTION_VERBS[action]} {self._resource(plural=action == 'list')}"
        if action:
            return _words(action).capitalize()
        verb = METHOD_VERBS.get(self.method, "")
        noun = self._resource(plural=False)
        return f"{verb} {noun}".strip().capitalize() if verb else noun.capitalize()

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
