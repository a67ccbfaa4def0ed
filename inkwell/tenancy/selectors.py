"""Reads of the tenancy domain."""

from django.db.models import Prefetch

from inkwell.tenancy.models import Account, SiteUserAccess, User


def user_with_account(user_id: int) -> User:
    """A user with everything a response or a permission check reads, in one query."""
    return User.dangerously_unscoped.select_related("account__subscription__plan", "role").get(pk=user_id)


def account_user(account: Account, user_id: int) -> User:
    return (
        User.objects.for_account(account)
        .select_related("role", "account")
        .prefetch_related(Prefetch("site_access", queryset=SiteUserAccess.dangerously_unscoped.only("id", "user_id", "site_id")))
        .get(pk=user_id)
    )
