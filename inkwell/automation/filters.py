"""Reads behind the automation lists and run answers, on run querysets already scoped to the caller
(``AccountScopedViewSet.get_queryset``) or, for the log, the account and the site the query string
named: each is one query, plus one per prefetched relation."""

from django.db.models import Case, Count, Prefetch, QuerySet, Value, When
from rest_framework.exceptions import NotFound

from inkwell.automation.models import ACTIVE_RUN_STATUSES, AutomationLog, AutomationRun, AutomationStageRun, RunStatus
from inkwell.automation.serializers import DETAIL_LOG_LINES
from inkwell.tenancy.models import Account, Site

FINISHED_RUN_STATUSES = (RunStatus.COMPLETED, RunStatus.CANCELLED, RunStatus.FAILED)


def runs(queryset: QuerySet, query: dict) -> QuerySet:
    """The runs list: newest first, of one site and one status when the query names them."""
    if query.get("site") is not None:
        queryset = queryset.filter(site=query["site"])
    if query.get("status"):
        queryset = queryset.filter(status=query["status"])
    return queryset.order_by("-started_at", "-id")


def with_stages(queryset: QuerySet, account: Account | int) -> QuerySet:
    return queryset.prefetch_related(Prefetch("stages", queryset=AutomationStageRun.objects.for_account(account).order_by("stage")))


def run_detail(queryset: QuerySet, account: Account) -> QuerySet:
    """Runs with their stages, their number of log lines and their newest ``DETAIL_LOG_LINES`` lines."""
    newest_logs = AutomationLog.objects.for_account(account).order_by("-id")[:DETAIL_LOG_LINES]
    return with_stages(queryset, account).annotate(log_count=Count("logs")).prefetch_related(
        Prefetch("logs", queryset=newest_logs, to_attr="recent_logs")
    )


def current_run(queryset: QuerySet, site: Site) -> AutomationRun | None:
    """The site's active run (there is at most one), or else its latest, with its stages."""
    active_first = Case(When(status__in=ACTIVE_RUN_STATUSES, then=Value(0)), default=Value(1))
    return with_stages(queryset.filter(site=site), site.account_id).order_by(active_first, "-started_at", "-id").first()


def history(queryset: QuerySet, site: Site) -> QuerySet:
    """The site's finished runs, newest first."""
    return queryset.filter(site=site, status__in=FINISHED_RUN_STATUSES).order_by("-started_at", "-id")


def logs(account: Account, query: dict) -> QuerySet:
    """The site's log lines, newest first: of one run, level and stage when the query names them.
    A ``run_id`` that is not one of the site's runs is a 404."""
    lines = AutomationLog.objects.for_account(account).filter(site=query["site"])
    if query.get("run_id") is not None:
        if not AutomationRun.objects.for_account(account).filter(pk=query["run_id"], site=query["site"]).exists():
            raise NotFound()
        # Ids grow with time: within a run, the (run, -id) indexes give newest first without a sort.
        lines = lines.filter(run_id=query["run_id"]).order_by("-id")
    else:
        lines = lines.order_by("-created_at", "-id")
    if query.get("level"):
        lines = lines.filter(level=query["level"])
    if query.get("stage") is not None:
        lines = lines.filter(stage=query["stage"])
    return lines
