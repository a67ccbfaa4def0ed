"""POST /auth/login/ and the tokens it issues."""

from datetime import datetime

import jwt
import pytest
from django.conf import settings

from inkwell.api.tests import assert_error
from inkwell.tenancy.models import RefreshToken, User

LOGIN = "/api/v1/auth/login/"
PASSWORD = "correct-horse-1"  # every conftest user's password
INVALID_CREDENTIALS = {"password": ["Invalid credentials"]}


def login(client, email: str, password: str = PASSWORD):
    return client.post(LOGIN, {"email": email, "password": password}, format="json")


def claims(token: str) -> dict:
    return jwt.decode(token, settings.INKWELL_JWT["SIGNING_KEY"], algorithms=["HS256"])


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_login_returns_user_and_both_tokens_with_expiries(tenant, api_client):
    response = login(api_client, tenant.owner.email)

    assert response.status_code == 200
    data = response.json()["data"]
    assert set(data) == {"user", "access", "refresh", "access_expires_at", "refresh_expires_at"}
    assert data["user"]["id"] == tenant.owner.pk
    assert data["user"]["role"] == "owner"
    assert data["user"]["account"]["id"] == tenant.account.pk
    assert "password" not in data["user"]
    assert parse_time(data["access_expires_at"]) < parse_time(data["refresh_expires_at"])


def test_access_token_payload_has_the_contract_claims(tenant, api_client):
    access = login(api_client, tenant.editor.email).json()["data"]["access"]

    payload = claims(access)

    assert {"user_id", "account_id", "type", "exp", "iat", "jti"} <= set(payload)
    assert payload["user_id"] == tenant.editor.pk
    assert payload["account_id"] == tenant.account.pk
    assert payload["type"] == "access"
    assert payload["exp"] - payload["iat"] == settings.INKWELL_JWT["ACCESS_TTL_SECONDS"]


def test_refresh_token_payload_has_type_refresh_and_is_recorded(tenant, api_client):
    data = login(api_client, tenant.owner.email).json()["data"]

    payload = claims(data["refresh"])

    assert payload["type"] == "refresh"
    assert payload["user_id"] == tenant.owner.pk
    assert payload["account_id"] == tenant.account.pk
    assert payload["exp"] - payload["iat"] == settings.INKWELL_JWT["REFRESH_TTL_SECONDS"]
    record = RefreshToken.objects.get(jti=payload["jti"])
    assert record.user_id == tenant.owner.pk
    assert record.revoked_at is None
    assert int(record.expires_at.timestamp()) == payload["exp"]


def test_each_login_issues_tokens_with_distinct_ids(tenant, api_client):
    first = claims(login(api_client, tenant.owner.email).json()["data"]["access"])
    second = claims(login(api_client, tenant.owner.email).json()["data"]["access"])

    assert first["jti"] != second["jti"]


def test_issued_access_token_authenticates(tenant, api_client):
    access = login(api_client, tenant.owner.email).json()["data"]["access"]
    api_client.cookies.clear()  # the session cookie must not be what authenticates
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {access}")

    response = api_client.get("/api/v1/auth/me/")

    assert response.status_code == 200
    assert response.json()["data"]["email"] == tenant.owner.email


def test_login_email_is_case_insensitive(tenant, api_client):
    assert login(api_client, tenant.owner.email.upper()).status_code == 200


def test_login_records_last_login(tenant, api_client):
    login(api_client, tenant.owner.email)

    assert User.dangerously_unscoped.get(pk=tenant.owner.pk).last_login is not None


def test_wrong_password_answers_401_invalid_credentials(tenant, api_client):
    response = login(api_client, tenant.owner.email, "wrong-password")

    assert_error(response, 401, "authentication_required", errors=INVALID_CREDENTIALS)
    assert not RefreshToken.objects.filter(user=tenant.owner).exists()


@pytest.mark.django_db
def test_unknown_email_answers_exactly_like_a_wrong_password(api_client):
    response = login(api_client, "nobody@example.com")

    assert_error(response, 401, "authentication_required", errors=INVALID_CREDENTIALS)


def test_inactive_user_cannot_log_in(tenant, api_client):
    User.dangerously_unscoped.filter(pk=tenant.editor.pk).update(is_active=False)

    assert_error(login(api_client, tenant.editor.email), 401, "authentication_required", errors=INVALID_CREDENTIALS)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"password": PASSWORD}, {"email": ["This field is required"]}),
        ({"email": "", "password": PASSWORD}, {"email": ["This field is required"]}),
        ({"email": "owner@example.com"}, {"password": ["This field is required"]}),
        ({"email": "owner@example.com", "password": ""}, {"password": ["This field is required"]}),
        ({"email": "not-an-email", "password": PASSWORD}, {"email": ["Invalid email format"]}),
        ({}, {"email": ["This field is required"], "password": ["This field is required"]}),
    ],
    ids=["email-missing", "email-blank", "password-missing", "password-blank", "email-format", "empty"],
)
def test_login_field_messages(api_client, body, errors):
    assert_error(api_client.post(LOGIN, body, format="json"), 400, "validation_error", errors=errors)
