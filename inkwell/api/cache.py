"""The production cache backend, and the invalidation of values cached from database rows.

``RedisCache`` is Django's Redis cache with one redis-py client per connection pool.
Django builds a new ``redis.Redis`` object for every cache call, about 0.2 ms of Python each time;
the rate limiter and the principal cache call it on every request. A client is thread-safe and
takes its connections from the pool, so one per pool serves every call of the process.
"""

import logging

from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.db import transaction

logger = logging.getLogger(__name__)


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = super().get_client(key, write=write)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient


def forget(keys: list[str]) -> None:
    """Deletes cached values derived from rows a transaction changes: now, and again when the
    transaction commits, so that a request that read the old rows in between cannot leave them
    cached. A cache outage is logged; the values then expire on their own."""
    if not keys:
        return
    _delete(keys)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: _delete(keys))


def _delete(keys: list[str]) -> None:
    try:
        cache.delete_many(keys)
    except Exception:
        logger.error("cache unavailable; %d cached values not invalidated", len(keys), exc_info=True)
