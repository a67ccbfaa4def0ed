"""Tests of the API platform: envelopes, request ids, pagination and rate limits.

Helpers shared by the API tests of every app:

- ``assert_error`` checks a response against the error the API's error envelope, with
  the spec's general messages written out here (not imported from the code under test) so that
  a changed message fails;
- ``freeze_throttle_clock`` stops the rate limiter's clock mid-window, so a test that counts
  requests never straddles a minute boundary.
"""

import uuid
from types import SimpleNamespace

from inkwell.api import throttling

# The spec's general messages (Errors), word for word.
GENERAL_MESSAGES = {
    400: "Validation failed",
    401: "Authentication required",
    403: "Permission denied",
    404: "Resource not found",
    409: "Conflict",
    422: "Validation failed",
    429: "Rate limit exceeded",
    500: "Internal server error",
}

ERROR_KEYS = {"success", "error", "code", "request_id"}


def assert_uuid(value: str) -> None:
    assert str(uuid.UUID(value)) == value, f"{value!r} is not a canonical UUID"


def assert_error(response, status: int, code: str, *, errors: dict | None = None, error: str | None = None) -> dict:
    """The response is exactly ``{success: false, error, code, request_id}`` plus ``errors`` when given.

    ``error`` defaults to the spec's general message for the status; ``errors`` is compared
    exactly (use ``unittest.mock.ANY`` for a message the test does not pin down).
    """
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == ERROR_KEYS | ({"errors"} if errors is not None else set()), body
    assert body["success"] is False
    assert body["error"] == (error if error is not None else GENERAL_MESSAGES[status])
    assert body["code"] == code
    assert_uuid(body["request_id"])
    assert body["request_id"] == response["X-Request-ID"]
    if errors is not None:
        assert body["errors"] == errors
    return body


class FrozenClock:
    """Stands in for the ``time`` module inside the throttle: 30 s into the current window."""

    def __init__(self, real_now: float):
        self.now = int(real_now // throttling.WINDOW_SECONDS) * throttling.WINDOW_SECONDS + 30.0

    def time(self) -> float:
        return self.now

    @property
    def reset(self) -> int:
        """When the current window ends (the ``X-RateLimit-Reset`` value)."""
        return int(self.now // throttling.WINDOW_SECONDS) * throttling.WINDOW_SECONDS + throttling.WINDOW_SECONDS

    def next_window(self) -> None:
        self.now += throttling.WINDOW_SECONDS


def freeze_throttle_clock(monkeypatch) -> FrozenClock:
    frozen = FrozenClock(throttling.time.time())
    monkeypatch.setattr(throttling, "time", SimpleNamespace(time=frozen.time))
    return frozen
