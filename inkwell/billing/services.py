"""Credits are spent here and nowhere else (ARCHITECTURE, rules of the house).

Every function runs in one transaction that first locks the account's ledger row, so concurrent
requests are serialised per account: a credit is never spent twice and a balance never goes
negative (the database refuses it too). AI work reserves its cost up front, then settles it on
success or releases it on failure, so a failed operation costs nothing.
"""

import math
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from inkwell.api.exceptions import InsufficientCredits, StateConflict
from inkwell.billing.models import (
    CreditLedger,
    CreditReservation,
    CreditTransaction,
    CreditUsage,
    ReservationStatus,
    TransactionType,
)
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.signals import job_finished
from inkwell.notifications.services import notify
from inkwell.tenancy.models import ACTIVE_SUBSCRIPTION_STATUSES, SUBSCRIPTION_PERIOD, Account, Subscription


def cost_of(operation_type: str, units: int = 1) -> int:
    """What ``units`` of an operation cost, from the cost table (settings.INKWELL_CREDIT_COSTS)."""
    if units <= 0:
        return 0
    entry = settings.INKWELL_CREDIT_COSTS[operation_type]
    return entry["credits"] * math.ceil(units / entry["per"])


def open_ledger(account: Account, *, initial_credits: int = 0, description: str = "Sign-up credits") -> CreditLedger:
    """The ledger of a new account, with its first grant."""
    with transaction.atomic():
        ledger = CreditLedger.dangerously_unscoped.create(account=account)
        if initial_credits > 0:
            _apply(ledger, initial_credits, TransactionType.CREDIT_GRANT, description=description)
    return ledger


def _locked_ledger(account: Account) -> CreditLedger:
    """The account's ledger row, locked until the transaction ends, with the plan (for the low mark)
    fetched in the same query; only the ledger row is locked."""
    locked = CreditLedger.objects.for_account(account).select_for_update(of=("self",)).select_related("account__subscription__plan")
    ledger = locked.first()
    if ledger is None:
        # Registration opens every ledger; this covers accounts created some other way (admin, shell).
        CreditLedger.dangerously_unscoped.get_or_create(account=account)
        ledger = locked.get()
    return ledger


def _apply(ledger: CreditLedger, amount: int, transaction_type: str, *, usage=None, description: str = "", user=None) -> CreditTransaction:
    """Changes the locked ledger's balance by ``amount`` and records it."""
    before = ledger.balance
    ledger.balance += amount
    if ledger.balance < ledger.reserved:
        raise InsufficientCredits()
    ledger.save(update_fields=["balance", "reserved", "updated_at"])
    entry = CreditTransaction.objects.create(
        account=ledger.account,
        transaction_type=transaction_type,
        amount=amount,
        balance_after=ledger.balance,
        usage=usage,
        description=description[:255],
        created_by=user,
    )
    if ledger.balance < before:
        _alert_on_crossing(ledger, before)
    return entry


def _alert_on_crossing(ledger: CreditLedger, before: int) -> None:
    """``credits_depleted`` when the balance reaches 0, ``credits_low`` when it first falls below the
    low mark; each once per crossing, because only the charge that crosses the line raises it."""
    after = ledger.balance
    account = ledger.account
    if after == 0:
        notify(
            account,
            "credits_depleted",
            title="You are out of credits",
            message="Your credit balance reached 0. AI operations are paused until credits are added or your plan renews.",
            severity="error",
            action_label="View balance",
            action_url="/billing/balance/",
            metadata={"credits": 0},
        )
        return
    monthly = account.subscription.plan.monthly_credits
    low_mark = monthly * settings.INKWELL_CREDITS_LOW_PERCENT / 100
    if before >= low_mark > after:
        notify(
            account,
            "credits_low",
            title="Credits are running low",
            message=f"{after} credits left, less than {settings.INKWELL_CREDITS_LOW_PERCENT}% of your plan's {monthly} monthly credits.",
            severity="warning",
            action_label="View balance",
            action_url="/billing/balance/",
            metadata={"credits": after},
        )


def grant(account: Account, amount: int, *, transaction_type: str = TransactionType.CREDIT_GRANT, description: str = "", user=None) -> CreditTransaction:
    if amount <= 0:
        raise ValueError("a grant adds a positive number of credits")
    with transaction.atomic():
        return _apply(_locked_ledger(account), amount, transaction_type, description=description, user=user)


def _usage(ledger: CreditLedger, operation_type: str, amount: int, *, site=None, job=None, related=None, description="", model="", prompt_tokens=0, completion_tokens=0) -> CreditUsage:
    related_type, related_id = related if related else ("", None)
    usage = CreditUsage.objects.create(
        account=ledger.account,
        operation_type=operation_type,
        credits_used=amount,
        site=site,
        job=job,
        related_object_type=related_type,
        related_object_id=related_id,
        model=model[:120],
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        description=description[:255],
    )
    _apply(ledger, -amount, TransactionType.USAGE, usage=usage, description=description or usage.get_operation_type_display())
    return usage


def spend(account: Account, operation_type: str, amount: int, *, site=None, related: tuple[str, int] | None = None, description: str = "") -> CreditUsage | None:
    """Charges an operation done at once (e.g. paid keywords); 402 when the balance cannot cover it.

    ``related`` names what was bought, as ``(type, id)``. Nothing is recorded for a free operation.
    """
    if amount < 0:
        raise ValueError("a charge cannot be negative")
    with transaction.atomic():
        ledger = _locked_ledger(account)
        if ledger.available < amount:
            raise InsufficientCredits()
        if amount == 0:
            return None
        return _usage(ledger, operation_type, amount, site=site, related=related, description=description)


def reserve(account: Account, operation_type: str, amount: int, *, job: Job | None = None, site=None, related: tuple[str, int] | None = None, description: str = "") -> CreditReservation:
    """Holds ``amount`` credits for an operation about to run; 402 at once when they are not there."""
    if amount < 0:
        raise ValueError("a reservation cannot be negative")
    related_type, related_id = related if related else ("", None)
    with transaction.atomic():
        ledger = _locked_ledger(account)
        if ledger.available < amount:
            raise InsufficientCredits()
        ledger.reserved += amount
        ledger.save(update_fields=["reserved", "updated_at"])
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


def reserve_for_job(operation_type: str, amount: int, *, description: str = ""):
    """A ``prepare`` for ``jobs.services.start_job``: the job's cost is held as it is created, and is
    settled or released when the job ends (``_close_job_reservations``)."""

    def prepare(job: Job) -> None:
        reserve(job.account, operation_type, amount, job=job, site=job.site, description=description)

    return prepare


def _locked_reservation(reservation: CreditReservation) -> tuple[CreditLedger, CreditReservation]:
    # Always the ledger first, then the reservation: one lock order, no deadlocks.
    ledger = _locked_ledger(reservation.account)
    return ledger, CreditReservation.objects.for_account(reservation.account).select_for_update().get(pk=reservation.pk)


def settle(reservation: CreditReservation, *, amount: int | None = None, model: str = "", prompt_tokens: int = 0, completion_tokens: int = 0, description: str = "") -> CreditUsage | None:
    """Charges a held reservation (all of it, or ``amount`` of it: the rest is freed).

    Settling a reservation that is already closed does nothing, so a retried caller cannot charge twice.
    """
    with transaction.atomic():
        ledger, reservation = _locked_reservation(reservation)
        if reservation.status != ReservationStatus.HELD:
            return None
        charge = reservation.amount if amount is None else amount
        if not 0 <= charge <= reservation.amount:
            raise ValueError(f"cannot settle {charge} of a reservation of {reservation.amount}")
        ledger.reserved -= reservation.amount
        reservation.status, reservation.closed_at = ReservationStatus.SETTLED, timezone.now()
        reservation.save(update_fields=["status", "closed_at"])
        if charge == 0:
            ledger.save(update_fields=["reserved", "updated_at"])
            return None
        return _usage(
            ledger,
            reservation.operation_type,
            charge,
            site=reservation.site,
            job=reservation.job,
            related=(reservation.related_object_type, reservation.related_object_id) if reservation.related_object_type else None,
            description=description or reservation.description,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )


def release(reservation: CreditReservation) -> bool:
    """Frees a held reservation without charging; False when it was already closed."""
    with transaction.atomic():
        ledger, reservation = _locked_reservation(reservation)
        if reservation.status != ReservationStatus.HELD:
            return False
        ledger.reserved -= reservation.amount
        ledger.save(update_fields=["reserved", "updated_at"])
        reservation.status, reservation.closed_at = ReservationStatus.RELEASED, timezone.now()
        reservation.save(update_fields=["status", "closed_at"])
        return True


def refund(usage: CreditUsage, *, description: str = "", user=None) -> CreditTransaction:
    """Gives back what a charged operation cost, once (409 for a second refund)."""
    with transaction.atomic():
        ledger = _locked_ledger(usage.account)
        usage = CreditUsage.objects.for_account(usage.account).select_for_update().get(pk=usage.pk)
        if usage.refunded_at is not None:
            raise StateConflict({"usage": ["This charge was already refunded"]})
        usage.refunded_at = timezone.now()
        usage.save(update_fields=["refunded_at"])
        return _apply(ledger, usage.credits_used, TransactionType.REFUND, usage=usage, description=description or f"Refund: {usage.get_operation_type_display()}", user=user)


@receiver(job_finished, dispatch_uid="billing.close_job_reservations")
def _close_job_reservations(sender, job: Job, **kwargs) -> None:
    """A job's held credits are charged when it succeeds and freed when it fails or is cancelled."""
    for reservation in CreditReservation.objects.for_account(job.account).filter(job=job, status=ReservationStatus.HELD):
        if job.status == JobStatus.SUCCEEDED:
            settle(reservation)
        else:
            release(reservation)


def renew_monthly_credits(now: datetime | None = None) -> int:
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
            ledger = _locked_ledger(subscription.account)
            top_up = subscription.plan.monthly_credits - ledger.balance
            if top_up > 0:
                _apply(ledger, top_up, TransactionType.MONTHLY_RESET, description=f"Monthly credits of the {subscription.plan.name} plan")
            renewed += 1
    return renewed
