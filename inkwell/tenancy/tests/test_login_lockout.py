"""Repeated failed logins for one e-mail address slow down, from any address, and the answers
never tell whether an account has that address (``inkwell.tenancy.logins``)."""

import pytest

from inkwell.api.tests import assert_error, freeze_throttle_clock
from inkwell.tenancy import logins
from inkwell.tenancy.logins import LOCKED
from inkwell.tenancy.models import RefreshToken

LOGIN = "/api/v1/auth/login/"
PASSWORD = "correct-horse-1"
INVALID_CREDENTIALS = {"password": ["Invalid credentials"]}

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def lock_policy(settings):
    settings.INKWELL_LOGIN = {"LOCK_THRESHOLD": 3, "LOCK_SECONDS": 30, "LOCK_MAX_SECONDS": 900, "FAILURE_WINDOW_SECONDS": 3600}
    # The per-address limit is not what is tested here.
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "auth": 1000}


@pytest.fixture
def clock(monkeypatch):
    """The lock's clock, moved by hand."""

    class Clock:
        now = 1_900_000_000.0

        def time(self):
            return self.now

    clock = Clock()
    monkeypatch.setattr(logins, "now", clock.time)
    return clock


def login(client, email, password, address="203.0.113.1"):
    return client.post(LOGIN, {"email": email, "password": password}, format="json", REMOTE_ADDR=address)


def test_failures_from_many_addresses_lock_the_account_even_for_the_right_password(tenant, api_client, clock):
    email = tenant.owner.email
    for attempt in range(3):
        assert_error(login(api_client, email, "wrong-guess", address=f"198.51.100.{attempt}"), 401, "authentication_required", errors=INVALID_CREDENTIALS)

    locked = login(api_client, email, PASSWORD, address="192.0.2.77")

    assert_error(locked, 429, "rate_limited", errors={"email": [LOCKED]})
    assert locked["Retry-After"] == "30"
    assert not RefreshToken.objects.filter(user=tenant.owner).exists()


def test_the_lock_grows_with_each_failure_and_ends(tenant, api_client, clock):
    email = tenant.owner.email
    for _ in range(3):
        login(api_client, email, "wrong-guess")
    clock.now += 31
    assert_error(login(api_client, email, "wrong-guess"), 401, "authentication_required", errors=INVALID_CREDENTIALS)
    assert login(api_client, email, PASSWORD)["Retry-After"] == "60"  # the fourth failure doubled it

    clock.now += 61
    response = login(api_client, email, PASSWORD)

    assert response.status_code == 200
    assert RefreshToken.objects.filter(user=tenant.owner).count() == 1


def test_the_lock_is_capped(tenant, api_client, clock, settings):
    settings.INKWELL_LOGIN = {**settings.INKWELL_LOGIN, "LOCK_MAX_SECONDS": 100}
    for _ in range(10):
        login(api_client, tenant.owner.email, "wrong-guess")
        clock.now += 1000
    login(api_client, tenant.owner.email, "wrong-guess")

    assert login(api_client, tenant.owner.email, PASSWORD)["Retry-After"] == "100"


def test_a_success_clears_the_count(tenant, api_client, clock):
    email = tenant.owner.email
    for _ in range(2):
        login(api_client, email, "wrong-guess")
    assert login(api_client, email, PASSWORD).status_code == 200
    for _ in range(2):
        login(api_client, email, "wrong-guess")

    assert login(api_client, email, PASSWORD).status_code == 200


def test_the_lock_counts_the_address_however_it_is_written(tenant, api_client, clock):
    for variant in (tenant.owner.email.upper(), tenant.owner.email, f" {tenant.owner.email.title()}"):
        login(api_client, variant.strip(), "wrong-guess")

    assert login(api_client, tenant.owner.email, PASSWORD).status_code == 429


def test_other_accounts_are_not_locked(tenant, api_client, clock):
    for _ in range(5):
        login(api_client, tenant.owner.email, "wrong-guess")

    assert login(api_client, tenant.admin.email, PASSWORD).status_code == 200


def test_an_unknown_address_answers_exactly_like_a_known_one(tenant, api_client, clock):
    def answers(email):
        responses = [login(api_client, email, "wrong-guess") for _ in range(4)]
        return [(r.status_code, r.json()["code"], r.json()["errors"], r.get("Retry-After")) for r in responses]

    assert answers(tenant.owner.email) == answers("nobody-here@example.com")


LOOKALIKES = [
    pytest.param("v\u0131ctim@example.com", id="dotless-i"),
    pytest.param("VICTIM@EXAMPLE.COM", id="upper-case"),
    pytest.param("\uff56\uff49\uff43\uff54\uff49\uff4d@example.com", id="fullwidth"),
    pytest.param("vi\u0301ctim@example.com", id="combining-acute"),
]


@pytest.fixture
def victim(tenant):
    tenant.owner.email = "victim@example.com"
    tenant.owner.save(update_fields=["email"])
    return tenant.owner


@pytest.mark.parametrize("lookalike", LOOKALIKES)
def test_a_lookalike_address_never_logs_in_as_a_locked_account(victim, api_client, clock, lookalike):
    for _ in range(3):
        login(api_client, "victim@example.com", "wrong-guess")

    answer = login(api_client, lookalike, PASSWORD)

    assert answer.status_code in (400, 401, 429), answer.content
    assert not RefreshToken.objects.filter(user=victim).exists()


def test_the_kelvin_sign_is_the_same_address_as_its_letter_and_shares_the_lock(tenant, api_client, clock):
    tenant.owner.email = "kate@example.com"
    tenant.owner.save(update_fields=["email"])
    for _ in range(3):
        login(api_client, "\u212aate@example.com", "wrong-guess")

    assert_error(login(api_client, "kate@example.com", PASSWORD), 429, "rate_limited", errors={"email": [LOCKED]})


def test_a_locked_login_is_a_429_of_the_auth_scope_with_the_throttle_headers(tenant, api_client, clock, monkeypatch):
    """Contract section 6: every 429 carries X-Throttle-Limit, X-Throttle-Remaining: 0 and
    X-Throttle-Reset, the lock's as much as the scope's counter's (issue 30, case 13)."""
    throttle_clock = freeze_throttle_clock(monkeypatch)
    email = tenant.owner.email
    for attempt in range(3):
        login(api_client, email, "wrong-guess", address=f"198.51.100.{attempt}")

    locked = login(api_client, email, PASSWORD, address="192.0.2.77")

    assert_error(locked, 429, "rate_limited", errors={"email": [LOCKED]})
    assert locked["X-Throttle-Limit"] == "1000"
    assert locked["X-Throttle-Remaining"] == "0"
    assert int(locked["X-Throttle-Reset"]) >= throttle_clock.now + int(locked["Retry-After"])
