"""An address no route matches: a readable page under the console, the JSON envelope elsewhere."""

import pytest

pytestmark = pytest.mark.django_db


def test_an_unknown_console_address_is_the_consoles_not_found_page(client, tenant):
    client.force_login(tenant.owner)
    response = client.get("/app/no-such-page/")
    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "<h1>Resource not found</h1>" in body and 'href="/app/"' in body


def test_an_unknown_console_address_without_a_slash_is_the_not_found_page_too(client):
    response = client.get("/app/no-such-page")
    assert response.status_code == 404 and response.headers["Content-Type"].startswith("text/html")


def test_an_unknown_api_address_keeps_the_json_envelope(client):
    response = client.get("/api/v1/no-such-endpoint/")
    assert response.status_code == 404
    body = response.json()
    assert (body["success"], body["error"], body["code"]) == (False, "Resource not found", "not_found")
