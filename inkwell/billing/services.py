"""Credits are spent here and nowhere else (ARCHITECTURE, rules of the house).

Every change of a balance is one conditional ``UPDATE ... RETURNING`` of the account's ledger
row (``_move``): the availability check and the change happen under the row lock that UPDATE
takes, so concurrent requests are serialised per account, a credit is never spent twice, and a
balance never goes negative (the database refuses it too). The transaction and usage rows are
written in the same database transaction. AI work reserves its cost up front, then settles it on
success or releases it on failure, so a failed operation costs nothing.
"""

import math
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from inkwell.ai.types import TokenUsage
from inkwell.api.exceptions import InsufficientCredits, StateConflict
from inkwell.billing.models import (
    CreditLedger,
    CreditReservation,
    CreditTransaction,
    CreditUsage,
    ReservationStatus,
    TransactionType,
)
from inkwell.jobs.models import Job
from inkwell.notifications import events
from inkwell.observability.metrics import record_credits_spent
from inkwell.tenancy.models import ACTIVE_SUBSCRIPTION_STATUSES, SUBSCRIPTION_PERIOD, Account, Plan, Subscription


def cost_of(*, operation_type: str, units: int = 1) -> int:
    """What ``units`` of an operation cost, from the cost table (settings.INKWELL_CREDIT_COSTS)."""
    if units <= 0:
        return 0
    entry = settings.INKWELL_CREDIT_COSTS[operation_type]
    return entry["credits"] * math.ceil(units / entry["per"])


@dataclass(frozen=True)
class LedgerState:
    """The ledger row right after a change, and the plan's monthly credits (for the low mark)."""

    balance: int
    reserved: int
    monthly_credits: int


def _move_sql() -> str:
    ledger = CreditLedger._meta.db_table
    return (
        f"UPDATE {ledger} SET balance = balance + %s, reserved = reserved + %s, updated_at = %s "
        f"WHERE account_id = %s AND balance - reserved >= %s "
        f"RETURNING balance, reserved, (SELECT plan.monthly_credits FROM {Subscription._meta.db_table} subscription "
        f"JOIN {Plan._meta.db_table} plan ON plan.id = subscription.plan_id WHERE subscription.account_id = {ledger}.account_id)"
    )


def _move(account_id: int, *, balance: int = 0, reserved: int = 0, require_available: int = 0) -> LedgerState | None:
    """Adds ``balance`` and ``reserved`` to the ledger if at least ``require_available`` credits
    are available; None (nothing changed) when they are not, or the account has no ledger.

    One statement, one round trip: PostgreSQL re-checks the WHERE under the row lock, SQLite
    writes one transaction at a time. Both support RETURNING (SQLite since 3.35).
    """
    with connection.cursor() as cursor:
        cursor.execute(_move_sql(), [balance, reserved, timezone.now(), account_id, require_available])
        row = cursor.fetchone()
    return LedgerState(*row) if row else None


def _open_missing_ledger(account_id: int) -> None:
    # Registration opens every ledger; this covers accounts created some other way (admin, shell).
    CreditLedger.dangerously_unscoped.get_or_create(account_id=account_id)


def _moved(account_id: int, **change) -> LedgerState | None:
    state = _move(account_id, **change)
    if state is None and not CreditLedger.objects.for_account(account_id).exists():
        _open_missing_ledger(account_id)
        state = _move(account_id, **change)
    return state


def open_ledger(*, account: Account, initial_credits: int = 0, description: str = "Sign-up credits") -> CreditLedger:
    """The ledger of a new account, with its first grant."""
    with transaction.atomic():
        ledger = CreditLedger.dangerously_unscoped.create(account=account)
        if initial_credits > 0:
            _record(account.pk, _move(account.pk, balance=initial_credits), initial_credits, TransactionType.CREDIT_GRANT, description=description)
    return ledger


def _record(account_id: int, state: LedgerState, amount: int, transaction_type: str, *, usage=None, description: str = "", user=None) -> CreditTransaction:
    """Writes the transaction of a balance change ``_move`` made, and raises a threshold alert it crossed."""
    entry = CreditTransaction.objects.create(
        account_id=account_id,
        transaction_type=transaction_type,
        amount=amount,
        balance_after=state.balance,
        usage=usage,
        description=description[:255],
        created_by=user,
    )
    if amount < 0:
        _alert_on_crossing(account_id, before=state.balance - amount, state=state)
    return entry


def _alert_on_crossing(account_id: int, *, before: int, state: LedgerState) -> None:
    """``credits_depleted`` when the balance reaches 0, ``credits_low`` when it first falls below the
    low mark; each once per crossing, because only the charge that crosses the line raises it."""
    after = state.balance
    if after == 0:
        events.credits_depleted(account=Account.objects.get(pk=account_id))
        return
    percent = settings.INKWELL_CREDITS_LOW_PERCENT
    if before >= state.monthly_credits * percent / 100 > after:
        events.credits_low(account=Account.objects.get(pk=account_id), balance=after, percent=percent, monthly_credits=state.monthly_credits)


def grant(*, account: Account, amount: int, transaction_type: str = TransactionType.CREDIT_GRANT, description: str = "", user=None) -> CreditTransaction:
    if amount <= 0:
        raise ValueError("a grant adds a positive number of credits")
    with transaction.atomic():
        return _record(account.pk, _moved(account.pk, balance=amount), amount, transaction_type, description=description, user=user)


def _charge(account_id: int, state: LedgerState, operation_type: str, amount: int, *, site_id=None, job_id=None, related=None, description="", model="", prompt_tokens=0, completion_tokens=0) -> CreditUsage:
    """Records a charge ``_move`` already took from the balance: its usage and its transaction."""
    related_type, related_id = related if related else ("", None)
    usage = CreditUsage.objects.create(
        account_id=account_id,
        operation_type=operation_type,
        credits_used=amount,
        site_id=site_id,
        job_id=job_id,
        related_object_type=related_type,
        related_object_id=related_id,
        model=model[:120],
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        description=description[:255],
    )
    _record(account_id, state, -amount, TransactionType.USAGE, usage=usage, description=description or usage.get_operation_type_display())
    transaction.on_commit(lambda: record_credits_spent(operation_type, amount))
    return usage


def spend(*, account: Account, operation_type: str, amount: int, site=None, related: tuple[str, int] | None = None, description: str = "") -> CreditUsage | None:
    """Charges an operation done at once (e.g. paid keywords); 402 when the balance cannot cover it.

    ``related`` names what was bought, as ``(type, id)``. Nothing is recorded for a free operation.
    """
    if amount < 0:
        raise ValueError("a charge cannot be negative")
    with transaction.atomic():
        state = _moved(account.pk, balance=-amount, require_available=amount)
        if state is None:
            raise InsufficientCredits()
        if amount == 0:
            return None
        return _charge(account.pk, state, operation_type, amount, site_id=site.pk if site else None, related=related, description=description)


def reserve(*, account: Account, operation_type: str, amount: int, job: Job | None = None, site=None, related: tuple[str, int] | None = None, description: str = "") -> CreditReservation:
    """Holds ``amount`` credits for an operation about to run; 402 at once when they are not there."""
    if amount < 0:
        raise ValueError("a reservation cannot be negative")
    related_type, related_id = related if related else ("", None)
    with transaction.atomic():
        if _moved(account.pk, reserved=amount, require_available=amount) is None:
            raise InsufficientCredits()
        return CreditReservation.objects.create(
            account=account,
            operation_type=operation_type,
            amount=amount,
            job=job,
            site=site,
            related_object_type=related_type,
            related_object_id=related_id,
            description=description[:255],
        )


def reserve_for_job(*, operation_type: str, amount: int, description: str = ""):
    """A ``prepare`` for ``jobs.services.start_job``: the job's cost is held as it is created, and is
    settled or released when the job ends (``signals.close_job_reservations``)."""

    def prepare(job: Job) -> None:
        reserve(account=job.account, operation_type=operation_type, amount=amount, job=job, site=job.site, description=description)

    return prepare


def _close(reservation: CreditReservation, status: str) -> bool:
    """Marks a held reservation settled or released; False when it was closed already. The
    conditional UPDATE makes a second settle or release find nothing, whoever sends it."""
    return bool(
        CreditReservation.objects.for_account(reservation.account_id)
        .filter(pk=reservation.pk, status=ReservationStatus.HELD)
        .update(status=status, closed_at=timezone.now())
    )


def settle(*, reservation: CreditReservation, amount: int | None = None, model: str = "", prompt_tokens: int = 0, completion_tokens: int = 0, description: str = "") -> CreditUsage | None:
    """Charges a held reservation (all of it, or ``amount`` of it: the rest is freed).

    Settling a reservation that is already closed does nothing, so a retried caller cannot charge twice.
    """
    charge = reservation.amount if amount is None else amount
    if not 0 <= charge <= reservation.amount:
        raise ValueError(f"cannot settle {charge} of a reservation of {reservation.amount}")
    with transaction.atomic():
        if not _close(reservation, ReservationStatus.SETTLED):
            return None
        state = _move(reservation.account_id, balance=-charge, reserved=-reservation.amount)
        if charge == 0:
            return None
        return _charge(
            reservation.account_id,
            state,
            reservation.operation_type,
            charge,
            site_id=reservation.site_id,
            job_id=reservation.job_id,
            related=(reservation.related_object_type, reservation.related_object_id) if reservation.related_object_type else None,
            description=description or reservation.description,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )


def settle_job(*, job: Job, amount: int | None = None, operation_type: str | None = None, usage: TokenUsage | None = None) -> int:
    """Charges the credits a job holds (for ``operation_type`` when it holds several), ``amount``
    of them at most (all when None), recording the provider's token ``usage``; what was charged.

    For a handler that knows its real cost before it ends: what it does not charge is freed when
    the job finishes. Nothing is held (already settled by an earlier attempt) → 0.
    """
    held = CreditReservation.objects.for_account(job.account_id).filter(job=job, status=ReservationStatus.HELD)
    if operation_type is not None:
        held = held.filter(operation_type=operation_type)
    reservation = held.first()
    if reservation is None:
        return 0
    charge = reservation.amount if amount is None else min(amount, reservation.amount)
    usage = usage or TokenUsage()
    charged = settle(reservation=reservation, amount=charge, model=usage.model, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)
    return charged.credits_used if charged else 0


def release(*, reservation: CreditReservation) -> bool:
    """Frees a held reservation without charging; False when it was already closed."""
    with transaction.atomic():
        if not _close(reservation, ReservationStatus.RELEASED):
            return False
        _move(reservation.account_id, reserved=-reservation.amount)
        return True


def refund(*, usage: CreditUsage, description: str = "", user=None) -> CreditTransaction:
    """Gives back what a charged operation cost, once (409 for a second refund)."""
    with transaction.atomic():
        refunded = CreditUsage.objects.for_account(usage.account_id).filter(pk=usage.pk, refunded_at__isnull=True).update(refunded_at=timezone.now())
        if not refunded:
            raise StateConflict({"usage": ["This charge was already refunded"]})
        state = _move(usage.account_id, balance=usage.credits_used)
        return _record(usage.account_id, state, usage.credits_used, TransactionType.REFUND, usage=usage, description=description or f"Refund: {usage.get_operation_type_display()}", user=user)


def renew_monthly_credits(*, now: datetime | None = None) -> int:
    """Starts the next period of every active subscription whose period ended, topping its balance
    up to the plan's monthly credits (credits above that, granted or bought, are kept).

    Returns how many accounts were renewed. Safe to run from several workers at once.
    """
    now = now or timezone.now()
    renewed = 0
    due = Subscription.dangerously_unscoped.filter(status__in=ACTIVE_SUBSCRIPTION_STATUSES, current_period_end__lte=now)
    for subscription_id in due.values_list("pk", flat=True):
        with transaction.atomic():
            subscription = Subscription.dangerously_unscoped.select_for_update().select_related("plan", "account").get(pk=subscription_id)
            if subscription.current_period_end is None or subscription.current_period_end > now:
                continue  # another worker renewed it first
            while subscription.current_period_end <= now:
                subscription.current_period_start = subscription.current_period_end
                subscription.current_period_end = subscription.current_period_start + SUBSCRIPTION_PERIOD
            subscription.save(update_fields=["current_period_start", "current_period_end", "updated_at"])
            # A change of nothing locks the ledger row and reads the balance the top-up is computed from.
            state = _moved(subscription.account_id)
            top_up = subscription.plan.monthly_credits - state.balance
            if top_up > 0:
                state = _move(subscription.account_id, balance=top_up)
                _record(subscription.account_id, state, top_up, TransactionType.MONTHLY_RESET, description=f"Monthly credits of the {subscription.plan.name} plan")
            renewed += 1
    return renewed
