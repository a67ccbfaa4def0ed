"""The production cache backend, and the invalidation of values cached from database rows.

``RedisCache`` is Django's Redis cache with one redis-py client per connection pool.
Django builds a new ``redis.Redis`` object for every cache call, about 0.2 ms of Python each time;
the rate limiter and the principal cache call it on every request. A client is thread-safe and
takes its connections from the pool, so one per pool serves every call of the process.

The Lua scripts below run on every authenticated request, and a ``GET`` of the session or the
principal on most; redis-py 8 spends about 36 µs of Python a command around the round trip (taking
and returning a pooled connection, retries, its metrics hooks), more than the round trip itself
(24 µs on loopback). So each thread sends these on a connection of its own, opened with the pool's
settings and kept for the thread's life (``HotPathConnection``): 43 µs a script call against 79 µs
through the client (``bench/redis_scripts.py``). Every other command goes through the client.

``count_hit`` is the rate limiter's counter as one Lua script, which can read one more key in the
same round trip: a Bearer request counts its hit and reads its principal at once.

Versioned counts are values computed from rows that many writes change (a member's unread
notifications): a version key per group of rows, bumped by every write to them, and the count
stored under the version it was computed at. Reading the version and the count is one round trip;
storing a count is refused when the version moved while it was computed, so a count read from the
rows before a write can never be stored after the write's bump.
"""

import hashlib
import logging
import os
import threading

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.db import transaction
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

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
# KEYS[1] the version (absent: 0), KEYS[2] the value's name without its version.
VERSIONED_GET_SCRIPT = """
local version = redis.call('GET', KEYS[1]) or '0'
return {version, redis.call('GET', KEYS[2] .. '@' .. version)}
"""
# ARGV: the version the value was computed at, the value, its timeout in seconds.
VERSIONED_SET_SCRIPT = """
if (redis.call('GET', KEYS[1]) or '0') == ARGV[1] then
    redis.call('SET', KEYS[2] .. '@' .. ARGV[1], ARGV[2], 'EX', ARGV[3])
    return 1
end
return 0
"""
# A version outlives every value stored under it by far: a version key that expired (no write for
# a day) starts again at 0, and no value of an earlier 0 can still exist then.
VERSION_SECONDS = 24 * 3600


class HotPathConnection(threading.local):
    """One thread's own connection to the primary, for the commands of every request: the scripts
    (EVALSHA straight on a redis-py ``Connection``, the script loaded once when Redis does not know
    it: a restart, a ``SCRIPT FLUSH``) and ``GET`` (sessions, principals). A connection Redis
    dropped while idle is opened again and the command sent once more, as the client's retry
    would; any other failure closes it, so that no half-read reply is ever taken for the next
    command's. A forked child opens its own."""

    def __init__(self, pool):
        self.pool = pool
        self.connection = None
        self.pid = None

    def _connection(self):
        if self.connection is None or self.pid != os.getpid():
            self.connection = self.pool.connection_class(**self.pool.connection_kwargs)
            self.pid = os.getpid()
        return self.connection

    def command(self, *args):
        return self._retried(self._send, args)

    def run_script(self, sha: str, source: str, keys: list[str], args: list) -> list:
        return self._retried(self._evalsha, (sha, source, keys, args))

    def _retried(self, send, args):
        connection = self._connection()
        try:
            return self._closed_on_failure(connection, send, args)
        except (RedisConnectionError, RedisTimeoutError):
            connection.disconnect()
            return self._closed_on_failure(connection, send, args)

    @staticmethod
    def _closed_on_failure(connection, send, args):
        try:
            return send(connection, *args)
        except ResponseError:
            raise  # a whole reply was read: the connection is fine
        except BaseException:
            connection.disconnect()
            raise

    @staticmethod
    def _send(connection, *args):
        connection.send_command(*args)
        return connection.read_response()

    @classmethod
    def _evalsha(cls, connection, sha: str, source: str, keys: list[str], args: list) -> list:
        try:
            return cls._send(connection, "EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            cls._send(connection, "SCRIPT", "LOAD", source)
            return cls._send(connection, "EVALSHA", sha, len(keys), *keys, *args)


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}
        self._hot_path = None
        self._script_shas = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = super().get_client(key, write=write)
        return client

    def hot_path(self) -> HotPathConnection:
        if self._hot_path is None:
            self._hot_path = HotPathConnection(self._get_connection_pool(write=True))
        return self._hot_path

    def get(self, key, default):
        value = self.hot_path().command("GET", key)
        return default if value is None else self._serializer.loads(value)

    def run_script(self, source: str, keys: list[str], args: list) -> list:
        sha = self._script_shas.get(source)
        if sha is None:
            sha = self._script_shas[source] = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()
        return self.hot_path().run_script(sha, source, keys, args)

    def count_hit(self, key: str, timeout: int, read_key: str | None) -> tuple[int, object]:
        reply = self.run_script(COUNT_HIT_SCRIPT, [key] if read_key is None else [key, read_key], [timeout])
        value = reply[1] if len(reply) > 1 else None
        return reply[0], None if value is None else self._serializer.loads(value)

    def bump(self, keys: list[str]) -> None:
        pipeline = self.get_client(keys[0], write=True).pipeline(transaction=False)
        for key in keys:
            pipeline.incr(key)
            pipeline.expire(key, VERSION_SECONDS)
        pipeline.execute()


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient

    def count_hit(self, key: str, *, timeout: int, read_key: str | None = None) -> tuple[int, object]:
        """Increments the counter ``key`` (created at 0, expiring in ``timeout`` seconds) and reads
        the cached value of ``read_key``, in one round trip: the new count and the value (None when
        there is none). Keys are this cache's own names: no validation, as for every hot-path call."""
        return self._cache.count_hit(self.make_key(key), timeout, None if read_key is None else self.make_key(read_key))

    def run_script(self, source: str, keys: list[str], args: list) -> list:
        """Runs the Lua script ``source`` on this cache's names of ``keys``, in one round trip."""
        return self._cache.run_script(source, [self.make_key(key) for key in keys], args)

    def get_versioned_count(self, version_key: str, key: str) -> tuple[bytes, int | None]:
        """The current version of ``version_key`` and the count ``key`` stored at that version (None
        when there is none), in one round trip."""
        version, value = self._cache.run_script(VERSIONED_GET_SCRIPT, [self.make_key(version_key), self.make_key(key)], [])
        return version, None if value is None else int(value)

    def set_versioned_count(self, version_key: str, version: bytes, key: str, count: int, *, timeout: int) -> bool:
        """Stores ``count`` at ``version`` unless ``version_key`` moved on since it was read; whether it did."""
        return bool(self._cache.run_script(VERSIONED_SET_SCRIPT, [self.make_key(version_key), self.make_key(key)], [version, count, timeout]))

    def bump_versions(self, version_keys: list[str]) -> None:
        """Moves every one of ``version_keys`` on: the counts stored at their old versions are never read again."""
        if version_keys:
            self._cache.bump([self.make_key(key) for key in version_keys])


def forget_versions(version_keys: list[str]) -> None:
    """Bumps the version keys of counts derived from rows a transaction changes: now, and again when
    it commits (see ``forget``). Only the Redis cache keeps versioned counts; elsewhere nothing is
    kept, so there is nothing to bump."""
    backend = caches["default"]
    if not version_keys or not isinstance(backend, RedisCache):
        return
    _bump(backend, version_keys)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: _bump(backend, version_keys))


def _bump(backend, version_keys: list[str]) -> None:
    try:
        backend.bump_versions(version_keys)
    except Exception:
        logger.error("cache unavailable; %d versions not bumped", len(version_keys), exc_info=True)


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
