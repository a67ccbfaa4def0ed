import pytest

from inkwell.billing import services
from inkwell.billing.models import CreditLedger


@pytest.fixture
def funded(tenant):
    """``funded(n)``: the tenant's account holding exactly ``n`` credits."""

    def fund(credits: int):
        ledger = CreditLedger.objects.for_account(tenant.account).get()
        if credits > ledger.balance:
            services.grant(account=tenant.account, amount=credits - ledger.balance, description="test funds")
        elif credits < ledger.balance:
            services.spend(account=tenant.account, operation_type="linking", amount=ledger.balance - credits, description="test drain")
        return tenant.account

    return fund
