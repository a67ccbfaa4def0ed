"""The one base for every endpoint that lists or addresses account-owned rows.

``get_queryset`` and ``get_object`` cannot be overridden (the class refuses at import time):
subclasses refine the already-scoped queryset in ``scoped_queryset``. Rows of other accounts
are therefore invisible, and addressing one by id answers 404.
"""

from inkwell.api.views import ApiGenericViewSet
from inkwell.tenancy.access import restrict_to_accessible_sites

PROTECTED_METHODS = ("get_queryset", "get_object")


class AccountScopedViewSet(ApiGenericViewSet):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in PROTECTED_METHODS:
            # Resolved through the MRO, so a mixin listed ahead of this base cannot slip one in either.
            if getattr(cls, name) is not getattr(AccountScopedViewSet, name):
                raise TypeError(f"{cls.__name__} must not override {name}(); refine scoped_queryset() instead")

    def get_queryset(self):
        queryset = self.queryset.all().for_account(self.request.account)
        return self.scoped_queryset(restrict_to_accessible_sites(queryset, self.request))

    def scoped_queryset(self, queryset):
        """Hook for select_related, annotations and per-action filters on the scoped queryset."""
        return queryset
