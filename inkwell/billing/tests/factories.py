"""Ledger rows of one account for the cross-account matrix (tests/test_cross_account_matrix.py)."""

from inkwell.billing import services
from inkwell.billing.models import CreditTransaction, CreditUsage


def _usage(tenant, marker: str) -> CreditUsage:
    services.grant(account=tenant.account, amount=5, description=marker)
    return services.spend(account=tenant.account, operation_type="keyword_purchase", amount=1, related=("seed_keyword", 1), description=marker)


def _transaction(tenant, marker: str) -> CreditTransaction:
    return services.grant(account=tenant.account, amount=5, description=marker)


CROSS_ACCOUNT_FACTORIES = {CreditUsage: _usage, CreditTransaction: _transaction}
