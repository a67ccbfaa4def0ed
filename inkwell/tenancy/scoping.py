"""Fail-closed tenant scoping for models that belong to an account.

``Model.objects`` returns querysets that refuse to run until ``for_account(account)`` has been
applied: forgetting the account raises ``UnscopedQueryError`` instead of leaking rows. Code that
must see every account (admin, migrations, staff tooling, background sweeps) says so by using
``Model.dangerously_unscoped``, which is easy to grep for in review.

Related managers (``site.sectors.all()``) and foreign-key access use Django's default manager,
which is the unscoped one: they are reached from an object that was itself loaded through a
scoped query, so they cannot cross an account boundary.
"""

from django.db import models


class UnscopedQueryError(RuntimeError):
    """An account-owned queryset was evaluated without ``for_account``."""


class AccountScopedQuerySet(models.QuerySet):
    _account_scoped = False

    def _clone(self):
        clone = super()._clone()
        clone._account_scoped = self._account_scoped
        return clone

    def for_account(self, account) -> "AccountScopedQuerySet":
        queryset = self.filter(account=account)
        queryset._account_scoped = True
        return queryset

    def _mark_unscoped_on_purpose(self) -> "AccountScopedQuerySet":
        queryset = self._chain()
        queryset._account_scoped = True
        return queryset

    def _require_scope(self) -> None:
        if not self._account_scoped and not self.query.is_empty():
            raise UnscopedQueryError(
                f"{self.model.__name__} query without for_account(); use "
                f"{self.model.__name__}.dangerously_unscoped if every account is really meant"
            )

    def _fetch_all(self):
        if self._result_cache is None:
            self._require_scope()
        super()._fetch_all()

    def iterator(self, *args, **kwargs):
        self._require_scope()
        return super().iterator(*args, **kwargs)

    def count(self):
        self._require_scope()
        return super().count()

    def exists(self):
        self._require_scope()
        return super().exists()

    def contains(self, obj):
        self._require_scope()
        return super().contains(obj)

    def aggregate(self, *args, **kwargs):
        self._require_scope()
        return super().aggregate(*args, **kwargs)

    def update(self, **kwargs):
        self._require_scope()
        return super().update(**kwargs)

    def delete(self):
        self._require_scope()
        return super().delete()

    def in_bulk(self, *args, **kwargs):
        self._require_scope()
        return super().in_bulk(*args, **kwargs)


class AccountScopedManager(models.Manager.from_queryset(AccountScopedQuerySet)):
    pass


class UnscopedManager(models.Manager.from_queryset(AccountScopedQuerySet)):
    """Every account's rows, on purpose. Only reachable as ``dangerously_unscoped``."""

    def get_queryset(self):
        return super().get_queryset()._mark_unscoped_on_purpose()
