"""Access and refresh tokens: refresh at both paths, rotation, reuse
detection, type confusion, tampering, ``alg: none``, expiry and revocation."""

import base64
import json
import time
import uuid

import jwt
import pytest
from django.conf import settings

from inkwell.api.tests import assert_error
from inkwell.tenancy import tokens
from inkwell.tenancy.models import RefreshToken, User

ME = "/api/v1/auth/me/"
REFRESH_PATHS = ["/api/v1/auth/token/refresh/", "/api/v1/auth/refresh/"]
REFRESH = REFRESH_PATHS[0]


def claims_for(user: User, *, drop: tuple[str, ...] = (), **overrides) -> dict:
    """The claims the service puts in an access token, with any overridden or dropped."""
    now = int(time.time())
    payload = {
        "user_id": user.pk,
        "account_id": user.account_id,
        "type": "access",
        "iat": now,
        "exp": now + 300,
        "jti": uuid.uuid4().hex,
        "ver": user.token_version,
        **overrides,
    }
    for name in drop:
        del payload[name]
    return payload


def craft(user: User, *, key: str | None = None, algorithm: str = "HS256", drop: tuple[str, ...] = (), **overrides) -> str:
    """A token signed like the service's own (by default with its key and algorithm)."""
    return jwt.encode(claims_for(user, drop=drop, **overrides), key or settings.INKWELL_JWT["SIGNING_KEY"], algorithm=algorithm)


def b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def unsigned(user: User) -> str:
    """A token with header ``alg: none`` and an empty signature."""
    return f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(claims_for(user))}."


def get_me(api_client, token: str):
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return api_client.get(ME)


def refresh(api_client, token: str, path: str = REFRESH):
    return api_client.post(path, {"refresh": token}, format="json")


def record_of(token: str) -> RefreshToken:
    return RefreshToken.objects.get(jti=jwt.decode(token, options={"verify_signature": False})["jti"])


# Bearer access tokens


def test_crafted_token_with_valid_claims_is_accepted(tenant, api_client):
    # The control for the refusals below: the crafting itself yields a working token.
    response = get_me(api_client, craft(tenant.owner))

    assert response.status_code == 200
    assert response.json()["data"]["id"] == tenant.owner.pk


def test_expired_access_token_answers_token_expired(tenant, api_client):
    expired = craft(tenant.owner, iat=int(time.time()) - 600, exp=int(time.time()) - 1)

    assert_error(get_me(api_client, expired), 401, "token_expired")


def test_refresh_token_is_refused_as_access_token(tenant, api_client):
    refresh_token = tokens.issue_refresh_token(tenant.owner).token

    assert_error(get_me(api_client, refresh_token), 401, "invalid_token")


def test_tampered_signature_is_refused(tenant, api_client):
    header, payload, signature = craft(tenant.owner).split(".")
    tampered_signature = ("A" if signature[0] != "A" else "B") + signature[1:]

    assert_error(get_me(api_client, f"{header}.{payload}.{tampered_signature}"), 401, "invalid_token")


def test_payload_changed_to_another_user_is_refused(tenant, api_client):
    header, _, signature = craft(tenant.viewer).split(".")
    forged_payload = craft(tenant.owner).split(".")[1]

    assert_error(get_me(api_client, f"{header}.{forged_payload}.{signature}"), 401, "invalid_token")


def test_token_signed_with_another_key_is_refused(tenant, api_client):
    assert_error(get_me(api_client, craft(tenant.owner, key="not-the-signing-key-but-long-enough-32b")), 401, "invalid_token")


def test_alg_none_token_is_refused(tenant, api_client):
    assert_error(get_me(api_client, unsigned(tenant.owner)), 401, "invalid_token")


def test_token_with_another_hmac_algorithm_is_refused(tenant, api_client):
    assert_error(get_me(api_client, craft(tenant.owner, algorithm="HS512")), 401, "invalid_token")


@pytest.mark.parametrize("claim", ["user_id", "type", "exp", "iat", "jti", "ver"])
def test_token_missing_a_required_claim_is_refused(tenant, api_client, claim):
    assert_error(get_me(api_client, craft(tenant.owner, drop=(claim,))), 401, "invalid_token")


def test_token_naming_another_account_is_refused(tenant, other_tenant, api_client):
    assert_error(get_me(api_client, craft(tenant.owner, account_id=other_tenant.account.pk)), 401, "invalid_token")


def test_token_of_an_older_token_version_is_refused(tenant, api_client):
    stale = craft(tenant.owner, ver=tenant.owner.token_version)
    User.dangerously_unscoped.filter(pk=tenant.owner.pk).update(token_version=tenant.owner.token_version + 1)

    assert_error(get_me(api_client, stale), 401, "invalid_token")


def test_token_of_a_deactivated_user_is_refused(tenant, api_client):
    token = craft(tenant.editor)
    User.dangerously_unscoped.filter(pk=tenant.editor.pk).update(is_active=False)

    assert_error(get_me(api_client, token), 401, "invalid_token")


@pytest.mark.parametrize("header", ["Bearer", "Bearer ", "Bearer a b", "Bearer not-a-jwt"])
def test_malformed_bearer_header_answers_invalid_token(tenant, api_client, header):
    api_client.credentials(HTTP_AUTHORIZATION=header)

    assert_error(api_client.get(ME), 401, "invalid_token")


# Refresh


@pytest.mark.parametrize("path", REFRESH_PATHS)
def test_refresh_returns_a_new_access_token_and_a_rotated_refresh_token(tenant, api_client, path):
    old_refresh = tokens.issue_refresh_token(tenant.owner).token

    response = refresh(api_client, old_refresh, path)

    assert response.status_code == 200
    data = response.json()["data"]
    assert set(data) == {"access", "access_expires_at", "refresh", "refresh_expires_at"}
    assert data["refresh"] != old_refresh
    assert get_me(api_client, data["access"]).json()["data"]["id"] == tenant.owner.pk
    assert record_of(old_refresh).revoked_at is not None
    new_record = record_of(data["refresh"])
    assert new_record.revoked_at is None
    assert new_record.family == record_of(old_refresh).family


def test_refresh_needs_no_access_token(tenant, api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Bearer garbage")

    assert refresh(api_client, tokens.issue_refresh_token(tenant.owner).token).status_code == 200


def test_rotated_refresh_token_works_once_more(tenant, api_client):
    rotated = refresh(api_client, tokens.issue_refresh_token(tenant.owner).token).json()["data"]["refresh"]

    assert refresh(api_client, rotated).status_code == 200


def test_reusing_a_rotated_refresh_token_revokes_its_whole_family(tenant, api_client):
    original = tokens.issue_refresh_token(tenant.owner).token
    rotated = refresh(api_client, original).json()["data"]["refresh"]
    unrelated = tokens.issue_refresh_token(tenant.owner).token  # another login: another family

    assert_error(refresh(api_client, original), 401, "invalid_token")

    assert record_of(rotated).revoked_at is not None
    assert_error(refresh(api_client, rotated), 401, "invalid_token")
    assert record_of(unrelated).revoked_at is None
    assert refresh(api_client, unrelated).status_code == 200


def test_access_token_is_refused_as_refresh_token(tenant, api_client):
    access = tokens.issue_access_token(tenant.owner).token

    assert_error(refresh(api_client, access), 401, "invalid_token")


def test_expired_refresh_token_answers_token_expired(tenant, api_client, settings):
    settings.INKWELL_JWT = {**settings.INKWELL_JWT, "REFRESH_TTL_SECONDS": -10}
    expired = tokens.issue_refresh_token(tenant.owner).token

    assert_error(refresh(api_client, expired), 401, "token_expired")


def test_revoked_refresh_token_is_refused(tenant, api_client):
    token = tokens.issue_refresh_token(tenant.owner).token
    RefreshToken.objects.filter(user=tenant.owner).update(revoked_at="2020-01-01T00:00:00Z")

    assert_error(refresh(api_client, token), 401, "invalid_token")


def test_refresh_token_unknown_to_the_database_is_refused(tenant, api_client):
    # Correctly signed but never issued (e.g. forged with a leaked key): no record, no access.
    assert_error(refresh(api_client, craft(tenant.owner, type="refresh")), 401, "invalid_token")


def test_tampered_refresh_token_is_refused(tenant, api_client):
    header, payload, signature = tokens.issue_refresh_token(tenant.owner).token.split(".")
    tampered = f"{header}.{payload}.{signature[:-4]}AAAA"

    assert_error(refresh(api_client, tampered), 401, "invalid_token")


@pytest.mark.django_db
def test_refresh_without_a_token_answers_400_required(api_client):
    assert_error(api_client.post(REFRESH, {}, format="json"), 400, "validation_error", errors={"refresh": ["This field is required"]})


def test_a_token_that_verified_earlier_is_refused_once_it_expires(tenant, api_client, monkeypatch):
    """Verified tokens are kept per process (tokens._verified); their expiry is checked on every use."""
    token = craft(tenant.owner, iat=int(time.time()), exp=int(time.time()) + 60)
    assert get_me(api_client, token).status_code == 200

    later = time.time() + 61
    monkeypatch.setattr(tokens.time, "time", lambda: later)

    assert_error(get_me(api_client, token), 401, "token_expired")


def test_a_kept_payload_is_not_changed_by_a_caller(tenant):
    token = tokens.issue_access_token(tenant.owner).token
    tokens.decode(token, tokens.ACCESS)["user_id"] = 0

    assert tokens.decode(token, tokens.ACCESS)["user_id"] == tenant.owner.pk


def test_a_kept_token_is_still_refused_after_the_signing_key_changes(tenant, api_client, settings):
    token = tokens.issue_access_token(tenant.owner).token
    assert get_me(api_client, token).status_code == 200

    settings.INKWELL_JWT = {**settings.INKWELL_JWT, "SIGNING_KEY": "another-signing-key-of-enough-length"}

    assert_error(get_me(api_client, token), 401, "invalid_token")
