"""The account's credits and plan: the balance, the plan's limits beside their use, usage over time
as a chart (Chart.js, vendored under static/console/vendor/chartjs), usage by operation, and every
transaction (paged). Readable by every role, and while the plan has lapsed, as the billing API is."""

from django.core.paginator import Paginator
from django.utils import timezone

from inkwell.billing import selectors
from inkwell.billing.models import CreditTransaction, OperationType, TransactionType
from inkwell.console.base import ConsoleView, scoped

TRANSACTIONS_PAGE_SIZE = 30
# The periods the chart offers, in days; the first is the default.
CHART_PERIODS = (30, 7, 90)
LIMIT_LABELS = {"max_sites": "Sites", "max_users": "Users", "max_keywords": "Keywords", "monthly_credits": "Credits this period"}


def chart_data(usage: dict) -> dict:
    """``billing.selectors.usage_by_day`` as the chart script reads it (dates as text)."""
    return {"days": [day.isoformat() for day in usage["days"]], "series": [{"label": entry["label"], "credits": entry["credits"]} for entry in usage["series"]]}


class CreditsView(ConsoleView):
    template_name = "console/pages/credits.html"
    fragment_template = "console/pages/credits_transactions.html"
    allow_inactive_plan = True

    def get(self, request):
        account = request.account
        kind = request.GET.get("type", "")
        transactions = scoped(CreditTransaction, request).order_by("-created_at", "-id")
        if kind in TransactionType.values:
            transactions = transactions.filter(transaction_type=kind)
        page = Paginator(transactions, TRANSACTIONS_PAGE_SIZE).get_page(request.GET.get("page"))
        if request.htmx and not request.htmx.boosted:
            return self.page(request, {"page_obj": page, "type": kind})
        days = int(request.GET["days"]) if request.GET.get("days", "").isdigit() and int(request.GET["days"]) in CHART_PERIODS else CHART_PERIODS[0]
        usage = selectors.usage_by_day(account, last_day=timezone.now().date(), days=days)
        limits = selectors.plan_limits(account)
        for entry in limits["limits"]:
            entry["label"] = LIMIT_LABELS.get(entry["limit"], entry["limit"])
            entry["percent"] = min(100, round(100 * entry["used"] / entry["maximum"])) if entry["maximum"] else 0
        summary = selectors.usage_summary(account)
        labels = dict(OperationType.choices)
        for row in summary["by_operation"]:
            row["label"] = labels.get(row["operation_type"], row["operation_type"])
        return self.page(
            request,
            {
                "balance": selectors.balance(account),
                "limits": limits,
                "summary": summary,
                "usage": usage,
                "chart": chart_data(usage),
                "days": days,
                "periods": sorted(CHART_PERIODS),
                "page_obj": page,
                "transaction_types": TransactionType.choices,
                "type": kind,
            },
        )
