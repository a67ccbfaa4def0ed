"""Reads of the credit ledger: balance, usage summary and plan limits."""

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import Count, Sum
from django.db.models.functions import Coalesce, TruncDate

from inkwell.billing.models import CreditLedger, CreditReservation, CreditUsage, OperationType
from inkwell.tenancy.models import Account, Site, User

LimitCounter = Callable[[Account], int]

# Usage of the plan limits that other domains own: the planner registers "max_keywords".
_LIMIT_COUNTERS: dict[str, LimitCounter] = {
    "max_sites": lambda account: Site.objects.for_account(account).count(),
    "max_users": lambda account: User.objects.for_account(account).filter(is_active=True).count(),
}
LIMIT_NAMES = ("max_sites", "max_users", "max_keywords")


def register_limit_counter(limit: str, counter: LimitCounter) -> None:
    _LIMIT_COUNTERS[limit] = counter


def _ledger(account: Account | int) -> CreditLedger:
    return CreditLedger.objects.for_account(account).first() or CreditLedger(account_id=getattr(account, "pk", account))


def available_credits(account: Account | int) -> int:
    """What the account (or the account of that id) can spend now (balance less what running jobs
    hold), in one query."""
    return _ledger(account).available


def _charged(account: Account):
    """Charges that still count: a refunded charge cost nothing."""
    return CreditUsage.objects.for_account(account).filter(refunded_at__isnull=True)


def job_credits(job) -> int:
    """What a job was charged in all, over every step and attempt (its refunded charges cost nothing)."""
    return _charged(job.account_id).filter(job=job).aggregate(total=Coalesce(Sum("credits_used"), 0))["total"]


def job_charges_recorded(account, job_id: int) -> int:
    """Every charge recorded for the job, refunded ones included: what an automation run counts
    for the step the job was (one query)."""
    return CreditUsage.objects.for_account(account).filter(job_id=job_id).aggregate(total=Coalesce(Sum("credits_used"), 0))["total"]


def job_reservation(job) -> CreditReservation | None:
    """The credits the job holds, or held and settled or released (one query)."""
    return CreditReservation.objects.for_account(job.account_id).filter(job=job).first()


def balance(account: Account) -> dict:
    ledger = _ledger(account)
    subscription = account.subscription
    used = _charged(account).filter(created_at__gte=subscription.current_period_start).aggregate(total=Coalesce(Sum("credits_used"), 0))["total"]
    return {
        "balance": ledger.balance,
        "reserved": ledger.reserved,
        "available": ledger.available,
        "monthly_credits": subscription.plan.monthly_credits,
        "used_this_period": used,
        "period_start": subscription.current_period_start,
        "period_end": subscription.current_period_end,
        "plan": subscription.plan.slug,
    }


def usage_summary(account: Account, *, start: datetime | None = None, end: datetime | None = None) -> dict:
    """Credits, operations and tokens per operation type over ``[start, end)``, by default the current period."""
    subscription = account.subscription
    start = start or subscription.current_period_start
    charges = _charged(account).filter(created_at__gte=start)
    if end is not None:
        charges = charges.filter(created_at__lt=end)
    rows = (
        charges.values("operation_type")
        .annotate(credits=Sum("credits_used"), operations=Count("id"), prompt_tokens=Sum("prompt_tokens"), completion_tokens=Sum("completion_tokens"))
        .order_by("-credits", "operation_type")
    )
    by_operation = [
        {
            "operation_type": row["operation_type"],
            "credits": row["credits"],
            "operations": row["operations"],
            "tokens": row["prompt_tokens"] + row["completion_tokens"],
        }
        for row in rows
    ]
    return {
        "period_start": start,
        "period_end": end,
        "total_credits": sum(row["credits"] for row in by_operation),
        "total_operations": sum(row["operations"] for row in by_operation),
        "by_operation": by_operation,
    }


def plan_limits(account: Account) -> dict:
    """Each numeric limit of the account's plan beside what the account uses of it."""
    plan = account.subscription.plan
    limits = [
        # A limit whose domain has registered no counter has nothing in use yet.
        {"limit": name, "maximum": getattr(plan, name), "used": _LIMIT_COUNTERS[name](account) if name in _LIMIT_COUNTERS else 0}
        for name in LIMIT_NAMES
    ]
    period = balance(account)
    limits.append({"limit": "monthly_credits", "maximum": plan.monthly_credits, "used": period["used_this_period"]})
    for entry in limits:
        entry["remaining"] = max(0, entry["maximum"] - entry["used"])
    return {"plan": {"slug": plan.slug, "name": plan.name}, "period_end": period["period_end"], "limits": limits}



def usage_by_day(account: Account, *, last_day: date, days: int) -> dict:
    """Credits charged per UTC day and operation type over the ``days`` days ending with
    ``last_day`` (days without charges are 0), for a chart of usage over time: ``{"days": [...],
    "series": [{"operation_type", "label", "credits": [per day], "total"}]}``, operations that
    charged nothing left out, the largest first. One query."""
    first_day = last_day - timedelta(days=days - 1)
    start = datetime.combine(first_day, time.min, tzinfo=UTC)
    rows = (
        _charged(account)
        .filter(created_at__gte=start, created_at__lt=start + timedelta(days=days))
        .annotate(day=TruncDate("created_at", tzinfo=UTC))
        .values("day", "operation_type")
        .annotate(credits=Sum("credits_used"))
    )
    calendar = [first_day + timedelta(days=offset) for offset in range(days)]
    per_operation: dict[str, dict[date, int]] = {}
    for row in rows:
        per_operation.setdefault(row["operation_type"], {})[row["day"]] = row["credits"]
    labels = dict(OperationType.choices)
    series = [
        {"operation_type": operation, "label": labels.get(operation, operation), "credits": [credits.get(day, 0) for day in calendar], "total": sum(credits.values())}
        for operation, credits in per_operation.items()
    ]
    series.sort(key=lambda entry: (-entry["total"], entry["operation_type"]))
    return {"days": calendar, "series": series}
