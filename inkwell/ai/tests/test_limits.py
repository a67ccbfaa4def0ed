"""The shared limit of provider calls in flight (``inkwell.ai.limits``), on the profile's own
store: the database embedded, Redis in production. Threads stand for concurrent jobs; the
cross-process case runs on real Celery workers (tests/test_provider_limit_workers.py)."""

import threading
import time
import uuid

import pytest
from django.db import connection

from inkwell.ai import limits
from inkwell.ai.errors import ProviderRateLimited
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.openai import OpenAITextProvider
from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour, OpenAICompatibleServer
from inkwell.ai.types import KeywordInput

pytestmark = pytest.mark.django_db(transaction=True)

KEYWORDS = [KeywordInput(1, "tomato seeds"), KeywordInput(2, "rose pruning")]

# SQLite's in-memory test database locks whole tables between connections, without waiting: its
# threads cannot write at once. The embedded profile's file database can (WAL, a busy timeout);
# the tests on real workers prove it there.
@pytest.fixture
def concurrent_writers():
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("the in-memory SQLite test database takes one writer at a time")


@pytest.fixture(params=["profile", "database"], autouse=True)
def store(request, monkeypatch):
    """The profile's own store, and the database's as well where the profile keeps it in Redis
    (so that PostgreSQL holds the database's rules too)."""
    if request.param == "database":
        if not isinstance(limits.backend(), limits.RedisSlots):
            pytest.skip("the profile's store is the database")
        monkeypatch.setattr(limits, "backend", lambda: limits.DatabaseSlots())
    return request.param


@pytest.fixture
def ai_limits(settings):
    def configure(**values):
        settings.INKWELL_AI = {**settings.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": True, **values}

    configure(MAX_CONCURRENCY=8, PROVIDER_MAX_CONCURRENCY=16, RATE_LIMIT_DECREASE=0.5, RATE_LIMIT_MAX_WAIT_SECONDS=30)
    return configure


def fresh_endpoint() -> str:
    return limits.endpoint_scope(f"http://127.0.0.1/{uuid.uuid4().hex}", "key")


def fresh_account() -> str:
    # Far from any account a test creates: the scopes of one test never meet another's.
    return limits.account_scope(10**9 + uuid.uuid4().int % 10**6)


def run_in_threads(count: int, work) -> list[BaseException]:
    errors: list[BaseException] = []

    def target(index):
        try:
            work(index)
        except BaseException as error:  # noqa: BLE001 (reported to the test)
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=target, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


class Gauge:
    def __init__(self):
        self.lock, self.now, self.peak, self.done = threading.Lock(), 0, 0, 0

    def __enter__(self):
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def __exit__(self, *exc_info):
        with self.lock:
            self.now -= 1
            self.done += 1


@pytest.mark.usefixtures("concurrent_writers")
def test_calls_of_one_account_in_flight_never_exceed_its_limit_and_every_call_gets_its_turn(ai_limits):
    ai_limits(MAX_CONCURRENCY=3)
    endpoint, account, gauge = fresh_endpoint(), fresh_account(), Gauge()

    def call(_):
        with limits.call_slot(endpoint=endpoint, account=account, lease_seconds=30), gauge:
            time.sleep(0.2)

    assert run_in_threads(12, call) == []
    assert (gauge.peak, gauge.done) == (3, 12)
    assert limits.backend().in_flight(account) == 0


@pytest.mark.usefixtures("concurrent_writers")
def test_two_accounts_on_one_endpoint_share_the_endpoints_limit(ai_limits):
    ai_limits(MAX_CONCURRENCY=4, PROVIDER_MAX_CONCURRENCY=5)
    endpoint, accounts, gauge = fresh_endpoint(), [fresh_account(), fresh_account()], Gauge()

    def call(index):
        with limits.call_slot(endpoint=endpoint, account=accounts[index % 2], lease_seconds=30), gauge:
            time.sleep(0.3)

    assert run_in_threads(16, call) == []
    assert (gauge.peak, gauge.done) == (5, 16)


def test_a_429_halves_the_endpoint_limit_once_per_window_and_successes_add_it_back_by_one_a_window(ai_limits):
    ai_limits(PROVIDER_MAX_CONCURRENCY=8)
    slots, settings_now, endpoint, account = limits.backend(), limits.current_limits(), fresh_endpoint(), fresh_account()

    def take():
        slot = slots.try_acquire(endpoint=endpoint, account=account, lease_seconds=30, limits=settings_now)
        assert slot is not None
        return slot

    first, second = take(), take()
    slots.release(first, outcome=limits.RATE_LIMITED, limits=settings_now)
    assert slots.limit(endpoint, settings_now) == 4
    # Sent before the decrease: the same burst, not a new sign of overload.
    slots.release(second, outcome=limits.RATE_LIMITED, limits=settings_now)
    assert slots.limit(endpoint, settings_now) == 4
    slots.release(take(), outcome=limits.RATE_LIMITED, limits=settings_now)
    assert slots.limit(endpoint, settings_now) == 2
    for _ in range(2):
        slots.release(take(), outcome=limits.OK, limits=settings_now)
    assert slots.limit(endpoint, settings_now) == pytest.approx(2 + 1 / 2 + 1 / 2.5)
    for _ in range(5):
        slots.release(take(), outcome=limits.RATE_LIMITED, limits=settings_now)
    assert slots.limit(endpoint, settings_now) == 1  # never below one call
    for _ in range(200):
        slots.release(take(), outcome=limits.OK, limits=settings_now)
    assert slots.limit(endpoint, settings_now) == 8  # never above the ceiling
    assert slots.in_flight(endpoint) == 0


def test_a_lowered_limit_lets_no_more_calls_in_flight_than_it_allows(ai_limits):
    ai_limits(PROVIDER_MAX_CONCURRENCY=4)
    slots, settings_now, endpoint = limits.backend(), limits.current_limits(), fresh_endpoint()
    slot = slots.try_acquire(endpoint=endpoint, account=fresh_account(), lease_seconds=30, limits=settings_now)
    slots.release(slot, outcome=limits.RATE_LIMITED, limits=settings_now)  # 4 -> 2
    held = [slots.try_acquire(endpoint=endpoint, account=fresh_account(), lease_seconds=30, limits=settings_now) for _ in range(3)]
    assert [slot is not None for slot in held] == [True, True, False]


def test_the_place_of_a_caller_that_died_comes_back_when_its_lease_expires(ai_limits):
    ai_limits(MAX_CONCURRENCY=1)
    slots, settings_now, endpoint, account = limits.backend(), limits.current_limits(), fresh_endpoint(), fresh_account()
    assert slots.try_acquire(endpoint=endpoint, account=account, lease_seconds=0.3, limits=settings_now) is not None
    assert slots.try_acquire(endpoint=endpoint, account=account, lease_seconds=30, limits=settings_now) is None
    time.sleep(0.4)
    assert slots.try_acquire(endpoint=endpoint, account=account, lease_seconds=30, limits=settings_now) is not None


def test_a_call_that_finds_no_place_waits_and_gives_up_as_rate_limited_after_the_longest_wait(ai_limits):
    ai_limits(MAX_CONCURRENCY=1, RATE_LIMIT_MAX_WAIT_SECONDS=0.3)
    endpoint, account = fresh_endpoint(), fresh_account()
    with limits.call_slot(endpoint=endpoint, account=account, lease_seconds=30):
        started = time.monotonic()
        with pytest.raises(ProviderRateLimited), limits.call_slot(endpoint=endpoint, account=account, lease_seconds=30):
            pass
        assert 0.3 <= time.monotonic() - started < 1.5


def provider_for(server: OpenAICompatibleServer, *, account_id: int, max_retries: int = 0) -> OpenAITextProvider:
    return OpenAITextProvider(
        ProviderConfig(
            provider="openai",
            base_url=server.base_url,
            api_key=TEST_API_KEY,
            model="gpt-4o-mini",
            timeout_seconds=10,
            max_retries=max_retries,
            allow_private=True,
            account_id=account_id,
        )
    )


@pytest.mark.usefixtures("concurrent_writers")
def test_a_provider_that_allows_two_calls_answers_every_call_in_the_end_and_the_limit_learns_it(ai_limits):
    # max_retries=0: the SDK never retries, so every 429 was waited out by the shared limit.
    ai_limits(MAX_CONCURRENCY=8, PROVIDER_MAX_CONCURRENCY=8)
    with OpenAICompatibleServer(latencies={"chat": 0.1}, max_in_flight=2, cap_retry_after=0.05) as server:
        provider = provider_for(server, account_id=10**9 + 7)
        results = []
        assert run_in_threads(10, lambda _: results.append(provider.cluster_keywords(KEYWORDS, prompt="Cluster"))) == []
        answered = len(server.requests_to("chat")) - server.refused
        endpoint = limits.endpoint_scope(server.base_url, TEST_API_KEY)
    assert (len(results), answered, server.peak_in_flight) == (10, 10, 2)
    assert server.refused > 0
    assert limits.backend().limit(endpoint, limits.current_limits()) < 8


def test_a_429_waits_what_retry_after_asks_before_the_call_is_sent_again(ai_limits):
    with OpenAICompatibleServer() as server:
        server.script("chat", [Behaviour.status(429, retry_after=0.3), Behaviour.ok()])
        provider_for(server, account_id=10**9 + 8).cluster_keywords(KEYWORDS, prompt="Cluster")
        sent = [request.received_at for request in server.requests_to("chat")]
    assert len(sent) == 2
    assert sent[1] - sent[0] >= 0.3


def test_a_429_for_a_used_up_quota_is_not_waited_out(ai_limits):
    with OpenAICompatibleServer() as server:
        server.script("chat", [Behaviour.status(429, retry_after=0.05, error_code="insufficient_quota")])
        with pytest.raises(ProviderRateLimited, match="quota"):
            provider_for(server, account_id=10**9 + 9).cluster_keywords(KEYWORDS, prompt="Cluster")
        assert len(server.requests_to("chat")) == 1
