"""Usage over time (``selectors.usage_by_day``): credits per UTC day and operation, what the
console's Credits and plan chart draws."""

from datetime import UTC, datetime, timedelta

import pytest

from inkwell.billing import selectors, services
from inkwell.billing.models import CreditUsage

pytestmark = pytest.mark.django_db

TODAY = datetime(2026, 3, 10, 12, tzinfo=UTC)


def charge(account, operation: str, credits: int, at: datetime) -> CreditUsage:
    usage = services.spend(account=account, operation_type=operation, amount=credits)
    CreditUsage.objects.for_account(account).filter(pk=usage.pk).update(created_at=at)
    return usage


def test_credits_are_summed_per_day_and_operation_and_days_without_charges_are_zero(tenant):
    charge(tenant.account, "clustering", 2, TODAY)
    charge(tenant.account, "clustering", 3, TODAY - timedelta(hours=11))
    charge(tenant.account, "content_generation", 7, TODAY - timedelta(days=2))
    usage = selectors.usage_by_day(tenant.account, last_day=TODAY.date(), days=3)
    assert usage["days"] == [TODAY.date() - timedelta(days=2), TODAY.date() - timedelta(days=1), TODAY.date()]
    assert usage["series"] == [
        {"operation_type": "content_generation", "label": "Content generation", "credits": [7, 0, 0], "total": 7},
        {"operation_type": "clustering", "label": "Keyword clustering", "credits": [0, 0, 5], "total": 5},
    ]


def test_days_are_utc_days_and_charges_outside_the_period_are_left_out(tenant):
    charge(tenant.account, "linking", 1, datetime(2026, 3, 9, 23, 59, tzinfo=UTC))
    charge(tenant.account, "linking", 4, datetime(2026, 3, 10, 0, 0, tzinfo=UTC))
    charge(tenant.account, "linking", 9, datetime(2026, 3, 11, 0, 0, tzinfo=UTC))
    charge(tenant.account, "linking", 8, datetime(2026, 3, 7, 23, 59, tzinfo=UTC))
    usage = selectors.usage_by_day(tenant.account, last_day=TODAY.date(), days=2)
    assert usage["series"] == [{"operation_type": "linking", "label": "Internal linking", "credits": [1, 4], "total": 5}]


def test_a_refunded_charge_costs_nothing_and_another_accounts_charges_are_not_counted(tenant, other_tenant):
    refunded = charge(tenant.account, "optimization", 5, TODAY)
    services.refund(usage=refunded)
    charge(other_tenant.account, "optimization", 6, TODAY)
    assert selectors.usage_by_day(tenant.account, last_day=TODAY.date(), days=1)["series"] == []
