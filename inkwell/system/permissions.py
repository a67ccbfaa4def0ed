from rest_framework.permissions import BasePermission

from inkwell.api.exceptions import ModuleDisabled
from inkwell.system.selectors import disabled_modules


class ModuleEnabled(BasePermission):
    """Refuses (403 ``module_disabled``) a view whose ``module`` the account switched off.

    Listed after ``IsAccountMember``, which sets ``request.account``. Views without a ``module``
    attribute cost nothing; the others one indexed query per request, whatever number of checks.
    """

    def has_permission(self, request, view) -> bool:
        module = getattr(view, "module", None)
        account = getattr(request, "account", None)
        if module is None or account is None:
            return True
        if not hasattr(request, "disabled_modules"):
            request.disabled_modules = disabled_modules(account)
        if module in request.disabled_modules:
            raise ModuleDisabled()
        return True
