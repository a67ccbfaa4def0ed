"""Every error the API answers, in the one the API's error envelope.

DRF's exceptions, Django's (404, permission, validation) and anything unexpected all pass
through ``exception_handler`` (DRF views) or the ``handler*`` views (everything else), so no
view formats an error by hand.
"""

import logging
import math
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, InterfaceError, OperationalError
from django.http import JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response

from inkwell.api.envelope import Enveloped
from inkwell.api.logging import current_request_id

logger = logging.getLogger("inkwell.api")

GENERAL_MESSAGES = {
    400: "Validation failed",
    401: "Authentication required",
    402: "Insufficient credits",
    403: "Permission denied",
    404: "Resource not found",
    405: "Method not allowed",
    409: "Conflict",
    410: "Resource not found",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Validation failed",
    429: "Rate limit exceeded",
    500: "Internal server error",
    502: "The CMS did not publish the content",
    503: "Service temporarily unavailable",
}

DEFAULT_CODES = {
    400: "validation_error",
    401: "authentication_required",
    402: "insufficient_credits",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    500: "server_error",
    502: "cms_error",
    503: "service_unavailable",
}

# The database cannot be reached (down, restarting, connection lost): the request may be retried.
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = "5"


class ApiError(exceptions.APIException):
    """An error with an envelope ``code`` and optional field errors.

    ``error`` overrides the general message for the status where the spec has none fitting
    (for example 410 naming the new path).
    """

    code = "server_error"

    def __init__(self, errors: dict[str, list[str]] | None = None, *, error: str | None = None, code: str | None = None):
        self.errors = errors
        self.error = error
        if code:
            self.code = code
        super().__init__(detail=error or GENERAL_MESSAGES.get(self.status_code, ""), code=self.code)


class Conflict(ApiError):
    status_code = status.HTTP_409_CONFLICT
    code = "conflict"


class StateConflict(ApiError):
    status_code = status.HTTP_409_CONFLICT
    code = "state_conflict"


class OutsidePublishingRules(ApiError):
    """A schedule outside the site's publishing days, time slots or limits (contract section 12):
    ``error`` names the rule; ``"override_rules": true`` schedules it anyway."""

    status_code = status.HTTP_409_CONFLICT
    code = "outside_publishing_rules"


class BusinessRuleViolation(ApiError):
    """Well-formed input that breaks a rule on existing data (422, contract section 1)."""

    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    code = "validation_error"


class PlanInactive(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "plan_inactive"


class PlanLimitReached(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "plan_limit_reached"


class ModuleDisabled(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "module_disabled"


class InsufficientCredits(ApiError):
    status_code = status.HTTP_402_PAYMENT_REQUIRED
    code = "insufficient_credits"

    def __init__(self, errors: dict[str, list[str]] | None = None):
        super().__init__(errors or {"credits": ["Insufficient credits"]})


class CMSPublishFailed(ApiError):
    """A publish the CMS refused or could not be reached for (contract section 11): 502, ``code``
    naming the cause, the CMS's reason as ``error``, the retry plan in ``errors``."""

    status_code = status.HTTP_502_BAD_GATEWAY
    code = "cms_error"


class Gone(ApiError):
    status_code = status.HTTP_410_GONE
    code = "gone"


class PayloadTooLarge(ApiError):
    """A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes: refused before it is read."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    code = "payload_too_large"

    def __init__(self):
        super().__init__({"body": [f"The body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes"]})


class CsrfFailed(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "permission_denied"

    def __init__(self):
        super().__init__({"csrf": ["CSRF verification failed"]})


class InvalidCredentials(ApiError):
    status_code = status.HTTP_401_UNAUTHORIZED
    code = "authentication_required"

    def __init__(self):
        super().__init__({"password": ["Invalid credentials"]})


def error_body(status_code: int, *, code: str | None = None, error: str | None = None, errors: dict | None = None) -> Enveloped:
    body = Enveloped(
        success=False,
        error=error or GENERAL_MESSAGES.get(status_code, "Error"),
        code=code or DEFAULT_CODES.get(status_code, "server_error"),
        request_id=current_request_id.get(),
    )
    if errors:
        body["errors"] = errors
    return body


def flatten_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as ``{"field": [...], "nested.field": [...], "items.0.field": [...]}``."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            flat.update(flatten_errors(value, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(detail, list) and any(isinstance(item, (dict, list)) for item in detail):
        flat = {}
        for index, item in enumerate(detail):
            flat.update(flatten_errors(item, f"{prefix}.{index}" if prefix else str(index)))
        return flat
    messages = [str(item) for item in detail] if isinstance(detail, list) else [str(detail)]
    return {prefix or "non_field_errors": messages} if messages else {}


def _code_of(exc: exceptions.APIException, status_code: int) -> str:
    if isinstance(exc, ApiError):
        return exc.code
    if isinstance(exc, exceptions.ParseError):
        return "parse_error"
    if isinstance(exc, exceptions.AuthenticationFailed):
        codes = exc.get_codes()
        if codes in ("invalid_token", "token_expired"):
            return codes
    return DEFAULT_CODES.get(status_code, "server_error")


def exception_handler(exc: Exception, context: dict) -> Response:
    # Imported here: rest_framework.views imports the permission classes, which import this module.
    from rest_framework.views import exception_handler as drf_exception_handler

    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages})
    elif isinstance(exc, IntegrityError):
        # A concurrent request won a uniqueness race that the service checked for: a conflict, not a crash.
        logger.warning("integrity error answered as 409: %s", type(exc).__name__)
        exc = Conflict()
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, (TooManyFieldsSent, TooManyFilesSent)):
        # Django's limits on form fields, hit while a body is parsed: outside DRF Django answers them 400 too.
        exc = exceptions.ParseError(str(exc))
    response = drf_exception_handler(exc, context)
    if response is None and isinstance(exc, DATABASE_UNAVAILABLE):
        return _database_unavailable(Response, exc)
    if response is None:
        logger.exception("Unhandled error in %s", context["request"].path if context.get("request") else "?")
        return Response(error_body(500), status=500)

    status_code = response.status_code
    errors = None
    error = None
    if isinstance(exc, ApiError):
        errors, error = exc.errors, exc.error
    elif isinstance(exc, exceptions.ValidationError):
        errors = flatten_errors(exc.detail)
    elif isinstance(exc, exceptions.ParseError):
        errors = {"body": [str(exc.detail)]}
    if status_code == status.HTTP_429_TOO_MANY_REQUESTS:
        _throttle_headers(response, exc, getattr(context["request"]._request, "rate_limit", None))
    response.data = error_body(status_code, code=_code_of(exc, status_code), error=error, errors=errors)
    return response


def _throttle_headers(response: Response, exc: Exception, state) -> None:
    """Every 429 carries the X-Throttle-* family (contract section 6), the scope's throttle and a
    refusal of its own alike (a login locked for its e-mail address answers 429 under the auth
    scope): the scope's limit, nothing remaining, and the moment a retry may succeed, which for a
    refusal of its own is when its Retry-After ends, if that is later than the window's end."""
    from inkwell.api import throttling  # the throttle's clock, which the tests freeze

    if state is None:
        return
    reset = state.reset
    wait = getattr(exc, "wait", None)
    if not isinstance(exc, exceptions.Throttled) and isinstance(wait, (int, float)):
        reset = max(reset, math.ceil(throttling.time.time() + wait))
    response["X-Throttle-Limit"] = str(state.limit)
    response["X-Throttle-Remaining"] = "0"
    response["X-Throttle-Reset"] = str(reset)


def _json_error(status_code: int, **kwargs) -> JsonResponse:
    return JsonResponse(error_body(status_code, **kwargs), status=status_code)


def _database_unavailable(response_class, exc: Exception):
    """503 with Retry-After: the database is down for a moment, which is no bug to trace."""
    logger.warning("database unavailable, answered 503: %s", type(exc).__name__)
    response = response_class(error_body(503), status=503)
    response["Retry-After"] = RETRY_AFTER_SECONDS
    return response


def handler400(request, exception=None):
    return _json_error(400)


def handler403(request, exception=None):
    return _json_error(403)


def handler404(request, exception=None):
    return _json_error(404)


def handler500(request):
    # Django calls this while it handles the exception, so the exception is still at hand.
    exc = sys.exc_info()[1]
    if isinstance(exc, DATABASE_UNAVAILABLE):
        return _database_unavailable(JsonResponse, exc)
    return _json_error(500)


def csrf_failure(request, reason=""):
    return _json_error(403, errors={"csrf": ["CSRF verification failed"]})

