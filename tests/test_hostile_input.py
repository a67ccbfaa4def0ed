"""No input answers 5xx: bodies nested too deeply, bodies over the size limit, and dates at the
edges of the calendar are 4xx answers in the error envelope, on every route that takes them.

Write routes are discovered from the URL conf (as the cross-account matrix does), so a route
added later is covered without editing this file. The fuzzing of every operation
(``tests/test_schemathesis.py``) sends the same kinds of input to a running server.
"""

import json
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from inkwell.sitesettings.tests import publish_any_time
from inkwell.api.fields import DATE_OUT_OF_RANGE
from inkwell.api.parsers import MAX_JSON_DEPTH, TOO_DEEP
from inkwell.api.tests import assert_error
from inkwell.integration.models import SiteIntegration
from inkwell.integration.services import signature_of
from inkwell.integration.tests.factories import make_integration
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content
from tests.routes import discover_api_routes
from tests.test_cross_account_matrix import _factories, _path_values

pytestmark = pytest.mark.django_db

WRITE_METHODS = ("post", "put", "patch")
WRITE_ROUTES = [(route, method) for route in discover_api_routes() for method in route.methods if method in WRITE_METHODS]
DEPTHS = [1_000, 100_000]
# Public routes that name an object without serving a queryset of it (the CMS proves itself by its signature).
PUBLIC_ROUTE_OBJECTS = {"integration-webhook-ghost": SiteIntegration}


def nested_array(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_object(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def _url(route, tenant) -> str:
    obj = None
    if "pk" in route.kwargs:
        model = route.view_class.queryset.model if hasattr(route.view_class, "queryset") else PUBLIC_ROUTE_OBJECTS[route.name]
        obj = _factories()[model](tenant, "hostile")
    # The object's id, and any other row of the tenant the path names (a webhook's delivery_id, a comment's content).
    values = {**_path_values(tenant, obj, route), "rest": "1/"}
    return reverse(route.name, kwargs={name: values[name] for name in route.kwargs})


@pytest.mark.parametrize(("route", "method"), WRITE_ROUTES, ids=[f"{method.upper()} {route.pattern}" for route, method in WRITE_ROUTES])
def test_a_body_nested_a_thousand_levels_deep_is_never_a_server_error(route, method, tenant, as_user):
    url = _url(route, tenant)
    response = as_user(tenant.owner).generic(method.upper(), url, nested_object(1_000), content_type="application/json")

    # Routes that take no body answer as they would without one.
    assert response.status_code < 500, response.content


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("body", [nested_array, nested_object])
@pytest.mark.parametrize(
    "url", ["/api/v1/auth/register/", "/api/v1/auth/login/", "/api/v1/auth/sites/", "/api/v1/writer/tasks/", "/api/v1/planner/keywords/add_to_workflow/"]
)
def test_a_deeply_nested_body_is_a_parse_error(api_client, tenant, as_user, url, body, depth):
    client = api_client if "/auth/register/" in url or "/auth/login/" in url else as_user(tenant.owner)
    response = client.generic("POST", url, body(depth), content_type="application/json")

    assert_error(response, 400, "parse_error", errors={"body": [TOO_DEEP]})


def test_a_body_nested_up_to_the_limit_is_read_and_validated(tenant, as_user):
    title = json.loads(nested_array(MAX_JSON_DEPTH - 1))
    response = as_user(tenant.owner).post("/api/v1/writer/tasks/", {"title": title, "site_id": tenant.site.pk}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
    assert "title" in response.json()["errors"]


def test_a_body_over_the_size_limit_is_a_413_in_the_envelope(tenant, as_user, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    sites_before = Site.objects.for_account(tenant.account).count()
    body = json.dumps({"name": "Blog", "domain": "big.example.com", "description": "x" * 20_000})

    response = as_user(tenant.owner).generic("POST", "/api/v1/auth/sites/", body, content_type="application/json")

    assert_error(response, 413, "payload_too_large", error="Payload too large", errors={"body": ["The body is larger than 10000 bytes"]})
    assert Site.objects.for_account(tenant.account).count() == sites_before


def test_a_webhook_body_over_the_size_limit_is_a_413(api_client, tenant, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    integration = make_integration(tenant)
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="WordPress", site=tenant.site)[1]
    raw = json.dumps({"event": "post.updated", "post": {"id": 1, "status": "publish", "link": "https://b.example.com/" + "x" * 20_000}}).encode()
    timestamp = str(int(time.time()))
    headers = {
        "Authorization": f"ApiKey {key}",
        "X-Inkwell-Timestamp": timestamp,
        "X-Inkwell-Signature": f"sha256={signature_of(secret=integration.webhook_secret, timestamp=timestamp, raw_body=raw)}",
    }

    response = api_client.post("/api/v1/integration/webhook/cms/", data=raw, content_type="application/json", headers=headers)

    assert_error(response, 413, "payload_too_large", error="Payload too large", errors={"body": ["The body is larger than 10000 bytes"]})


EDGE_DATES = ["9999-12-31", "0001-01-01", "1899-12-31", "3000-01-01"]


@pytest.mark.parametrize("day", EDGE_DATES)
@pytest.mark.parametrize("parameter", ["start_date", "end_date"])
@pytest.mark.parametrize("path", ["/api/v1/billing/usage/", "/api/v1/billing/usage/summary/", "/api/v1/billing/transactions/"])
def test_a_date_at_the_edge_of_the_calendar_is_a_field_error(tenant, as_user, path, parameter, day):
    response = as_user(tenant.owner).get(path, {parameter: day})

    assert_error(response, 400, "validation_error", errors={parameter: [DATE_OUT_OF_RANGE]})


@pytest.mark.parametrize("path", ["/api/v1/billing/usage/", "/api/v1/billing/usage/summary/", "/api/v1/billing/transactions/"])
def test_dates_inside_the_range_are_accepted(tenant, as_user, path):
    response = as_user(tenant.owner).get(path, {"start_date": "1900-01-01", "end_date": "2999-12-31"})

    assert response.status_code == 200


@pytest.mark.parametrize(
    "moment",
    ["9999-12-31T23:59:59Z", "9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+01:00", "3000-01-01T00:00:00Z"],
)
def test_a_timestamp_at_the_edge_of_the_calendar_cannot_be_scheduled(tenant, as_user, moment):
    content = make_content(tenant, status=ContentStatus.APPROVED)
    make_integration(tenant)

    response = as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/schedule/", {"scheduled_publish_at": moment}, format="json")

    assert_error(response, 400, "validation_error", errors={"scheduled_publish_at": [DATE_OUT_OF_RANGE]})
    content.refresh_from_db()
    assert (content.site_status, content.scheduled_publish_at) == (SiteStatus.NOT_PUBLISHED, None)


@pytest.mark.parametrize("moment", [10**20, 1e308, "1" * 5000, "275760-09-13T00:00:00Z"])
def test_a_huge_timestamp_is_a_field_error(tenant, as_user, moment):
    content = make_content(tenant, status=ContentStatus.APPROVED)

    response = as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/schedule/", {"scheduled_publish_at": moment}, format="json")

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"scheduled_publish_at"}
    assert Content.objects.for_account(tenant.account).get(pk=content.pk).scheduled_publish_at is None


def test_a_near_future_timestamp_is_still_scheduled(tenant, as_user):
    content = make_content(tenant, status=ContentStatus.APPROVED)
    make_integration(tenant)
    publish_any_time(tenant.site)  # a day from now, whatever the day: the rules are not this test's subject
    when = timezone.now() + timedelta(days=1)

    response = as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/schedule/", {"scheduled_publish_at": when.isoformat()}, format="json")

    assert response.status_code == 200, response.content


def _deliver(api_client, key, secret, data: dict, timestamp: str):
    raw = json.dumps(data).encode()
    headers = {"Authorization": f"ApiKey {key}", "X-Inkwell-Timestamp": timestamp, "X-Inkwell-Signature": f"sha256={signature_of(secret=secret, timestamp=timestamp, raw_body=raw)}"}
    return api_client.post("/api/v1/integration/webhook/cms/", data=raw, content_type="application/json", headers=headers)


@pytest.mark.parametrize("modified", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+01:00", "9999-12-31 23:59:59"])
def test_a_webhook_modified_time_at_the_edge_of_the_calendar_is_a_field_error(api_client, tenant, modified):
    integration = make_integration(tenant)
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="WordPress", site=tenant.site)[1]
    data = {"event": "post.updated", "post": {"id": 42, "status": "publish", "modified_gmt": modified}}

    response = _deliver(api_client, key, integration.webhook_secret, data, str(int(time.time())))

    assert_error(response, 400, "validation_error", errors={"post.modified_gmt": [DATE_OUT_OF_RANGE]})


@pytest.mark.parametrize("timestamp", ["9" * 5000, "9" * 13, "99999999999"])
def test_a_huge_webhook_timestamp_is_refused_for_its_timestamp(api_client, tenant, timestamp):
    integration = make_integration(tenant)
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="WordPress", site=tenant.site)[1]

    response = _deliver(api_client, key, integration.webhook_secret, {"event": "post.deleted", "post": {"id": 1}}, timestamp)

    assert_error(response, 401, "authentication_required", errors={"X-Inkwell-Timestamp": ["The timestamp is missing or outside the allowed window"]})


@pytest.mark.parametrize("query", ["is_active=null", "is_active=", "is_active=yes", "is_active=null&is_active=null"])
def test_a_boolean_filter_takes_true_or_false_only(tenant, as_user, query):
    response = as_user(tenant.owner).get(f"/api/v1/auth/sites/?{query}")

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"is_active"}


def test_a_boolean_filter_filters(tenant, as_user):
    client = as_user(tenant.owner)
    assert client.get("/api/v1/auth/sites/?is_active=true").json()["count"] == 1
    assert client.get("/api/v1/auth/sites/?is_active=false").json()["count"] == 0


@pytest.mark.parametrize("path", ["/api/v1/billing/transactions/?page=1&page=2", "/api/v1/auth/sites/?site_id=1&site_id=2", "/api/v1/keywords-library/?search=a&search=b"])
def test_a_query_parameter_given_twice_is_a_field_error(tenant, as_user, path):
    name = path.split("?")[1].split("=")[0]
    assert_error(as_user(tenant.owner).get(path), 400, "validation_error", errors={name: ["Give this parameter once"]})


def test_an_empty_date_filter_is_a_field_error(tenant, as_user):
    response = as_user(tenant.owner).get("/api/v1/billing/transactions/?start_date=")

    assert_error(response, 400, "validation_error", errors={"start_date": ["Enter a valid date."]})
