"""The automation lists' FilterSets (runs and log lines), and the reads behind the run answers, on run
querysets already scoped to the caller (``AccountScopedViewSet.get_queryset``): each is one
query, plus one per prefetched relation."""

from django import forms
from django.db.models import Case, Count, Prefetch, QuerySet, Value, When
from rest_framework.exceptions import NotFound, PermissionDenied

from inkwell.api.filters import MAX_ID, ChoiceFilter, FilterSet, IntegerFilter, IntegerFormField, row_id_filter
from inkwell.automation.models import ACTIVE_RUN_STATUSES, AutomationLog, AutomationRun, AutomationStageRun, LogLevel, RunStatus
from inkwell.automation.serializers import DETAIL_LOG_LINES, INVALID_LEVEL, RUN_ID_HELP, SITE_ID_HELP
from inkwell.sitesettings.defaults import STAGE_NUMBERS
from inkwell.tenancy.access import can_access_site
from inkwell.tenancy.models import Account, Site

FINISHED_RUN_STATUSES = (RunStatus.COMPLETED, RunStatus.COMPLETED_WITH_ERRORS, RunStatus.CANCELLED, RunStatus.FAILED)


class _SiteIdFormField(IntegerFormField):
    """``site_id``: an integer, or the site itself where the console resolved it from its URL."""

    def clean(self, value):
        return value if isinstance(value, Site) else super().clean(value)


class SiteListForm(forms.Form):
    """The form of a list of one site's rows: ``site_id`` becomes the site, one of the caller's
    account's (404 otherwise) that the caller may touch (403 otherwise), looked up once it is a
    valid integer and before the other parameters are read, as ``QuerySiteField`` does."""

    def clean_site_id(self) -> Site:
        site = self.cleaned_data["site_id"]
        if isinstance(site, Site):
            return site
        site = Site.objects.for_account(self.request.account).filter(pk=site).first()
        if site is None:
            raise NotFound()
        if not can_access_site(self.request, site.pk):
            raise PermissionDenied()
        return site


class SiteFilter(IntegerFilter):
    """The required ``?site_id=`` every automation list names its site with (``SiteListForm``)."""

    field_class = _SiteIdFormField

    def __init__(self, *, help_text: str):
        super().__init__(field_name="site", min_value=1, max_value=MAX_ID, required=True, help_text=help_text)


class RunFilter(FilterSet):
    """One site's runs, newest first, of one status when ``status`` names it."""

    site_id = SiteFilter(help_text="The site whose runs are listed (another account's site: 404).")
    status = ChoiceFilter(choices=RunStatus.choices, help_text="Only the runs in this status.", error_messages={"invalid_choice": "Invalid status value"})

    class Meta:
        model = AutomationRun
        form = SiteListForm
        fields = ["site_id", "status"]

    def filter_queryset(self, queryset):
        return super().filter_queryset(queryset).order_by("-started_at", "-id")


class LogFilter(FilterSet):
    """The site's log lines, newest first: of one run, level and stage when the query names them."""

    site_id = SiteFilter(help_text=SITE_ID_HELP)
    run_id = row_id_filter(RUN_ID_HELP, method="filter_run_id")
    level = ChoiceFilter(choices=LogLevel.choices, help_text="Only the lines of this level.", error_messages={"invalid_choice": INVALID_LEVEL})
    stage = IntegerFilter(min_value=1, max_value=len(STAGE_NUMBERS), help_text="Only this stage's lines (1 to 7).")

    class Meta:
        model = AutomationLog
        form = SiteListForm
        fields = ["site_id", "run_id", "level", "stage"]

    def filter_run_id(self, queryset: QuerySet, name: str, value: int) -> QuerySet:
        """A ``run_id`` that is not one of the site's runs is a 404."""
        site = self.form.cleaned_data["site_id"]
        if not AutomationRun.objects.for_account(site.account_id).filter(pk=value, site=site).exists():
            raise NotFound()
        return queryset.filter(run_id=value)

    def filter_queryset(self, queryset):
        lines = super().filter_queryset(queryset)
        if self.form.cleaned_data.get("run_id") is not None:
            # Ids grow with time: within a run, the (run, -id) indexes give newest first without a sort.
            return lines.order_by("-id")
        return lines.order_by("-created_at", "-id")


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
