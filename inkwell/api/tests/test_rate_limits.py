"""Rate limits in one process.

Scopes count per user, or per client IP when anonymous, in a fixed one-minute window. The
throttle's clock is frozen in the middle of a window (``clock``), so no test straddles a minute
boundary, and moved on explicitly where a test needs the next window.
"""

import uuid

import pytest
from django.core.cache import caches
from django.test import Client

from inkwell.api.cache import RedisCache
from inkwell.api.tests import FrozenClock, assert_error, freeze_throttle_clock
from inkwell.api.tests.urls_for_tests import PREFIX

LOGIN = "/api/v1/auth/login/"
REGISTER = "/api/v1/auth/register/"
ME = "/api/v1/auth/me/"
BELL = "/app/notifications/bell/"
BAD_LOGIN = {"email": "nobody@example.com", "password": "wrong-password"}


@pytest.fixture
def clock(monkeypatch) -> FrozenClock:
    return freeze_throttle_clock(monkeypatch)


@pytest.fixture
def limits(settings):
    """``limits(auth=3)`` lowers the named scopes' per-minute limits for this test."""

    def set_limits(**per_scope: int) -> None:
        settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, **per_scope}

    return set_limits


def login_from(client, ip: str, credentials: dict = BAD_LOGIN):
    return client.post(LOGIN, credentials, format="json", REMOTE_ADDR=ip)


def assert_rate_headers(response, *, limit: int, remaining: int, reset: int) -> None:
    assert response["X-RateLimit-Limit"] == str(limit)
    assert response["X-RateLimit-Remaining"] == str(remaining)
    assert response["X-RateLimit-Reset"] == str(reset)


def assert_throttled(response, *, limit: int, clock: FrozenClock) -> None:
    """A 429 envelope with both header families and Retry-After."""
    assert_error(response, 429, "rate_limited")
    assert_rate_headers(response, limit=limit, remaining=0, reset=clock.reset)
    assert response["X-Throttle-Limit"] == str(limit)
    assert response["X-Throttle-Remaining"] == "0"
    assert response["X-Throttle-Reset"] == str(clock.reset)
    assert response["Retry-After"] == str(int(clock.reset - clock.now))


# auth scope: anonymous, per client IP


@pytest.mark.django_db
def test_login_is_limited_per_client_ip_under_the_auth_scope(api_client, clock, limits):
    limits(auth=3)

    responses = [login_from(api_client, "203.0.113.1") for _ in range(3)]
    throttled = login_from(api_client, "203.0.113.1")

    assert [response.status_code for response in responses] == [401, 401, 401]
    assert [response["X-RateLimit-Remaining"] for response in responses] == ["2", "1", "0"]
    assert_throttled(throttled, limit=3, clock=clock)


@pytest.mark.django_db
def test_another_client_ip_has_its_own_auth_counter(api_client, clock, limits):
    limits(auth=2)
    for _ in range(3):
        login_from(api_client, "203.0.113.1")

    response = login_from(api_client, "203.0.113.2")

    assert response.status_code == 401
    assert_rate_headers(response, limit=2, remaining=1, reset=clock.reset)


@pytest.mark.django_db
def test_x_forwarded_for_does_not_escape_the_limit_without_trusted_proxies(api_client, clock, limits):
    limits(auth=1)
    login_from(api_client, "203.0.113.1")

    response = api_client.post(LOGIN, BAD_LOGIN, format="json", REMOTE_ADDR="203.0.113.1", HTTP_X_FORWARDED_FOR="198.51.100.9")

    assert_throttled(response, limit=1, clock=clock)


@pytest.mark.django_db
def test_auth_endpoints_share_one_auth_counter_per_ip(api_client, clock, limits):
    limits(auth=3)
    login_from(api_client, "203.0.113.1")
    api_client.post("/api/v1/auth/password/reset/", {"email": "x@example.com"}, format="json", REMOTE_ADDR="203.0.113.1")
    api_client.post("/api/v1/auth/token/refresh/", {"refresh": "bogus"}, format="json", REMOTE_ADDR="203.0.113.1")

    response = api_client.post(REGISTER, {"email": "new@example.com", "password": "long-enough"}, format="json", REMOTE_ADDR="203.0.113.1")

    assert_throttled(response, limit=3, clock=clock)


def test_throttled_login_does_not_check_credentials(tenant, api_client, clock, limits):
    limits(auth=1)
    login_from(api_client, "203.0.113.1")

    response = login_from(api_client, "203.0.113.1", {"email": tenant.owner.email, "password": "correct-horse-1"})

    assert_throttled(response, limit=1, clock=clock)
    assert "sessionid" not in response.cookies


@pytest.mark.django_db
def test_the_auth_counter_starts_again_in_the_next_window(api_client, clock, limits):
    limits(auth=1)
    login_from(api_client, "203.0.113.1")
    assert login_from(api_client, "203.0.113.1").status_code == 429

    clock.next_window()
    response = login_from(api_client, "203.0.113.1")

    assert response.status_code == 401
    assert_rate_headers(response, limit=1, remaining=0, reset=clock.reset)


# general scope: authenticated, per user


def test_authenticated_endpoints_are_limited_per_user_under_the_general_scope(tenant, as_user, clock, limits):
    limits(general=2)
    client = as_user(tenant.owner)
    responses = [client.get(ME) for _ in range(2)]

    throttled = client.get(ME)

    assert [response.status_code for response in responses] == [200, 200]
    assert [response["X-RateLimit-Remaining"] for response in responses] == ["1", "0"]
    assert_throttled(throttled, limit=2, clock=clock)


def test_two_users_do_not_share_a_counter(tenant, as_user, clock, limits):
    limits(general=2)
    for _ in range(3):
        as_user(tenant.owner).get(ME, REMOTE_ADDR="203.0.113.1")

    response = as_user(tenant.editor).get(ME, REMOTE_ADDR="203.0.113.1")

    assert response.status_code == 200
    assert_rate_headers(response, limit=2, remaining=1, reset=clock.reset)


def test_a_user_is_counted_across_clients_and_ips(tenant, as_user, clock, limits):
    limits(general=2)
    as_user(tenant.owner).get(ME, REMOTE_ADDR="203.0.113.1")
    as_user(tenant.owner).get(ME, REMOTE_ADDR="203.0.113.2")

    response = as_user(tenant.owner).get(ME, REMOTE_ADDR="203.0.113.3")

    assert_throttled(response, limit=2, clock=clock)


def test_auth_and_general_scopes_are_counted_separately(tenant, api_client, as_user, clock, limits):
    limits(auth=1, general=5)
    login_from(api_client, "127.0.0.1")
    assert login_from(api_client, "127.0.0.1").status_code == 429

    response = as_user(tenant.owner).get(ME)

    assert response.status_code == 200
    assert_rate_headers(response, limit=5, remaining=4, reset=clock.reset)


@pytest.mark.urls("inkwell.api.tests.urls_for_tests")
@pytest.mark.parametrize("scope", ["ai", "content", "auth", "general"])
def test_each_scope_uses_its_own_limit_setting(tenant, as_user, clock, limits, scope):
    limits(ai=2, content=3, auth=4, general=5)
    limit = {"ai": 2, "content": 3, "auth": 4, "general": 5}[scope]
    client = as_user(tenant.owner)
    for _ in range(limit):
        assert client.get(f"{PREFIX}ping/{scope}/").status_code == 200

    assert_throttled(client.get(f"{PREFIX}ping/{scope}/"), limit=limit, clock=clock)


# headers on success


@pytest.mark.django_db
def test_every_success_carries_the_rate_limit_headers(tenant, api_client, as_user, clock, limits):
    limits(auth=7, general=9)
    login = api_client.post(LOGIN, {"email": tenant.owner.email, "password": "correct-horse-1"}, format="json")
    register = api_client.post(REGISTER, {"email": "headers@example.com", "password": "long-enough"}, format="json")
    me = as_user(tenant.owner).get(ME)

    assert (login.status_code, register.status_code, me.status_code) == (200, 201, 200)
    assert_rate_headers(login, limit=7, remaining=6, reset=clock.reset)
    assert_rate_headers(register, limit=7, remaining=5, reset=clock.reset)
    assert_rate_headers(me, limit=9, remaining=8, reset=clock.reset)
    for response in (login, register, me):
        assert "X-Throttle-Limit" not in response


def test_reset_header_is_the_end_of_the_current_minute(tenant, as_user, clock):
    response = as_user(tenant.owner).get(ME)

    reset = int(response["X-RateLimit-Reset"])
    assert reset % 60 == 0
    assert 0 < reset - clock.now <= 60


# one round trip on Redis: the hit counted with the principal


@pytest.fixture
def redis_cache():
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        pytest.skip("the production profile's Redis cache (REDIS_URL)")
    return backend


def recorded_redis_commands(monkeypatch, redis_cache) -> list[str]:
    """The names of the commands sent to the real Redis from now on, by the client and by the
    hot-path connection alike: both send each command through ``Connection.send_command``."""
    names: list[str] = []
    connection_class = redis_cache._cache._get_connection_pool(write=True).connection_class
    send_command = connection_class.send_command

    def send_and_record(connection, *args, **options):
        names.append(str(args[0]).upper())
        return send_command(connection, *args, **options)

    monkeypatch.setattr(connection_class, "send_command", send_and_record)
    return names


def test_count_hit_creates_the_counter_with_its_expiry_and_reads_the_other_key(redis_cache):
    counter, other = f"test-hits-{uuid.uuid4().hex}", f"test-value-{uuid.uuid4().hex}"
    redis_cache.set(other, ("a", 1), timeout=60)

    assert redis_cache.count_hit(counter, timeout=30) == (1, None)
    assert redis_cache.count_hit(counter, timeout=30, read_key=other) == (2, ("a", 1))
    assert redis_cache.count_hit(counter, timeout=30, read_key=f"{other}-missing") == (3, None)
    assert redis_cache.get(counter) == 3  # an integer the cache API reads
    assert 0 < redis_cache._cache.get_client(write=True).ttl(redis_cache.make_key(counter)) <= 30


def test_get_reads_on_the_hot_path_what_set_stored(redis_cache):
    key = f"test-value-{uuid.uuid4().hex}"
    assert redis_cache.get(key, "absent") == "absent"
    redis_cache.set(key, {"a": 1}, timeout=60)
    assert redis_cache.get(key) == {"a": 1}


def test_a_script_redis_no_longer_knows_is_loaded_again_and_answers(redis_cache):
    counter = f"test-hits-{uuid.uuid4().hex}"
    redis_cache.count_hit(counter, timeout=30)
    redis_cache._cache.get_client(write=True).script_flush()

    assert redis_cache.count_hit(counter, timeout=30) == (2, None)


def test_a_hot_path_connection_redis_closed_is_opened_again_and_answers(redis_cache):
    counter = f"test-hits-{uuid.uuid4().hex}"
    redis_cache.count_hit(counter, timeout=30)
    connection = redis_cache._cache.hot_path().connection
    connection.send_command("CLIENT", "ID")
    assert redis_cache._cache.get_client(write=True).client_kill_filter(_id=connection.read_response()) == 1
    assert redis_cache.count_hit(counter, timeout=30) == (2, None)


def test_a_bearer_request_counts_its_hit_in_the_round_trip_that_reads_its_principal(tenant, as_user, clock, limits, settings, redis_cache, monkeypatch):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300
    limits(general=5)
    client = as_user(tenant.owner)
    client.get(ME)  # caches the principal
    commands = recorded_redis_commands(monkeypatch, redis_cache)

    response = client.get(ME)

    assert response.status_code == 200
    assert commands == ["EVALSHA"]
    assert_rate_headers(response, limit=5, remaining=3, reset=clock.reset)


def test_a_hit_counted_with_the_principal_is_still_refused_over_the_limit(tenant, as_user, clock, limits, settings, redis_cache):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300
    limits(general=2)
    client = as_user(tenant.owner)

    responses = [client.get(ME) for _ in range(3)]

    assert [response.status_code for response in responses[:2]] == [200, 200]
    assert [response["X-RateLimit-Remaining"] for response in responses[:2]] == ["1", "0"]
    assert_throttled(responses[2], limit=2, clock=clock)


def test_a_console_request_counts_its_hit_in_the_round_trip_that_reads_its_sessions_principal(tenant, clock, limits, settings, redis_cache, monkeypatch):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300
    limits(general=5)
    browser = Client()
    browser.force_login(tenant.owner)
    browser.get(BELL, HTTP_HX_REQUEST="true")  # caches the principal and the unread count
    commands = recorded_redis_commands(monkeypatch, redis_cache)

    response = browser.get(BELL, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert commands == ["GET", "EVALSHA", "EVALSHA"]  # the session; the principal with the hit; the unread count
    assert redis_cache.get(f"ratelimit:general:user:{tenant.owner.pk}:{clock.reset - 60}") == 2


def test_a_console_hit_counted_with_the_principal_is_still_refused_over_the_limit(tenant, clock, limits, settings, redis_cache):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300
    limits(general=2)
    browser = Client()
    browser.force_login(tenant.owner)

    statuses = [browser.get(BELL, HTTP_HX_REQUEST="true").status_code for _ in range(3)]

    assert statuses == [200, 200, 429]
