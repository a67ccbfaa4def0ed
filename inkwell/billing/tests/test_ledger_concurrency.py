"""Concurrent spending on PostgreSQL: row locks serialise each account's ledger, so no credit is
spent twice and the balance never goes negative, however many requests race."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from inkwell.api.exceptions import InsufficientCredits
from inkwell.billing import services
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.notifications.models import Notification

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

RACERS = 40
COST = 10


def _race(action, count: int) -> list:
    """Runs ``action`` from ``count`` threads released at the same instant; returns each outcome."""
    start = threading.Barrier(count)

    def run(_):
        start.wait()
        try:
            return action()
        except InsufficientCredits as refusal:
            return refusal
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def test_forty_concurrent_spends_against_ten_spends_worth_of_credits_exactly_ten_succeed(tenant):
    account = tenant.account  # 100 sign-up credits: ten charges of 10
    outcomes = _race(lambda: services.spend(account=account, operation_type="keyword_purchase", amount=COST), RACERS)
    refused = [outcome for outcome in outcomes if isinstance(outcome, InsufficientCredits)]
    assert len(refused) == RACERS - 10
    assert balance_of(account) == 0
    assert_ledger_consistent(account)
    assert Notification.objects.for_account(account).filter(notification_type="credits_depleted").count() == 1
    assert Notification.objects.for_account(account).filter(notification_type="credits_low").count() == 0


def test_concurrent_reservations_never_hold_more_than_the_balance_and_settle_exactly(tenant):
    account = tenant.account

    def reserve_then_settle():
        reservation = services.reserve(account=account, operation_type="content_generation", amount=COST)
        services.settle(reservation=reservation)
        return reservation

    outcomes = _race(reserve_then_settle, RACERS)
    assert sum(not isinstance(outcome, InsufficientCredits) for outcome in outcomes) == 10
    assert balance_of(account) == 0
    assert_ledger_consistent(account)


def test_concurrent_reserve_and_release_leave_the_balance_untouched(tenant):
    account = tenant.account

    def reserve_then_release():
        services.release(reservation=services.reserve(account=account, operation_type="clustering", amount=COST))

    _race(reserve_then_release, RACERS)
    assert balance_of(account) == 100
    assert_ledger_consistent(account)
