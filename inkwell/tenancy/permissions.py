from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission

from inkwell.api.exceptions import PlanInactive
from inkwell.tenancy.models import CONTENT_WRITER_ROLES, RoleName

ALL_ROLES = frozenset(RoleName.values)


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
        return True
