from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission

from inkwell.api.exceptions import PlanInactive
from inkwell.tenancy.models import CONTENT_WRITER_ROLES, ApiKey, RoleName

ALL_ROLES = frozenset(RoleName.values)


def api_key_may_write(view, key: ApiKey) -> bool:
    """What a machine credential may change.

    No key acts on a person's own credentials (``human_only`` views: logout, password change).
    A key bound to a site may change only rows that belong to a site (its own, enforced by the
    scoped querysets): never users, keys, the account, or the set of sites.
    """
    if getattr(view, "human_only", False):
        return False
    if key.site_id is None:
        return True
    model = getattr(getattr(view, "queryset", None), "model", None)
    return getattr(model, "site_field", None) not in (None, "pk")


def account_of(user):
    """The user's account with its subscription; None for staff who belong to no account."""
    return user.account if user.account_id else None


class IsAccountMember(BasePermission):
    """The default for every endpoint: an authenticated member of an account with an active plan,
    whose role allows the method.

    Views tune it with ``read_roles`` and ``write_roles`` (an ``@action`` may set its own) and
    ``allow_inactive_plan`` for the endpoints the contract keeps open to lapsed accounts. It also
    sets ``request.account``, the one place tenancy starts from.
    """

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        account = account_of(user)
        if account is None or user.role_id is None:
            raise PermissionDenied()
        request.account = account
        if not getattr(view, "allow_inactive_plan", False):
            subscription = getattr(account, "subscription", None)
            if subscription is None or not subscription.is_active:
                raise PlanInactive()
        allowed = getattr(view, "read_roles", ALL_ROLES) if request.method in SAFE_METHODS else getattr(view, "write_roles", CONTENT_WRITER_ROLES)
        if user.role_name not in allowed:
            raise PermissionDenied()
        if request.method not in SAFE_METHODS and isinstance(request.auth, ApiKey) and not api_key_may_write(view, request.auth):
            raise PermissionDenied()
        return True
