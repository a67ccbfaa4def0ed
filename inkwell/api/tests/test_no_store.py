"""Every answer that carries a secret or a token says ``Cache-Control: no-store``: no browser,
proxy or shared cache may keep a token pair, an API key or a webhook secret."""

import pytest

from conftest import client_for
from inkwell.integration.tests.factories import make_integration, make_site

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-1"


def assert_no_store(response, status=200):
    assert response.status_code == status, response.content
    assert response["Cache-Control"] == "no-store"


def test_a_token_pair_is_not_stored_after_login_refresh_or_password_change(tenant, api_client):
    login = api_client.post("/api/v1/auth/login/", {"email": tenant.owner.email, "password": PASSWORD}, format="json")
    assert_no_store(login)

    refresh = api_client.post("/api/v1/auth/token/refresh/", {"refresh": login.json()["data"]["refresh"]}, format="json")
    assert_no_store(refresh)

    changed = client_for(tenant.owner).post("/api/v1/auth/password/change/", {"old_password": PASSWORD, "new_password": "another-long-one"}, format="json")
    assert_no_store(changed)


def test_a_new_api_key_is_not_stored(tenant):
    assert_no_store(client_for(tenant.owner).post("/api/v1/auth/api-keys/", {"name": "CI"}, format="json"), 201)


def test_a_new_integration_and_a_rotated_webhook_secret_are_not_stored(tenant, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}
    owner = client_for(tenant.owner)
    body = {"site_id": tenant.site.pk, "platform": "wordpress", "base_url": "https://blog.example.com", "username": "editor", "app_password": "abcd efgh ijkl mnop qrst uvwx"}
    assert_no_store(owner.post("/api/v1/integration/", body, format="json"), 201)

    other = make_integration(tenant, site=make_site(tenant))
    assert_no_store(owner.post(f"/api/v1/integration/{other.pk}/rotate_webhook_secret/", format="json"))


def test_an_answer_without_a_secret_keeps_its_caching(tenant):
    response = client_for(tenant.owner).get("/api/v1/auth/me/")

    assert "no-store" not in response.get("Cache-Control", "")

