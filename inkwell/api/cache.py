"""The production cache backend, and the invalidation of values cached from database rows.

``RedisCache`` is Django's Redis cache with one redis-py client per connection pool.
Django builds a new ``redis.Redis`` object for every cache call, about 0.2 ms of Python each time;
the rate limiter and the principal cache call it on every request. A client is thread-safe and
takes its connections from the pool, so one per pool serves every call of the process.

``count_hit`` is the rate limiter's counter as one Lua script, which can read one more key in the
same round trip: a Bearer request counts its hit and reads its principal at once.
"""

import logging

from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.db import transaction

logger = logging.getLogger(__name__)


# Creates the counter at 0 with its expiry unless it exists, increments it, and reads KEYS[2] when given.
# Django's Redis cache stores integers unpickled, so the counter stays readable through the cache API.
COUNT_HIT_SCRIPT = """
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local count = redis.call('INCR', KEYS[1])
if KEYS[2] then
    return {count, redis.call('GET', KEYS[2])}
end
return {count}
"""


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}
        self._count_hit_scripts = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = super().get_client(key, write=write)
        return client

    def count_hit(self, key: str, timeout: int, read_key: str | None) -> tuple[int, object]:
        client = self.get_client(key, write=True)
        script = self._count_hit_scripts.get(client)
        if script is None:  # registered once per client; EVALSHA after the first call
            script = self._count_hit_scripts[client] = client.register_script(COUNT_HIT_SCRIPT)
        reply = script(keys=[key] if read_key is None else [key, read_key], args=[timeout])
        value = reply[1] if len(reply) > 1 else None
        return reply[0], None if value is None else self._serializer.loads(value)


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient

    def count_hit(self, key: str, *, timeout: int, read_key: str | None = None) -> tuple[int, object]:
        """Increments the counter ``key`` (created at 0, expiring in ``timeout`` seconds) and reads
        the cached value of ``read_key``, in one round trip: the new count and the value (None when
        there is none). Keys are this cache's own names: no validation, as for every hot-path call."""
        return self._cache.count_hit(self.make_key(key), timeout, None if read_key is None else self.make_key(read_key))


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
