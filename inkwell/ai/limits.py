"""The shared limit of provider calls in flight.

Every HTTP request to an OpenAI-compatible provider takes a place first (``LimitedTransport``
wraps the SDK's transport), in two scopes at once:

- the account's: at most ``AI_MAX_CONCURRENCY`` calls in flight, so that one account's run cannot
  take every place of a shared endpoint;
- the endpoint's (its base URL with its key): the provider's own limit, which Inkwell learns by
  additive increase, multiplicative decrease (AIMD, as TCP does). It starts at
  ``AI_PROVIDER_MAX_CONCURRENCY``; a 429 multiplies it by ``AI_RATE_LIMIT_DECREASE`` (once per
  window: a 429 of a call that started before the last decrease does not decrease it again) and
  each successful call adds 1/limit, so it grows back by one per window of successful calls.
  A limit of 2.5 lets two calls in flight; it never falls below 1.

The places are counted across every process of the deployment: in Redis (production profile) or
in the database (embedded profile, ``inkwell.ai.models``), never per process. A place is a lease
that expires on its own (the request's timeout and a minute), so a worker that died mid-call
gives its places back.

A call that finds no free place waits (polling, with jitter) instead of failing, and a call the
provider answers with a 429 gives its place back, waits what ``Retry-After`` (or
``retry-after-ms``) asks and tries again, without the job noticing: no attempt of the job is
spent. After ``AI_RATE_LIMIT_MAX_WAIT_SECONDS`` of waiting in all, the call gives up (the 429 goes
to the SDK, whose own retries and then the job's follow). A 429 saying the account's quota is used
up (``insufficient_quota``) goes to the SDK at once: waiting would not help.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import httpx2
from django.conf import settings
from django.core.cache import caches
from django.db import IntegrityError, transaction
from django.db.models import Count

from inkwell.ai.errors import ProviderRateLimited
from inkwell.api.cache import RedisCache

logger = logging.getLogger("inkwell.ai")

OK, RATE_LIMITED, FAILED = "ok", "rate_limited", "failed"
LEASE_MARGIN_SECONDS = 60
# Polling for a free place: the first wait, doubled up to the last (each with up to 50 % jitter).
FIRST_POLL_SECONDS, LAST_POLL_SECONDS = 0.01, 0.2
# When a 429 names no wait: the first, doubled up to the last.
FIRST_BACKOFF_SECONDS, LAST_BACKOFF_SECONDS = 0.5, 8.0
STATE_SECONDS = 24 * 3600  # an endpoint silent for a day starts again at its ceiling


@dataclass(frozen=True)
class Limits:
    account: int
    provider: int
    decrease: float
    max_wait_seconds: float


def current_limits() -> Limits:
    ai = settings.INKWELL_AI
    return Limits(
        account=max(1, int(ai.get("MAX_CONCURRENCY", 8))),
        provider=max(1, int(ai.get("PROVIDER_MAX_CONCURRENCY", 16))),
        decrease=min(0.95, max(0.05, float(ai.get("RATE_LIMIT_DECREASE", 0.5)))),
        max_wait_seconds=float(ai.get("RATE_LIMIT_MAX_WAIT_SECONDS", 300)),
    )


def endpoint_scope(base_url: str, api_key: str) -> str:
    """The endpoint's scope name: a hash of its URL and key (the key itself is never stored)."""
    digest = hashlib.sha256(f"{base_url.rstrip('/')}\0{api_key}".encode()).hexdigest()[:32]
    return f"endpoint:{digest}"


def account_scope(account_id: int) -> str:
    return f"account:{account_id}"


@dataclass(frozen=True)
class Slot:
    token: str
    endpoint: str
    account: str | None
    started_at: float  # the backend's clock


# -- Redis -----------------------------------------------------------------------------------------

# KEYS: the endpoint's leases, its state, [the account's leases]. ARGV: token, lease seconds,
# endpoint ceiling, account limit. Returns {1 or 0, now}; numbers as strings (Lua numbers would
# reach the client as integers).
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local ceiling = tonumber(ARGV[3])
local limit = math.min(ceiling, tonumber(redis.call('HGET', KEYS[2], 'limit') or ceiling))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= math.floor(limit) then return {0, tostring(now)} end
if KEYS[3] then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
    if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return {0, tostring(now)} end
end
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('EXPIRE', KEYS[1], math.ceil(lease) + 60)
if KEYS[3] then
    redis.call('ZADD', KEYS[3], now + lease, ARGV[1])
    redis.call('EXPIRE', KEYS[3], math.ceil(lease) + 60)
end
return {1, tostring(now)}
"""
# KEYS as above. ARGV: token, outcome, the call's start, endpoint ceiling, decrease factor, state seconds.
_RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
if KEYS[3] then redis.call('ZREM', KEYS[3], ARGV[1]) end
local ceiling = tonumber(ARGV[4])
local limit = math.min(ceiling, tonumber(redis.call('HGET', KEYS[2], 'limit') or ceiling))
if ARGV[2] == 'ok' then
    limit = math.min(ceiling, limit + 1 / limit)
elseif ARGV[2] == 'rate_limited' then
    if tonumber(ARGV[3]) < tonumber(redis.call('HGET', KEYS[2], 'decreased_at') or '0') then return 0 end
    limit = math.max(1, limit * tonumber(ARGV[5]))
    local t = redis.call('TIME')
    redis.call('HSET', KEYS[2], 'decreased_at', tostring(tonumber(t[1]) + tonumber(t[2]) / 1000000))
else
    return 0
end
redis.call('HSET', KEYS[2], 'limit', tostring(limit))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[6]))
return 1
"""
# KEYS: leases, state. Returns {calls in flight, limit or false}.
_READ = """
local t = redis.call('TIME')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(t[1]) + tonumber(t[2]) / 1000000)
return {redis.call('ZCARD', KEYS[1]), redis.call('HGET', KEYS[2], 'limit')}
"""


class RedisSlots:
    def __init__(self, cache: RedisCache):
        self.cache = cache

    @staticmethod
    def _keys(endpoint: str, account: str | None) -> list[str]:
        keys = [f"ai-calls:{endpoint}", f"ai-calls:{endpoint}:state"]
        return keys + [f"ai-calls:{account}"] if account else keys

    def try_acquire(self, *, endpoint: str, account: str | None, lease_seconds: float, limits: Limits) -> Slot | None:
        token = uuid.uuid4().hex
        acquired, now = self.cache.run_script(_ACQUIRE, self._keys(endpoint, account), [token, lease_seconds, limits.provider, limits.account])
        return Slot(token, endpoint, account, float(now)) if int(acquired) else None

    def release(self, slot: Slot, *, outcome: str, limits: Limits) -> None:
        self.cache.run_script(
            _RELEASE, self._keys(slot.endpoint, slot.account), [slot.token, outcome, slot.started_at, limits.provider, limits.decrease, STATE_SECONDS]
        )

    def in_flight(self, scope: str) -> int:
        return int(self.cache.run_script(_READ, [f"ai-calls:{scope}", f"ai-calls:{scope}:state"], [])[0])

    def limit(self, endpoint: str, limits: Limits) -> float:
        value = self.cache.run_script(_READ, [f"ai-calls:{endpoint}", f"ai-calls:{endpoint}:state"], [])[1]
        return min(limits.provider, float(value)) if value is not None else float(limits.provider)


# -- The database (embedded profile) ---------------------------------------------------------------


class DatabaseSlots:
    """The same rules on two tables. A place is taken in one write transaction (``IMMEDIATE`` on
    SQLite, the scope rows locked in key order on PostgreSQL); a look without a lock comes first,
    so that callers waiting for a full scope read, and do not queue for the write lock."""

    def __init__(self):
        self._known: set[str] = set()

    def _scopes(self, keys: list[str], limits: Limits) -> None:
        from inkwell.ai.models import CallScope

        missing = [key for key in keys if key not in self._known]
        if missing:
            try:
                CallScope.objects.bulk_create(
                    [CallScope(key=key, call_limit=limits.provider if key.startswith("endpoint:") else limits.account) for key in missing],
                    ignore_conflicts=True,
                )
            except IntegrityError:  # another process made them first
                pass
            self._known.update(missing)

    @staticmethod
    def _limit(scope, limits: Limits) -> int:
        if scope.key.startswith("endpoint:"):
            return int(min(limits.provider, scope.call_limit))
        return limits.account

    def _full(self, keys: list[str], now: float, limits: Limits, *, lock: bool) -> tuple[bool, dict]:
        from inkwell.ai.models import CallLease, CallScope

        scopes = CallScope.objects.filter(key__in=keys).order_by("key")
        scopes = {scope.key: scope for scope in (scopes.select_for_update() if lock else scopes)}
        counts = dict(
            CallLease.objects.filter(scope__in=scopes.values(), expires_at__gte=now).values("scope").annotate(calls=Count("id")).values_list("scope", "calls")
        )
        full = any(counts.get(scope.pk, 0) >= self._limit(scope, limits) for scope in scopes.values())
        return full, scopes

    def try_acquire(self, *, endpoint: str, account: str | None, lease_seconds: float, limits: Limits) -> Slot | None:
        from inkwell.ai.models import CallLease

        keys = [endpoint, account] if account else [endpoint]
        self._scopes(keys, limits)
        now = time.time()
        if self._full(keys, now, limits, lock=False)[0]:
            return None
        token = uuid.uuid4().hex
        with transaction.atomic():
            now = time.time()
            full, scopes = self._full(keys, now, limits, lock=True)
            if len(scopes) < len(keys):
                # Rows this process made once are gone (a test database flushed): make them again.
                self._known.difference_update(keys)
                return None
            if full:
                return None
            CallLease.objects.filter(scope__in=scopes.values(), expires_at__lt=now).delete()
            CallLease.objects.bulk_create([CallLease(scope=scope, token=token, expires_at=now + lease_seconds) for scope in scopes.values()])
        return Slot(token, endpoint, account, now)

    def release(self, slot: Slot, *, outcome: str, limits: Limits) -> None:
        from inkwell.ai.models import CallLease, CallScope

        with transaction.atomic():
            CallLease.objects.filter(token=slot.token).delete()
            if outcome not in (OK, RATE_LIMITED):
                return
            scope = CallScope.objects.select_for_update().filter(key=slot.endpoint).first()
            if scope is None:
                return
            limit = min(float(limits.provider), scope.call_limit)
            if outcome == OK:
                if limit >= limits.provider and scope.call_limit == limit:
                    return  # at the ceiling: nothing to write
                scope.call_limit = min(float(limits.provider), limit + 1 / limit)
                scope.save(update_fields=["call_limit"])
            elif slot.started_at >= scope.decreased_at:
                scope.call_limit, scope.decreased_at = max(1.0, limit * limits.decrease), time.time()
                scope.save(update_fields=["call_limit", "decreased_at"])

    def in_flight(self, scope: str) -> int:
        from inkwell.ai.models import CallLease

        return CallLease.objects.filter(scope__key=scope, expires_at__gte=time.time()).count()

    def limit(self, endpoint: str, limits: Limits) -> float:
        from inkwell.ai.models import CallScope

        scope = CallScope.objects.filter(key=endpoint).first()
        return min(float(limits.provider), scope.call_limit) if scope else float(limits.provider)


_database_slots = DatabaseSlots()


def backend() -> RedisSlots | DatabaseSlots:
    """Redis when the deployment's cache is Redis (production profile), else the database."""
    cache = caches["default"]
    return RedisSlots(cache) if isinstance(cache, RedisCache) else _database_slots


# -- Taking a place --------------------------------------------------------------------------------


def _jittered(seconds: float) -> float:
    return seconds * (0.5 + random.random() / 2)  # noqa: S311 (spreading waits, not secrets)


def acquire(*, endpoint: str, account: str | None, lease_seconds: float, deadline: float) -> Slot:
    """Waits for a place in both scopes; raises ``ProviderRateLimited`` at ``deadline`` (monotonic)."""
    slots, limits = backend(), current_limits()
    wait = FIRST_POLL_SECONDS
    while True:
        slot = slots.try_acquire(endpoint=endpoint, account=account, lease_seconds=lease_seconds, limits=limits)
        if slot is not None:
            return slot
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProviderRateLimited("Too many AI provider calls are in flight; the call waited too long for its turn")
        time.sleep(min(_jittered(wait), remaining))
        wait = min(LAST_POLL_SECONDS, wait * 2)


def release(slot: Slot, *, outcome: str) -> None:
    try:
        backend().release(slot, outcome=outcome, limits=current_limits())
    except Exception:
        # The lease expires on its own; the call's outcome must not be lost for it.
        logger.warning("the place of an AI provider call could not be given back; it expires on its own", exc_info=True)


@contextmanager
def call_slot(*, endpoint: str, account: str | None, lease_seconds: float, max_wait_seconds: float | None = None) -> Iterator[list[str]]:
    """Holds a place for the block; the block may set the outcome by appending it to the list it
    gets (``ok`` when it appends nothing and raises nothing)."""
    limits = current_limits()
    deadline = time.monotonic() + (limits.max_wait_seconds if max_wait_seconds is None else max_wait_seconds)
    slot = acquire(endpoint=endpoint, account=account, lease_seconds=lease_seconds, deadline=deadline)
    outcome: list[str] = []
    try:
        yield outcome
    except BaseException:
        release(slot, outcome=FAILED)
        raise
    release(slot, outcome=outcome[-1] if outcome else OK)


def retry_after_seconds(response: httpx2.Response) -> float | None:
    """What ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date) asks, if anything."""
    headers = response.headers
    try:
        if "retry-after-ms" in headers:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _quota_used_up(response: httpx2.Response) -> bool:
    try:
        error = json.loads(response.content).get("error") or {}
    except (ValueError, AttributeError):
        return False
    return isinstance(error, dict) and error.get("code") == "insufficient_quota"


class LimitedTransport(httpx2.BaseTransport):
    """The SDK's transport behind the shared limit: each request holds a place while it is sent
    and its answer read; a POST answered 429 waits and is sent again (module docstring)."""

    def __init__(self, inner: httpx2.BaseTransport, *, endpoint: str, account: str | None, lease_seconds: float):
        self.inner = inner
        self.endpoint, self.account, self.lease_seconds = endpoint, account, lease_seconds

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        limits = current_limits()
        deadline = time.monotonic() + limits.max_wait_seconds
        backoff = FIRST_BACKOFF_SECONDS
        while True:
            remaining = max(0.0, deadline - time.monotonic())
            with call_slot(endpoint=self.endpoint, account=self.account, lease_seconds=self.lease_seconds, max_wait_seconds=remaining) as outcome:
                response = self.inner.handle_request(request)
                # Read inside the place: the call is in flight until its answer has arrived.
                response.read()
                if response.status_code != 429:
                    outcome.append(OK if response.status_code < 400 else FAILED)
                    return response
                outcome.append(RATE_LIMITED)
            if request.method != "POST" or _quota_used_up(response):
                return response
            wait = retry_after_seconds(response)
            if wait is None:
                wait, backoff = _jittered(backoff), min(LAST_BACKOFF_SECONDS, backoff * 2)
            if time.monotonic() + wait > deadline:
                return response
            logger.info("AI provider answered 429; waiting %.2f s before sending the call again", wait)
            time.sleep(wait)

    def close(self) -> None:
        self.inner.close()
