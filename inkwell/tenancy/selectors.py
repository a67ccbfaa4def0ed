"""Reads of the tenancy domain."""

from django.db.models import Prefetch, QuerySet

from inkwell.tenancy.models import Account, ApiKey, SiteUserAccess, User


def user_with_account(user_id: int) -> User:
    """A user with everything a response or a permission check reads, in one query."""
    return User.dangerously_unscoped.select_related("account__subscription__plan", "role").get(pk=user_id)


def own_user(user: User) -> dict:
    """``/auth/me/``: what ``UserSerializer`` writes, built directly from the (cached) principal;
    the console polls it. Datetimes are left to the renderer, which writes them as DRF does."""
    return {
        "id": user.pk,
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "role": user.role_name,
        "account": {"id": user.account.pk, "name": user.account.name} if user.account_id else None,
        "is_active": user.is_active,
        "is_staff": user.is_staff,
        "date_joined": user.date_joined,
        "last_login": user.last_login,
    }


def account_members(account: Account) -> QuerySet:
    """The account's people with their role and the sites granted to them, in two queries."""
    return (
        User.objects.for_account(account)
        .select_related("role", "account")
        .prefetch_related(Prefetch("site_access", queryset=SiteUserAccess.dangerously_unscoped.only("id", "user_id", "site_id")))
    )


def account_user(account: Account, user_id: int) -> User:
    return account_members(account).get(pk=user_id)


def account_api_keys(account: Account) -> QuerySet:
    """The account's API keys, newest first, with the site each is bound to and who made it."""
    return ApiKey.objects.for_account(account).select_related("site", "user").order_by("-created_at", "-id")
