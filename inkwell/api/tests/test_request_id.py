"""Request ids: every response has ``X-Request-ID``; a valid incoming
UUID is echoed, anything else is replaced by a generated one; error bodies carry the same id."""

import uuid

import pytest

from inkwell.api.tests import assert_error, assert_uuid

ME = "/api/v1/auth/me/"


def test_success_response_has_a_generated_request_id(tenant, as_user):
    response = as_user(tenant.owner).get(ME)

    assert response.status_code == 200
    assert_uuid(response["X-Request-ID"])


def test_each_request_gets_its_own_generated_id(tenant, as_user):
    client = as_user(tenant.owner)

    first, second = client.get(ME)["X-Request-ID"], client.get(ME)["X-Request-ID"]

    assert first != second


def test_valid_incoming_request_id_is_echoed_on_success(tenant, as_user):
    incoming = str(uuid.uuid4())

    response = as_user(tenant.owner).get(ME, HTTP_X_REQUEST_ID=incoming)

    assert response.status_code == 200
    assert response["X-Request-ID"] == incoming


@pytest.mark.django_db
def test_valid_incoming_request_id_is_echoed_in_error_body_and_header(api_client):
    incoming = str(uuid.uuid4())

    response = api_client.get(ME, HTTP_X_REQUEST_ID=incoming)

    body = assert_error(response, 401, "authentication_required")
    assert body["request_id"] == incoming


@pytest.mark.django_db
@pytest.mark.parametrize("incoming", ["not-a-uuid", "12345", "'; DROP TABLE users; --", "0" * 40, "x" * 300])
def test_invalid_incoming_request_id_is_replaced_by_a_generated_uuid(api_client, incoming):
    response = api_client.get(ME, HTTP_X_REQUEST_ID=incoming)

    body = assert_error(response, 401, "authentication_required")
    assert response["X-Request-ID"] != incoming
    assert_uuid(response["X-Request-ID"])
    assert body["request_id"] == response["X-Request-ID"]


@pytest.mark.django_db
def test_request_id_is_on_responses_outside_drf(api_client):
    incoming = str(uuid.uuid4())

    liveness = api_client.get("/healthz", HTTP_X_REQUEST_ID=incoming)
    unknown_route = api_client.get("/api/v1/no-such-route/", HTTP_X_REQUEST_ID=incoming)

    assert liveness.status_code == 200
    assert liveness["X-Request-ID"] == incoming
    assert assert_error(unknown_route, 404, "not_found")["request_id"] == incoming


@pytest.mark.django_db
def test_request_id_is_on_public_endpoint_responses(api_client):
    response = api_client.post("/api/v1/auth/register/", {"email": "rid@example.com", "password": "long-enough"}, format="json")

    assert response.status_code == 201
    assert_uuid(response["X-Request-ID"])


def test_request_id_is_on_empty_204_responses(tenant, as_user):
    client = as_user(tenant.owner)
    key_id = client.post("/api/v1/auth/api-keys/", {"name": "CMS"}, format="json").json()["data"]["id"]

    response = client.delete(f"/api/v1/auth/api-keys/{key_id}/")

    assert response.status_code == 204
    assert_uuid(response["X-Request-ID"])
