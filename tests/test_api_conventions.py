"""Rules every API view follows, checked over all routes so a new endpoint cannot skip them."""

import pytest

from inkwell.api.views import CountRefusedRequestsMixin
from tests.routes import discover_api_routes

ROUTES = discover_api_routes()


@pytest.mark.parametrize("route", ROUTES, ids=str)
def test_every_api_view_counts_refused_requests_against_the_rate_limit(route):
    assert issubclass(route.view_class, CountRefusedRequestsMixin), f"{route} must build on inkwell.api.views"


@pytest.mark.django_db
def test_a_request_without_credentials_carries_rate_limit_headers(api_client):
    response = api_client.get("/api/v1/auth/sites/")
    assert response.status_code == 401
    assert response["X-RateLimit-Limit"] == "300"
    assert response["X-RateLimit-Remaining"] == "299"


@pytest.mark.django_db
def test_guessing_credentials_is_rate_limited(api_client, settings):
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "general": 3}
    api_client.credentials(HTTP_AUTHORIZATION="ApiKey iwk_guessing.not-a-real-key")
    statuses = [api_client.get("/api/v1/auth/sites/").status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]



def _ai_post_handlers() -> list:
    """Every POST in the ``ai`` rate-limit scope: the endpoints that spend credits or call a provider."""
    handlers = []
    for route in ROUTES:
        if "post" not in route.methods:
            continue
        handler = getattr(route.view_class, route.actions["post"] if route.actions else "post")
        scope = getattr(handler, "kwargs", {}).get("throttle_scope", getattr(route.view_class, "throttle_scope", None))
        if scope == "ai":
            handlers.append(pytest.param(handler, id=str(route)))
    return handlers


AI_POST_HANDLERS = _ai_post_handlers()


def test_the_ai_endpoints_are_found():
    assert AI_POST_HANDLERS


@pytest.mark.parametrize("handler", AI_POST_HANDLERS)
def test_every_post_that_starts_ai_work_honours_idempotency_keys(handler):
    """AI work costs credits: a client retrying after a timeout must not pay twice."""
    assert getattr(handler, "idempotent", False), "decorate it with inkwell.api.idempotency.idempotent"
