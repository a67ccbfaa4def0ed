"""The principal of a token: the user with their account, subscription, plan and role, kept in the cache.

Every Bearer request needs it, and building and compiling its five-table query cost more than the
query itself. So the rows are kept in the shared cache, one key per user, as plain tuples of column
values (not pickled model objects), and the model objects are rebuilt from them without the ORM's
query machinery. The key names the columns of the five models, so a deploy that changes a column
never reads an entry of the old shape.

An entry lives ``PRINCIPAL_CACHE_SECONDS`` at most (0, the embedded default, turns the cache off:
there the cache is a database table), and every change that matters deletes it: a save
or delete of the user, their account, subscription, plan or role (``inkwell.tenancy.signals``), and
``forget`` from the writes that bypass ``save`` (``tokens.revoke_all_tokens``: logout, password
change and reset, deactivation). A token whose version differs from the cached one reads the
database, so a cache that missed an invalidation can never accept an older token than the database.

On Redis a Bearer request reads its principal in the round trip that counts its rate-limit hit
(``user_counting_hit``); the throttle then takes that count. A session reads it through
``tenancy.backends.PrincipalBackend`` (``session_user``), and a console request counts its hit in
that round trip too (``counting_hit``).
"""

import hashlib
import logging
from collections.abc import Iterable
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.core.cache import cache, caches

from inkwell.api import cache as cached_values
from inkwell.api.cache import RedisCache
from inkwell.api.throttling import COUNTER_SECONDS
from inkwell.tenancy.models import Account, Plan, Role, Subscription, User

logger = logging.getLogger(__name__)

PRINCIPAL_MODELS = (User, Account, Subscription, Plan, Role)


def _columns(model) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


SHAPE = hashlib.sha256(repr([_columns(model) for model in PRINCIPAL_MODELS]).encode()).hexdigest()[:12]


def cache_key(user_id: int) -> str:
    return f"principal:{SHAPE}:{user_id}"


def _values(instance) -> tuple | None:
    return None if instance is None else tuple(getattr(instance, column) for column in _columns(type(instance)))


def _rows(user: User) -> tuple:
    """The five rows of a user loaded with ``select_related("account__subscription__plan", "role")``."""
    account = user.account if user.account_id else None
    subscription = getattr(account, "subscription", None) if account is not None else None
    plan = subscription.plan if subscription is not None else None
    return (_values(user), _values(account), _values(subscription), _values(plan), _values(user.role if user.role_id else None))


def _instance(model, values: tuple | None, db: str):
    if values is None:
        return None
    instance = model(*values)
    instance._state.adding = False
    instance._state.db = db
    return instance


def _user_from_rows(rows: tuple, db: str) -> User:
    """The user with the related objects set as ``select_related`` sets them: no query reads them."""
    user_values, account_values, subscription_values, plan_values, role_values = rows
    user = _instance(User, user_values, db)
    account = _instance(Account, account_values, db)
    User.account.field.set_cached_value(user, account)
    User.role.field.set_cached_value(user, _instance(Role, role_values, db))
    if account is not None:
        subscription = _instance(Subscription, subscription_values, db)
        Account.subscription.related.set_cached_value(account, subscription)
        if subscription is not None:
            Subscription.account.field.set_cached_value(subscription, account)
            Subscription.plan.field.set_cached_value(subscription, _instance(Plan, plan_values, db))
    return user


def _load(user_id: int) -> User | None:
    return User.dangerously_unscoped.select_related("account__subscription__plan", "role").filter(pk=user_id).first()


def user(user_id: int, *, token_version: int) -> User | None:
    """The user ``user_id`` with account, subscription, plan and role; None when there is none.

    From the cache when its entry carries ``token_version``; otherwise from the database, and then
    cached when the user is active and of that version. The caller still checks both.
    """
    return user_counting_hit(user_id, token_version=token_version, counter_key=None)[0]


def user_counting_hit(user_id: int, *, token_version: int | None, counter_key: str | None) -> tuple[User | None, int | None]:
    """``user``, and on Redis the rate-limit hit of the request counted in the same round trip:
    (user, the counter's new value), or (user, None) when nothing was counted. A ``token_version``
    of None takes the cached entry whatever its version (a session carries none)."""
    timeout = settings.INKWELL_PRINCIPAL_CACHE_SECONDS
    if not timeout:
        return _load(user_id), None
    db = User.dangerously_unscoped.db
    key = cache_key(user_id)
    backend = caches["default"]
    count = None
    try:
        if counter_key is not None and isinstance(backend, RedisCache):
            count, rows = backend.count_hit(counter_key, timeout=COUNTER_SECONDS, read_key=key)
        else:
            rows = cache.get(key)
    except Exception:  # a cache outage must not take authentication down with it
        logger.warning("principal cache unavailable; reading the database", exc_info=True)
        return _load(user_id), None
    if rows is not None:
        cached = _user_from_rows(rows, db)
        if token_version in (None, cached.token_version):
            return cached, count
    return _load_and_keep(user_id, timeout=timeout, token_version=token_version), count


def _load_and_keep(user_id: int, *, timeout: int, token_version: int | None) -> User | None:
    """The user from the database, then cached when active (and of ``token_version`` when given)."""
    loaded = _load(user_id)
    if loaded is not None and loaded.is_active and token_version in (None, loaded.token_version):
        try:
            cache.set(cache_key(user_id), _rows(loaded), timeout=timeout)
        except Exception:
            logger.warning("principal cache unavailable; not cached", exc_info=True)
    return loaded


# The rate-limit hit a console request counts while its session's user is read (``counting_hit``):
# the counter's key, and the list its new count goes into.
_hit_to_count: ContextVar[tuple[str, list[int]] | None] = ContextVar("principal_hit_to_count", default=None)


@contextmanager
def counting_hit(counter_key: str):
    """While inside, ``session_user`` on Redis counts the hit ``counter_key`` in the round trip that
    reads the principal, as a Bearer request does; the list it yields then holds the new count.
    Django's session authentication calls the backend with the user id alone, hence the context."""
    counted: list[int] = []
    token = _hit_to_count.set((counter_key, counted))
    try:
        yield counted
    finally:
        _hit_to_count.reset(token)


def session_user(user_id: int) -> User | None:
    """The user of a signed-in session, with account, subscription, plan and role, as ``user``
    reads them but whatever the token version: a session does not carry one. Django then checks
    the session against the user's password hash (``get_session_auth_hash``), as for any session.
    The console reads this on every page and every poll of its fragments, inside ``counting_hit``."""
    hit = _hit_to_count.get()
    user, count = user_counting_hit(user_id, token_version=None, counter_key=None if hit is None else hit[0])
    if count is not None:
        hit[1].append(count)
    return user


def forget(user_ids: Iterable[int]) -> None:
    """Deletes the cached principals of ``user_ids``, now and when the transaction commits."""
    if settings.INKWELL_PRINCIPAL_CACHE_SECONDS:
        cached_values.forget([cache_key(user_id) for user_id in user_ids])
