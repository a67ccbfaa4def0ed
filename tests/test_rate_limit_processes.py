"""Rate limits hold across server processes: the counter lives in Redis, not in a worker."""

import os
import time

import pytest
import requests

from inkwell.api.throttling import WINDOW_SECONDS
from tests.live_server import gunicorn_server, register_and_login, server_environment

LIMIT = 10
# Margin before the end of the fixed window: the burst below takes well under a second.
WINDOW_END_MARGIN_SECONDS = 3

pytestmark = [
    pytest.mark.live_server_process,
    pytest.mark.postgres_only,
    pytest.mark.skipif(
        not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")),
        reason="needs DATABASE_URL on PostgreSQL and REDIS_URL: runs in the production-profile pass of `make test`",
    ),
]


@pytest.fixture(scope="module")
def two_server_groups():
    """Two gunicorns (two workers each) on two ports, sharing one database, Redis and key prefix."""
    with server_environment(RATE_LIMIT_GENERAL=str(LIMIT)) as env, gunicorn_server(env) as first, gunicorn_server(env) as second:
        yield first, second


def _start_in_a_window_that_is_not_ending() -> None:
    """The window is a fixed calendar minute: a burst straddling its end would be counted twice."""
    left = WINDOW_SECONDS - time.time() % WINDOW_SECONDS
    if left < WINDOW_END_MARGIN_SECONDS:
        time.sleep(left + 0.1)


def _list_sites_alternating(servers, token: str, count: int) -> list[requests.Response]:
    headers = {"Authorization": f"Bearer {token}"}
    return [requests.get(servers[sent % 2].url("/api/v1/auth/sites/"), headers=headers, timeout=10) for sent in range(count)]


def test_the_general_limit_is_counted_across_server_processes(two_server_groups):
    token = register_and_login(two_server_groups[0])

    _start_in_a_window_that_is_not_ending()
    responses = _list_sites_alternating(two_server_groups, token, LIMIT + 1)

    assert [response.status_code for response in responses] == [200] * LIMIT + [429]
    for sent, response in enumerate(responses, start=1):
        assert response.headers["X-RateLimit-Limit"] == str(LIMIT)
        assert response.headers["X-RateLimit-Remaining"] == str(max(0, LIMIT - sent))
    assert len({response.headers["X-RateLimit-Reset"] for response in responses}) == 1, "all in one window"


def test_the_request_over_the_limit_gets_the_error_envelope_and_throttle_headers(two_server_groups):
    token = register_and_login(two_server_groups[1])

    _start_in_a_window_that_is_not_ending()
    *allowed, throttled = _list_sites_alternating(two_server_groups, token, LIMIT + 1)

    assert [response.status_code for response in allowed] == [200] * LIMIT
    assert throttled.status_code == 429
    body = throttled.json()
    assert body == {
        "success": False,
        "error": "Rate limit exceeded",
        "code": "rate_limited",
        "request_id": throttled.headers["X-Request-ID"],
    }
    assert throttled.headers["X-RateLimit-Limit"] == str(LIMIT)
    assert throttled.headers["X-RateLimit-Remaining"] == "0"
    assert throttled.headers["X-Throttle-Limit"] == str(LIMIT)
    assert throttled.headers["X-Throttle-Remaining"] == "0"
    assert throttled.headers["X-Throttle-Reset"] == throttled.headers["X-RateLimit-Reset"]
    seconds_to_reset = int(throttled.headers["X-Throttle-Reset"]) - time.time()
    assert 1 <= int(throttled.headers["Retry-After"]) <= WINDOW_SECONDS
    assert abs(int(throttled.headers["Retry-After"]) - seconds_to_reset) <= 2
