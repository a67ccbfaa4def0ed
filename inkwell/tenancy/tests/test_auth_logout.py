"""POST /auth/logout/: revokes the given refresh token, or every token
of the user when none is given, and ends the session."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.tenancy import tokens
from inkwell.tenancy.models import RefreshToken

LOGOUT = "/api/v1/auth/logout/"
REFRESH = "/api/v1/auth/token/refresh/"
ME = "/api/v1/auth/me/"


def issue_pair(user) -> dict:
    return tokens.token_pair(user)


def bearer(client, access: str):
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {access}")
    return client


def refresh_status(client, refresh_token: str) -> int:
    return client.post(REFRESH, {"refresh": refresh_token}, format="json").status_code


def active_refresh_tokens(user) -> int:
    return RefreshToken.objects.filter(user=user, revoked_at__isnull=True).count()


def test_logout_with_a_refresh_token_revokes_only_that_token(tenant, api_client):
    first, second = issue_pair(tenant.owner), issue_pair(tenant.owner)

    response = bearer(api_client, first["access"]).post(LOGOUT, {"refresh": first["refresh"]}, format="json")

    assert response.status_code == 200
    assert response.json()["success"] is True
    assert active_refresh_tokens(tenant.owner) == 1
    api_client.credentials()
    assert_error(api_client.post(REFRESH, {"refresh": first["refresh"]}, format="json"), 401, "invalid_token")
    assert refresh_status(api_client, second["refresh"]) == 200


def test_logout_without_a_refresh_token_revokes_every_token_of_the_user(tenant, api_client):
    pairs = [issue_pair(tenant.owner) for _ in range(2)]
    colleague = issue_pair(tenant.admin)

    assert bearer(api_client, pairs[0]["access"]).post(LOGOUT, {}, format="json").status_code == 200

    assert active_refresh_tokens(tenant.owner) == 0
    for pair in pairs:
        assert_error(bearer(api_client, pair["access"]).get(ME), 401, "invalid_token")
        api_client.credentials()
        assert refresh_status(api_client, pair["refresh"]) == 401
    assert active_refresh_tokens(tenant.admin) == 1
    assert bearer(api_client, colleague["access"]).get(ME).status_code == 200


def test_logout_with_an_invalid_refresh_token_answers_400_and_revokes_nothing(tenant, api_client):
    pair = issue_pair(tenant.owner)

    response = bearer(api_client, pair["access"]).post(LOGOUT, {"refresh": "not-a-token"}, format="json")

    assert_error(response, 400, "validation_error", errors={"refresh": ["Invalid refresh token"]})
    assert active_refresh_tokens(tenant.owner) == 1


def test_logout_cannot_revoke_another_users_refresh_token(tenant, api_client):
    own, colleague = issue_pair(tenant.owner), issue_pair(tenant.admin)

    response = bearer(api_client, own["access"]).post(LOGOUT, {"refresh": colleague["refresh"]}, format="json")

    assert_error(response, 400, "validation_error", errors={"refresh": ["Invalid refresh token"]})
    assert active_refresh_tokens(tenant.admin) == 1


@pytest.mark.django_db
def test_logout_requires_authentication(api_client):
    assert_error(api_client.post(LOGOUT, {}, format="json"), 401, "authentication_required")


def test_logout_ends_the_session(tenant, api_client):
    login = api_client.post("/api/v1/auth/login/", {"email": tenant.owner.email, "password": "correct-horse-1"}, format="json")
    access = login.json()["data"]["access"]
    assert api_client.get(ME).status_code == 200  # the session cookie alone authenticates

    bearer(api_client, access).post(LOGOUT, {"refresh": login.json()["data"]["refresh"]}, format="json")
    api_client.credentials()

    assert_error(api_client.get(ME), 401, "authentication_required")


def test_logout_is_allowed_for_every_role_and_an_inactive_plan(tenant, as_user):
    tenant.account.subscription.status = "cancelled"
    tenant.account.subscription.save()

    assert as_user(tenant.viewer).post(LOGOUT, {}, format="json").status_code == 200
