"""The response envelopes (docs/api.md).

Views return plain data and the renderer wraps it as ``{"success": true, "data": ...}``. Bodies
that are already envelopes (lists, errors, results with a message) are built as ``Enveloped``
so the renderer sends them untouched.
"""

from typing import Any

from rest_framework import status as http_status
from rest_framework.response import Response


class Enveloped(dict):
    """A response body that is already a complete envelope."""


def success_body(data: Any, message: str | None = None) -> Enveloped:
    body = Enveloped(success=True, data=data)
    if message:
        body["message"] = message
    return body


# An answer that carries a secret or a token (a token pair, an API key, a webhook secret) must
# stay in no cache: not the browser's, not a proxy's.
NO_STORE = {"Cache-Control": "no-store"}


def ok(data: Any = None, *, message: str | None = None, status: int = http_status.HTTP_200_OK, headers=None, secret: bool = False) -> Response:
    """``secret``: the answer carries a secret or a token, so it says ``Cache-Control: no-store``."""
    return Response(success_body(data, message), status=status, headers={**(headers or {}), **NO_STORE} if secret else headers)


def created(data: Any, *, message: str | None = None, secret: bool = False) -> Response:
    return ok(data, message=message, status=http_status.HTTP_201_CREATED, secret=secret)
