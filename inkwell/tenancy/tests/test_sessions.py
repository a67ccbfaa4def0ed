"""The production profile's session store (inkwell.tenancy.sessions): the cache speeds sessions up
and is never needed."""

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import caches

from inkwell.api.cache import RedisCache
from inkwell.tenancy.sessions import OutageTolerantCache, SessionStore

# Nothing listens on port 1: every command is refused at once.
UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"


def store_with_cache(cache, session_key=None) -> SessionStore:
    store = SessionStore(session_key)
    store._cache = OutageTolerantCache(cache, 300)
    return store


@pytest.mark.django_db
def test_a_session_is_saved_read_and_deleted_in_the_database_while_the_cache_is_unreachable():
    unreachable = RedisCache(UNREACHABLE_REDIS, {})
    store = store_with_cache(unreachable)
    store["console_site_id"] = 7
    store.create()

    again = store_with_cache(unreachable, store.session_key)
    assert again["console_site_id"] == 7
    assert again.exists(store.session_key)

    again.delete()
    assert not Session.objects.filter(session_key=store.session_key).exists()


@pytest.mark.django_db
def test_a_session_is_kept_in_the_cache_no_longer_than_a_principal(settings):
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        pytest.skip("the production profile's Redis cache (REDIS_URL)")
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300
    store = SessionStore()
    store["console_site_id"] = 7
    store.create()

    ttl = backend._cache.get_client(write=True).ttl(backend.make_key(store.cache_key))
    assert 0 < ttl <= 300
    assert SessionStore(store.session_key)["console_site_id"] == 7
