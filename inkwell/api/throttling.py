"""Scoped rate limits (API-CONTRACT section 6), counted in the shared cache.

A fixed one-minute window per (scope, user or client IP): the counter lives in the cache, so
every server process counts against the same number. On Redis ``incr`` is atomic; the embedded
database cache may undercount slightly under concurrent bursts, which the single-machine
default accepts.
"""

import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.throttling import BaseThrottle

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60
DEFAULT_SCOPE = "general"


@dataclass(frozen=True)
class RateLimitState:
    scope: str
    limit: int
    remaining: int
    reset: int  # Unix time at which the window ends


def _count_hit(key: str) -> int:
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        # One round trip instead of the three that add + incr take through the cache API: this runs
        # on every request. Django's Redis cache stores integers unpickled, so the counter stays
        # readable through the cache API.
        full_key = backend.make_and_validate_key(key)
        pipeline = backend._cache.get_client(full_key, write=True).pipeline(transaction=False)
        pipeline.set(full_key, 0, ex=WINDOW_SECONDS + 5, nx=True)
        pipeline.incr(full_key)
        return pipeline.execute()[1]
    backend.add(key, 0, timeout=WINDOW_SECONDS + 5)
    try:
        return backend.incr(key)
    except ValueError:  # the key expired between add and incr
        backend.set(key, 1, timeout=WINDOW_SECONDS + 5)
        return 1


class ScopedRateThrottle(BaseThrottle):
    """Views name their scope with ``throttle_scope`` (an ``@action`` may set its own)."""

    def allow_request(self, request, view) -> bool:
        scope = getattr(view, "throttle_scope", None) or DEFAULT_SCOPE
        limit = settings.INKWELL_RATE_LIMITS[scope]
        user = request.user
        ident = f"user:{user.pk}" if user and user.is_authenticated else f"ip:{self.get_ident(request)}"
        now = time.time()
        window_start = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
        reset = window_start + WINDOW_SECONDS
        try:
            count = _count_hit(f"ratelimit:{scope}:{ident}:{window_start}")
        except Exception:  # a cache outage must not take the API down with it
            logger.warning("rate limit cache unavailable; request allowed", exc_info=True)
            return True
        request._request.rate_limit = RateLimitState(scope, limit, max(0, limit - count), reset)
        self._wait = reset - now
        return count <= limit

    def wait(self) -> float:
        return math.ceil(self._wait)
