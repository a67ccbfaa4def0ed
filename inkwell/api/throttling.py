"""Scoped rate limits, counted in the shared cache.

A fixed one-minute window per (scope, user or client IP): the counter lives in the cache, so
every server process counts against the same number. On Redis the count is one atomic script; the
embedded database cache may undercount slightly under concurrent bursts, which the single-machine
default accepts.

A Bearer request's hit is usually counted during authentication, in the round trip that reads
its principal (``inkwell.tenancy.principal``): ``counter_key`` names the counter there, and the
throttle takes the count from ``request.counted_hit`` instead of counting again. A console
request counts its hit likewise while its session's user is read.
"""

import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from rest_framework.throttling import BaseThrottle

from inkwell.api.cache import RedisCache

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60
DEFAULT_SCOPE = "general"
COUNTER_SECONDS = WINDOW_SECONDS + 5


@dataclass(frozen=True)
class CountedHit:
    """A hit counted before the throttle ran: the counter's key and the count it reached."""

    key: str
    count: int


@dataclass(frozen=True)
class RateLimitState:
    scope: str
    limit: int
    remaining: int
    reset: int  # Unix time at which the window ends


def _count_hit(key: str) -> int:
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend.count_hit(key, timeout=COUNTER_SECONDS)[0]
    backend.add(key, 0, timeout=COUNTER_SECONDS)
    try:
        return backend.incr(key)
    except ValueError:  # the key expired between add and incr
        backend.set(key, 1, timeout=COUNTER_SECONDS)
        return 1


def _window_start(now: float) -> int:
    return int(now // WINDOW_SECONDS) * WINDOW_SECONDS


def _key(scope: str, ident: str, window_start: int) -> str:
    return f"ratelimit:{scope}:{ident}:{window_start}"


def user_counter_key(view, *, user_id: int) -> str:
    """The counter a request of ``user_id`` to ``view`` (its ``throttle_scope``) counts in now."""
    return _key(getattr(view, "throttle_scope", None) or DEFAULT_SCOPE, f"user:{user_id}", _window_start(time.time()))


def counter_key(view, *, user_id: int) -> str | None:
    """The counter this request of ``user_id`` to ``view`` will count in, for counting it early; None
    when ``view`` is not limited by ``ScopedRateThrottle``."""
    if not any(issubclass(throttle, ScopedRateThrottle) for throttle in getattr(view, "throttle_classes", ())):
        return None
    return user_counter_key(view, user_id=user_id)


class ScopedRateThrottle(BaseThrottle):
    """Views name their scope with ``throttle_scope`` (an ``@action`` may set its own)."""

    def allow_request(self, request, view) -> bool:
        scope = getattr(view, "throttle_scope", None) or DEFAULT_SCOPE
        limit = settings.INKWELL_RATE_LIMITS[scope]
        user = request.user
        ident = f"user:{user.pk}" if user and user.is_authenticated else f"ip:{self.get_ident(request)}"
        now = time.time()
        window_start = _window_start(now)
        key = _key(scope, ident, window_start)
        counted = getattr(request._request, "counted_hit", None)
        if counted is not None and counted.key == key:
            request._request.counted_hit = None  # counted once: a second check counts again
            count = counted.count
        else:
            try:
                count = _count_hit(key)
            except Exception:  # a cache outage must not take the API down with it
                logger.warning("rate limit cache unavailable; request allowed", exc_info=True)
                return True
        reset = window_start + WINDOW_SECONDS
        request._request.rate_limit = RateLimitState(scope, limit, max(0, limit - count), reset)
        self._wait = reset - now
        return count <= limit

    def wait(self) -> float:
        return math.ceil(self._wait)


def allow(*, scope: str, ident: str) -> bool:
    """Counts one hit of ``ident`` (an address, a link and an address...) in ``scope``'s window and
    says whether it is within ``INKWELL_RATE_LIMITS[scope]``: for the public pages that have no
    user and no DRF view, such as a review link's and its passcode attempts. A cache outage allows."""
    try:
        count = _count_hit(_key(scope, ident, _window_start(time.time())))
    except Exception:
        logger.warning("rate limit cache unavailable; request allowed", exc_info=True)
        return True
    return count <= settings.INKWELL_RATE_LIMITS[scope]
