"""Session cookie authentication: login starts a session that
authenticates the API, with CSRF enforced on unsafe methods."""

from importlib import import_module

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from inkwell.api.tests import assert_error
from inkwell.tenancy.models import User

LOGIN = "/api/v1/auth/login/"
ME = "/api/v1/auth/me/"
ACCOUNT = "/api/v1/auth/account/"


@pytest.fixture
def browser():
    """A client that enforces CSRF like a browser session would."""
    return APIClient(enforce_csrf_checks=True)


def log_in(client, user):
    response = client.post(LOGIN, {"email": user.email, "password": "correct-horse-1"}, format="json")
    assert response.status_code == 200
    return response


def csrf_token(client) -> str:
    return client.cookies[settings.CSRF_COOKIE_NAME].value


def account_name(tenant) -> str:
    tenant.account.refresh_from_db()
    return tenant.account.name


def test_login_sets_an_http_only_session_cookie_for_the_user(tenant, browser):
    response = log_in(browser, tenant.owner)

    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie.value
    assert cookie["httponly"]
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=cookie.value)
    assert session.get("_auth_user_id") == str(tenant.owner.pk)


def test_login_sets_a_csrf_cookie(tenant, browser):
    log_in(browser, tenant.owner)

    assert csrf_token(browser)


def test_session_authenticates_get_requests(tenant, browser):
    log_in(browser, tenant.owner)

    response = browser.get(ME)

    assert response.status_code == 200
    assert response.json()["data"]["id"] == tenant.owner.pk


def test_session_carries_the_users_role(tenant, browser):
    log_in(browser, tenant.viewer)

    assert_error(browser.put(ACCOUNT, {"name": "Renamed"}, format="json", HTTP_X_CSRFTOKEN=csrf_token(browser)), 403, "permission_denied")


CSRF_FAILED = {"csrf": ["CSRF verification failed"]}


@pytest.mark.parametrize("method", ["put", "patch"])
def test_unsafe_method_without_csrf_token_answers_403(tenant, browser, method):
    log_in(browser, tenant.owner)
    before = account_name(tenant)

    response = getattr(browser, method)(ACCOUNT, {"name": "Renamed"}, format="json")

    assert_error(response, 403, "permission_denied", errors=CSRF_FAILED)
    assert account_name(tenant) == before


def test_unsafe_method_with_a_wrong_csrf_token_answers_403(tenant, browser):
    log_in(browser, tenant.owner)
    before = account_name(tenant)

    response = browser.put(ACCOUNT, {"name": "Renamed"}, format="json", HTTP_X_CSRFTOKEN="x" * 64)

    assert_error(response, 403, "permission_denied", errors=CSRF_FAILED)
    assert account_name(tenant) == before


def test_unsafe_method_with_csrf_token_works(tenant, browser):
    log_in(browser, tenant.owner)

    response = browser.put(ACCOUNT, {"name": "Renamed"}, format="json", HTTP_X_CSRFTOKEN=csrf_token(browser))

    assert response.status_code == 200
    assert account_name(tenant) == "Renamed"


def test_bearer_token_requests_need_no_csrf_token(tenant, browser):
    log_in(browser, tenant.owner)
    access = log_in(APIClient(), tenant.owner).json()["data"]["access"]
    browser.credentials(HTTP_AUTHORIZATION=f"Bearer {access}")

    assert browser.put(ACCOUNT, {"name": "Renamed"}, format="json").status_code == 200


@pytest.mark.django_db
def test_without_a_session_cookie_requests_answer_401(browser):
    assert_error(browser.get(ME), 401, "authentication_required")


def test_forged_session_cookie_answers_401(tenant, browser):
    browser.cookies[settings.SESSION_COOKIE_NAME] = "forged-session-key"

    assert_error(browser.get(ME), 401, "authentication_required")


def test_logout_through_the_session_ends_it(tenant, browser):
    log_in(browser, tenant.owner)

    response = browser.post("/api/v1/auth/logout/", {}, format="json", HTTP_X_CSRFTOKEN=csrf_token(browser))

    assert response.status_code == 200
    assert_error(browser.get(ME), 401, "authentication_required")


def test_session_also_opens_the_admin_for_staff(tenant, browser):
    User.dangerously_unscoped.filter(pk=tenant.owner.pk).update(is_staff=True, is_superuser=True)
    log_in(browser, tenant.owner)

    assert browser.get("/admin/").status_code == 200
