"""The session engine of the production profile: rows in the database, read through the cache.

Django's ``cached_db`` store, with two changes, so that the cache speeds sessions up without ever
being needed: a cache outage is a miss (read and deleted in the database alone; Django guards only
its ``save``), and a session is kept in the cache ``PRINCIPAL_CACHE_SECONDS`` at most rather than
its whole life. A sign-out while Redis is unreachable deletes the row but cannot delete the cached
copy, which is then read for at most that long, as a cached principal is (docs/operations.md,
"Outages"). Each poll of a console fragment reads its session from Redis instead of a row.
"""

import logging

from django.conf import settings
from django.contrib.sessions.backends import cached_db

logger = logging.getLogger(__name__)


class OutageTolerantCache:
    """The cache as the store sees it: every error logged and answered as a miss, every value kept
    ``seconds`` at most."""

    def __init__(self, cache, seconds: int):
        self.cache = cache
        self.seconds = seconds

    def get(self, key, default=None):
        try:
            return self.cache.get(key, default)
        except Exception:
            logger.warning("session cache unavailable; reading the database", exc_info=True)
            return default

    def set(self, key, value, timeout):
        try:
            self.cache.set(key, value, min(timeout, self.seconds))
        except Exception:
            logger.warning("session cache unavailable; not cached", exc_info=True)

    def delete(self, key):
        try:
            self.cache.delete(key)
        except Exception:
            logger.warning("session cache unavailable; the cached session expires on its own", exc_info=True)

    def __contains__(self, key) -> bool:
        try:
            return key in self.cache
        except Exception:
            logger.warning("session cache unavailable; asking the database", exc_info=True)
            return False


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key=None):
        super().__init__(session_key)
        self._cache = OutageTolerantCache(self._cache, settings.INKWELL_PRINCIPAL_CACHE_SECONDS)
