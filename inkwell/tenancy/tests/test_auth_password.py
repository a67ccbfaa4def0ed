"""Password change and reset: a change or reset revokes every token
issued before it; reset requests never reveal whether an address exists."""

import re

import pytest

from inkwell.api.tests import assert_error
from inkwell.tenancy import tokens
from inkwell.tenancy.models import RefreshToken, User

CHANGE_PATHS = ["/api/v1/auth/password/change/", "/api/v1/auth/change-password/"]
RESET = "/api/v1/auth/password/reset/"
RESET_CONFIRM = "/api/v1/auth/password/reset/confirm/"
LOGIN = "/api/v1/auth/login/"
ME = "/api/v1/auth/me/"
OLD_PASSWORD = "correct-horse-1"
NEW_PASSWORD = "battery-staple-2"


def bearer(client, access: str):
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {access}")
    return client


def change(client, path: str = CHANGE_PATHS[0], old: str = OLD_PASSWORD, new: str = NEW_PASSWORD):
    return client.post(path, {"old_password": old, "new_password": new}, format="json")


def can_log_in(client, user, password: str) -> bool:
    return client.post(LOGIN, {"email": user.email, "password": password}, format="json").status_code == 200


def password_of(user) -> str:
    return User.dangerously_unscoped.get(pk=user.pk).password


def assert_earlier_tokens_are_refused(client, pair: dict) -> None:
    client.credentials()
    assert_error(bearer(client, pair["access"]).get(ME), 401, "invalid_token")
    client.credentials()
    assert_error(client.post("/api/v1/auth/token/refresh/", {"refresh": pair["refresh"]}, format="json"), 401, "invalid_token")


def reset_link_from(mailbox) -> dict:
    """The uid and token of the only reset mail sent."""
    assert len(mailbox) == 1
    match = re.search(r'"uid": "([^"]+)", "token": "([^"]+)"', mailbox[0].body)
    assert match, mailbox[0].body
    return {"uid": match.group(1), "token": match.group(2)}


# Change


@pytest.mark.parametrize("path", CHANGE_PATHS)
def test_password_change_sets_the_new_password_at_both_paths(tenant, api_client, as_user, path):
    response = change(as_user(tenant.owner), path)

    assert response.status_code == 200
    assert User.dangerously_unscoped.get(pk=tenant.owner.pk).check_password(NEW_PASSWORD)
    assert can_log_in(api_client, tenant.owner, NEW_PASSWORD)
    assert not can_log_in(api_client, tenant.owner, OLD_PASSWORD)


def test_password_change_revokes_every_earlier_token_and_returns_a_working_pair(tenant, api_client):
    earlier = [tokens.token_pair(tenant.owner) for _ in range(2)]

    response = change(bearer(api_client, earlier[0]["access"]))

    fresh = response.json()["data"]
    assert set(fresh) == {"access", "access_expires_at", "refresh", "refresh_expires_at"}
    for pair in earlier:
        assert_earlier_tokens_are_refused(api_client, pair)
    api_client.credentials()
    assert bearer(api_client, fresh["access"]).get(ME).status_code == 200
    assert RefreshToken.objects.filter(user=tenant.owner, revoked_at__isnull=True).count() == 1


def test_password_change_leaves_other_users_tokens_alone(tenant, api_client, as_user):
    colleague = tokens.token_pair(tenant.admin)

    change(as_user(tenant.owner))

    assert bearer(api_client, colleague["access"]).get(ME).status_code == 200


@pytest.mark.parametrize("path", CHANGE_PATHS)
def test_wrong_old_password_answers_400_on_old_password(tenant, as_user, path):
    before = password_of(tenant.owner)
    client = as_user(tenant.owner)

    response = change(client, path, old="not-my-password")

    assert_error(response, 400, "validation_error", errors={"old_password": ["Invalid credentials"]})
    assert password_of(tenant.owner) == before
    assert client.get(ME).status_code == 200  # nothing was revoked


def test_new_password_must_have_at_least_8_characters(tenant, as_user):
    response = change(as_user(tenant.owner), new="short")

    assert_error(response, 400, "validation_error", errors={"new_password": ["Password must be at least 8 characters"]})
    assert User.dangerously_unscoped.get(pk=tenant.owner.pk).check_password(OLD_PASSWORD)


def test_password_change_fields_are_required(tenant, as_user):
    response = as_user(tenant.owner).post(CHANGE_PATHS[0], {}, format="json")

    assert_error(
        response, 400, "validation_error", errors={"old_password": ["This field is required"], "new_password": ["This field is required"]}
    )


@pytest.mark.django_db
@pytest.mark.parametrize("path", CHANGE_PATHS)
def test_password_change_requires_authentication(api_client, path):
    assert_error(change(api_client, path), 401, "authentication_required")


def test_every_role_may_change_its_own_password(tenant, as_user):
    assert change(as_user(tenant.viewer)).status_code == 200


# Reset request


def test_reset_request_mails_a_uid_and_token_to_the_user(tenant, api_client, mailoutbox):
    response = api_client.post(RESET, {"email": tenant.editor.email.upper()}, format="json")

    assert response.status_code == 200
    assert mailoutbox[0].to == [tenant.editor.email]
    link = reset_link_from(mailoutbox)
    assert link["uid"] and link["token"]


def test_reset_request_for_an_unknown_address_answers_the_same_and_sends_nothing(tenant, api_client, mailoutbox):
    known = api_client.post(RESET, {"email": tenant.editor.email}, format="json")
    mailoutbox.clear()

    unknown = api_client.post(RESET, {"email": "nobody@example.com"}, format="json")

    assert unknown.status_code == known.status_code == 200
    assert unknown.json() == known.json()
    assert mailoutbox == []


def test_reset_request_for_an_inactive_user_sends_nothing(tenant, api_client, mailoutbox):
    User.dangerously_unscoped.filter(pk=tenant.editor.pk).update(is_active=False)

    assert api_client.post(RESET, {"email": tenant.editor.email}, format="json").status_code == 200
    assert mailoutbox == []


@pytest.mark.django_db
def test_reset_request_validates_the_email_field(api_client):
    assert_error(api_client.post(RESET, {"email": "nope"}, format="json"), 400, "validation_error", errors={"email": ["Invalid email format"]})


# Reset confirm


def test_reset_confirm_sets_the_new_password(tenant, api_client, mailoutbox):
    api_client.post(RESET, {"email": tenant.editor.email}, format="json")

    response = api_client.post(RESET_CONFIRM, {**reset_link_from(mailoutbox), "new_password": NEW_PASSWORD}, format="json")

    assert response.status_code == 200
    assert can_log_in(api_client, tenant.editor, NEW_PASSWORD)
    assert not can_log_in(api_client, tenant.editor, OLD_PASSWORD)


def test_reset_confirm_revokes_every_earlier_token(tenant, api_client, mailoutbox):
    earlier = tokens.token_pair(tenant.editor)
    api_client.post(RESET, {"email": tenant.editor.email}, format="json")

    api_client.post(RESET_CONFIRM, {**reset_link_from(mailoutbox), "new_password": NEW_PASSWORD}, format="json")

    assert_earlier_tokens_are_refused(api_client, earlier)
    assert not RefreshToken.objects.filter(user=tenant.editor, revoked_at__isnull=True).exists()


def test_reset_token_works_only_once(tenant, api_client, mailoutbox):
    api_client.post(RESET, {"email": tenant.editor.email}, format="json")
    link = reset_link_from(mailoutbox)
    api_client.post(RESET_CONFIRM, {**link, "new_password": NEW_PASSWORD}, format="json")

    response = api_client.post(RESET_CONFIRM, {**link, "new_password": "third-password-3"}, format="json")

    assert_error(response, 400, "validation_error", errors={"token": ["Invalid or expired token"]})
    assert User.dangerously_unscoped.get(pk=tenant.editor.pk).check_password(NEW_PASSWORD)


@pytest.mark.parametrize("tampered", ["token", "uid", "other-users-uid"])
def test_reset_confirm_with_a_bad_token_answers_400_and_changes_nothing(tenant, api_client, mailoutbox, tampered):
    api_client.post(RESET, {"email": tenant.viewer.email}, format="json")
    viewer_uid = reset_link_from(mailoutbox)["uid"]
    mailoutbox.clear()
    api_client.post(RESET, {"email": tenant.editor.email}, format="json")
    link = reset_link_from(mailoutbox)
    body = {
        "token": {**link, "token": link["token"][:-3] + "xyz"},  # the hash part is hex: never "xyz"
        "uid": {**link, "uid": "not-base64!"},
        "other-users-uid": {**link, "uid": viewer_uid},  # a token is bound to its user
    }[tampered]
    passwords_before = {user.pk: password_of(user) for user in (tenant.viewer, tenant.editor)}

    response = api_client.post(RESET_CONFIRM, {**body, "new_password": NEW_PASSWORD}, format="json")

    assert_error(response, 400, "validation_error", errors={"token": ["Invalid or expired token"]})
    assert {user.pk: password_of(user) for user in (tenant.viewer, tenant.editor)} == passwords_before


def test_reset_confirm_checks_the_new_password_length(tenant, api_client, mailoutbox):
    api_client.post(RESET, {"email": tenant.editor.email}, format="json")

    response = api_client.post(RESET_CONFIRM, {**reset_link_from(mailoutbox), "new_password": "short"}, format="json")

    assert_error(response, 400, "validation_error", errors={"new_password": ["Password must be at least 8 characters"]})
