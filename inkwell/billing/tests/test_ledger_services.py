"""billing.services: every change of a balance is locked, recorded and consistent."""

from datetime import timedelta

import pytest
from django.utils import timezone

from inkwell.api.exceptions import InsufficientCredits, StateConflict
from inkwell.billing import services
from inkwell.billing.models import CreditLedger, CreditReservation, CreditTransaction, CreditUsage, ReservationStatus, TransactionType
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.notifications.models import Notification
from inkwell.tenancy.models import Plan, Subscription

pytestmark = pytest.mark.django_db


def test_registration_opens_a_ledger_with_the_signup_grant_as_its_first_transaction(tenant):
    entry = CreditTransaction.objects.for_account(tenant.account).get()
    assert (entry.transaction_type, entry.amount, entry.balance_after) == (TransactionType.CREDIT_GRANT, 100, 100)
    assert balance_of(tenant.account) == 100
    assert_ledger_consistent(tenant.account)


@pytest.mark.parametrize(
    ("operation", "units", "credits"),
    [("content_generation", 1500, 15), ("content_generation", 1501, 16), ("clustering", 1, 1), ("clustering", 41, 3), ("image_generation", 4, 8), ("linking", 0, 0)],
)
def test_costs_come_from_the_cost_table_per_started_unit(operation, units, credits):
    assert services.cost_of(operation_type=operation, units=units) == credits


def test_cost_table_can_be_overridden(settings):
    settings.INKWELL_CREDIT_COSTS = {**settings.INKWELL_CREDIT_COSTS, "image_generation": {"credits": 5, "per": 1, "unit": "image"}}
    assert services.cost_of(operation_type="image_generation", units=2) == 10


def test_spend_charges_once_and_records_usage_and_transaction(funded):
    account = funded(50)
    usage = services.spend(account=account, operation_type="keyword_purchase", amount=30, related=("seed_keyword", 7), description="3 paid keywords")
    assert balance_of(account) == 20
    assert (usage.credits_used, usage.related_object_type, usage.related_object_id) == (30, "seed_keyword", 7)
    entry = CreditTransaction.objects.for_account(account).get(usage=usage)
    assert (entry.transaction_type, entry.amount, entry.balance_after) == (TransactionType.USAGE, -30, 20)
    assert_ledger_consistent(account)


def test_spend_beyond_the_balance_is_refused_and_changes_nothing(funded):
    account = funded(10)
    usages_before = CreditUsage.objects.for_account(account).count()
    with pytest.raises(InsufficientCredits):
        services.spend(account=account, operation_type="keyword_purchase", amount=11)
    assert balance_of(account) == 10
    assert CreditUsage.objects.for_account(account).count() == usages_before
    assert_ledger_consistent(account)


def test_a_free_operation_records_nothing(funded):
    account = funded(10)
    assert services.spend(account=account, operation_type="keyword_purchase", amount=0) is None
    assert balance_of(account) == 10


def test_reserve_holds_credits_without_charging(funded):
    account = funded(20)
    reservation = services.reserve(account=account, operation_type="content_generation", amount=15)
    assert balance_of(account) == 20
    assert CreditLedger.objects.for_account(account).get().available == 5
    with pytest.raises(InsufficientCredits):
        services.reserve(account=account, operation_type="content_generation", amount=6)
    with pytest.raises(InsufficientCredits):
        services.spend(account=account, operation_type="keyword_purchase", amount=6)
    assert reservation.status == ReservationStatus.HELD
    assert_ledger_consistent(account)


def test_settle_charges_a_reservation_exactly_once(funded):
    account = funded(20)
    reservation = services.reserve(account=account, operation_type="content_generation", amount=15, related=("task", 3))
    usage = services.settle(reservation=reservation, model="gpt-test", prompt_tokens=120, completion_tokens=900)
    assert services.settle(reservation=reservation) is None
    assert balance_of(account) == 5
    assert (usage.credits_used, usage.model, usage.prompt_tokens, usage.completion_tokens) == (15, "gpt-test", 120, 900)
    assert (usage.related_object_type, usage.related_object_id) == ("task", 3)
    assert CreditReservation.objects.for_account(account).get().status == ReservationStatus.SETTLED
    assert_ledger_consistent(account)


def test_a_partial_settle_charges_part_and_frees_the_rest(funded):
    account = funded(20)
    reservation = services.reserve(account=account, operation_type="image_generation", amount=8)
    services.settle(reservation=reservation, amount=2)
    assert balance_of(account) == 18
    assert CreditLedger.objects.for_account(account).get().reserved == 0
    assert_ledger_consistent(account)


def test_settling_more_than_was_reserved_is_a_programming_error(funded):
    account = funded(20)
    reservation = services.reserve(account=account, operation_type="image_generation", amount=4)
    with pytest.raises(ValueError):
        services.settle(reservation=reservation, amount=5)
    assert_ledger_consistent(account)


def test_release_frees_a_reservation_at_no_cost_and_only_once(funded):
    account = funded(20)
    usages_before = CreditUsage.objects.for_account(account).count()
    reservation = services.reserve(account=account, operation_type="clustering", amount=12)
    assert services.release(reservation=reservation) is True
    assert services.release(reservation=reservation) is False
    assert services.settle(reservation=reservation) is None
    assert balance_of(account) == 20
    assert CreditUsage.objects.for_account(account).count() == usages_before
    assert_ledger_consistent(account)


def test_refund_gives_credits_back_once(funded):
    account = funded(20)
    usage = services.spend(account=account, operation_type="keyword_purchase", amount=8)
    entry = services.refund(usage=usage, description="keyword unavailable")
    assert (entry.transaction_type, entry.amount, entry.balance_after) == (TransactionType.REFUND, 8, 20)
    with pytest.raises(StateConflict):
        services.refund(usage=usage)
    assert balance_of(account) == 20
    assert_ledger_consistent(account)


def _alerts(account, notification_type):
    return Notification.objects.for_account(account).filter(notification_type=notification_type)


def test_credits_low_and_depleted_are_raised_once_per_crossing(tenant):
    account = tenant.account  # free plan: 100 monthly credits, low mark 10; 100 credits at sign-up
    services.spend(account=account, operation_type="keyword_purchase", amount=85)  # 15 left
    services.spend(account=account, operation_type="keyword_purchase", amount=4)  # 11: still above the mark
    assert not _alerts(account, "credits_low").exists()
    services.spend(account=account, operation_type="keyword_purchase", amount=2)  # 9: crosses
    services.spend(account=account, operation_type="keyword_purchase", amount=1)  # 8: already below
    assert _alerts(account, "credits_low").count() == 1
    low = _alerts(account, "credits_low").get()
    assert (low.severity, low.metadata, low.action_url) == ("warning", {"credits": 9}, "/app/credits/")
    services.spend(account=account, operation_type="keyword_purchase", amount=8)  # 0
    assert _alerts(account, "credits_depleted").count() == 1
    with pytest.raises(InsufficientCredits):
        services.spend(account=account, operation_type="keyword_purchase", amount=1)
    assert _alerts(account, "credits_depleted").count() == 1
    services.grant(account=account, amount=20)
    services.spend(account=account, operation_type="keyword_purchase", amount=15)  # 20 → 5: a new crossing
    assert _alerts(account, "credits_low").count() == 2
    assert_ledger_consistent(account)


def test_a_reservation_alone_raises_no_alert_its_settlement_does(tenant):
    account = tenant.account
    reservation = services.reserve(account=account, operation_type="content_generation", amount=95)
    assert not _alerts(account, "credits_low").exists()
    services.settle(reservation=reservation)
    assert _alerts(account, "credits_low").count() == 1


def _end_period(account, *, days_ago: int = 0):
    subscription = Subscription.objects.for_account(account).get()
    subscription.current_period_end = timezone.now() - timedelta(days=days_ago, seconds=1)
    subscription.save(update_fields=["current_period_end"])
    return subscription


def test_monthly_renewal_tops_the_balance_up_to_the_plans_credits(tenant):
    account = tenant.account
    services.spend(account=account, operation_type="keyword_purchase", amount=70)
    ended = _end_period(account)
    assert services.renew_monthly_credits() == 1
    assert balance_of(account) == 100
    entry = CreditTransaction.objects.for_account(account).filter(transaction_type=TransactionType.MONTHLY_RESET).get()
    assert (entry.amount, entry.balance_after) == (70, 100)
    subscription = Subscription.objects.for_account(account).get()
    assert subscription.current_period_start == ended.current_period_end
    assert subscription.current_period_end > timezone.now()
    assert services.renew_monthly_credits() == 0, "a period is renewed once"
    assert_ledger_consistent(account)


def test_monthly_renewal_keeps_credits_above_the_allowance(tenant):
    account = tenant.account
    services.grant(account=account, amount=400, transaction_type=TransactionType.PURCHASE)
    _end_period(account)
    services.renew_monthly_credits()
    assert balance_of(account) == 500
    assert not CreditTransaction.objects.for_account(account).filter(transaction_type=TransactionType.MONTHLY_RESET).exists()


def test_monthly_renewal_catches_up_missed_periods_with_one_top_up(tenant):
    account = tenant.account
    Subscription.objects.for_account(account).update(plan=Plan.objects.get(slug="starter"))
    _end_period(account, days_ago=65)
    services.renew_monthly_credits()
    assert balance_of(account) == 1000
    assert Subscription.objects.for_account(account).get().current_period_end > timezone.now()
    assert CreditTransaction.objects.for_account(account).filter(transaction_type=TransactionType.MONTHLY_RESET).count() == 1


def test_monthly_renewal_skips_inactive_subscriptions(tenant):
    account = tenant.account
    services.spend(account=account, operation_type="keyword_purchase", amount=70)
    _end_period(account)
    Subscription.objects.for_account(account).update(status="cancelled")
    assert services.renew_monthly_credits() == 0
    assert balance_of(account) == 30
