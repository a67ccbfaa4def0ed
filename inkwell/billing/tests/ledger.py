"""Checks shared by the billing tests: the ledger, its transactions, usage and reservations agree."""

from django.db.models import Sum

from inkwell.billing.models import CreditLedger, CreditReservation, CreditTransaction, CreditUsage, ReservationStatus, TransactionType


def balance_of(account) -> int:
    return CreditLedger.objects.for_account(account).get().balance


def assert_ledger_consistent(account) -> None:
    """The invariants money depends on, checked from the rows themselves."""
    ledger = CreditLedger.objects.for_account(account).get()
    transactions = list(CreditTransaction.objects.for_account(account).order_by("id"))
    running = 0
    for entry in transactions:
        running += entry.amount
        assert entry.balance_after == running, f"transaction {entry.pk} says {entry.balance_after}, the running sum is {running}"
        assert running >= 0
    assert ledger.balance == running
    held = CreditReservation.objects.for_account(account).filter(status=ReservationStatus.HELD).aggregate(total=Sum("amount"))["total"] or 0
    assert ledger.reserved == held
    assert 0 <= ledger.reserved <= ledger.balance
    charged = CreditUsage.objects.for_account(account).aggregate(total=Sum("credits_used"))["total"] or 0
    spent = -sum(entry.amount for entry in transactions if entry.transaction_type == TransactionType.USAGE)
    refunded = CreditUsage.objects.for_account(account).filter(refunded_at__isnull=False).aggregate(total=Sum("credits_used"))["total"] or 0
    refunds = sum(entry.amount for entry in transactions if entry.transaction_type == TransactionType.REFUND)
    assert charged == spent
    assert refunded == refunds
