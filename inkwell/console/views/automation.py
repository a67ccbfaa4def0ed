"""A site's automation: its configuration as a form, the estimate beside the balance before "run
now", a run's live view (the seven stages, pause, resume, cancel) and the run history with logs.

The form's fields carry the names of ``PUT /automation/update_config/`` (``stage_3_batch_size``,
``max_ideas_per_run``...; ``stage_configs.N.budget_pct`` for entry N of ``stage_configs``), so
what it posts is validated by the API's own serializer and the errors it answers land on the
field that caused them.
"""

from django.core.paginator import Paginator
from django.urls import reverse
from django_htmx.http import HttpResponseClientRefresh
from rest_framework import exceptions

from inkwell.api.exceptions import BusinessRuleViolation, InsufficientCredits
from inkwell.automation import filters, selectors, services
from inkwell.automation.filters import LogFilter, RunFilter
from inkwell.automation.models import ACTIVE_RUN_STATUSES, AutomationLog, AutomationRun, LogLevel, RunStatus
from inkwell.automation.serializers import AutomationConfigUpdateSerializer
from inkwell.automation.stages import STAGES
from inkwell.console.base import ConsoleView, filtered, refusal_messages, get_scoped, remember_site, scoped, validated
from inkwell.console.views.library import SiteView
from inkwell.sitesettings.defaults import AUTOMATION_FREQUENCIES, DAYS, STAGE_NUMBERS
from inkwell.sitesettings.serializers import DELAY_HELP, STAGE_LIMIT_HELP, STAGE_WORK
from inkwell.sitesettings import selectors as site_settings_selectors
from inkwell.sitesettings import services as site_settings_services
from inkwell.sitesettings.selectors import DELAY_FIELDS, STAGE_LIMIT_FIELDS, automation_config_names
from inkwell.tenancy.access import accessible_site_ids

RUNS_PAGE_SIZE = 25
LOG_PAGE_SIZE = 50
# The failed items a run's page lists with their reasons; the log has them all.
FAILURES_SHOWN = 50
DELAY_LABELS = {"within_stage": "Between items (seconds)", "between_stage": "Between stages (seconds)"}
DAY_LABELS = {"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "fri": "Friday", "sat": "Saturday", "sun": "Sunday"}


def _entry(index: int, field: str) -> str:
    """A ``stage_configs`` entry's field as the form and the API's errors name it."""
    return f"stage_configs.{index}.{field}"


def _stage_rows(values: dict) -> list[dict]:
    """Each stage's inputs: its name, what its per-run limit counts, and the form names of its fields."""
    rows = []
    for index, number in enumerate(STAGE_NUMBERS):
        names = automation_config_names(number)
        rows.append(
            {
                "number": number,
                "name": STAGE_WORK[number],
                "limit_help": STAGE_LIMIT_HELP[number],
                "fields": {
                    "enabled": names["enabled"],
                    "batch_size": names["batch_size"],
                    "per_run_limit": names["per_run_limit"],
                    "use_testing": _entry(index, "use_testing"),
                    "budget_pct": _entry(index, "budget_pct"),
                },
                "values": {
                    "enabled": values.get(names["enabled"]),
                    "batch_size": values.get(names["batch_size"]),
                    "per_run_limit": values.get(names["per_run_limit"]),
                    "use_testing": values.get(_entry(index, "use_testing")),
                    "budget_pct": values.get(_entry(index, "budget_pct")),
                },
            }
        )
    return rows


def form_values(config: dict) -> dict:
    """``GET /automation/config/``'s answer as the form's values, by field name."""
    values = {name: value for name, value in config.items() if name != "stage_configs"}
    for index, entry in enumerate(config["stage_configs"]):
        values[_entry(index, "use_testing")] = entry["use_testing"]
        values[_entry(index, "budget_pct")] = entry["budget_pct"]
    return values


def submitted_config(post) -> dict:
    """The posted form as the body of ``PUT /automation/update_config/`` (every field of it)."""
    flags = ["enabled", *(automation_config_names(number)["enabled"] for number in STAGE_NUMBERS)]
    numbers = [
        *(automation_config_names(number)["batch_size"] for number in STAGE_NUMBERS),
        *STAGE_LIMIT_FIELDS.values(),
        *DELAY_FIELDS.values(),
    ]
    config = {name: name in post for name in flags}  # a checkbox left out of a post is off
    config.update({name: post.get(name, "") for name in (*numbers, "frequency", "scheduled_time")})
    config["scheduled_days"] = post.getlist("scheduled_days")
    config["stage_configs"] = [
        {"stage": number, "use_testing": _entry(index, "use_testing") in post, "budget_pct": post.get(_entry(index, "budget_pct"), "")}
        for index, number in enumerate(STAGE_NUMBERS)
    ]
    return config


AUTOMATION_TEMPLATE = "console/pages/automation.html"


def automation_context(request, site, *, values: dict | None = None, errors: dict | None = None, refused: dict | None = None) -> dict:
    """The configuration page: the form (the saved configuration, or ``values`` posted with
    ``errors``), the schedule's next run, the estimate of a run started now beside the balance,
    the site's active run, and a refused start (``refused``: credits needed and available)."""
    config = site_settings_selectors.automation_config(site=site)
    values = values or form_values(config)
    return {
        "site": site,
        "values": values,
        "errors": errors or {},
        "stages": _stage_rows(values),
        "limits": [{"stage": number, "field": STAGE_LIMIT_FIELDS[number], "help": STAGE_LIMIT_HELP[number], "value": config[STAGE_LIMIT_FIELDS[number]]} for number in STAGE_NUMBERS],
        "delays": [{"field": field, "label": DELAY_LABELS[name], "help": DELAY_HELP[name], "value": values.get(field)} for name, field in DELAY_FIELDS.items()],
        "frequencies": AUTOMATION_FREQUENCIES,
        "days": [(day, DAY_LABELS[day]) for day in DAYS],
        "next_run_at": config["next_run_at"],
        "estimate": selectors.estimate(site),
        "active_run": selectors.active_run(site),
        "refused": refused,
        "saved": bool(request.GET.get("saved")),
    }


class AutomationView(SiteView):
    """The site's automation configuration (GET shows it, POST replaces it as ``update_config``
    does), with the estimate of a run started now beside the credit balance."""

    module = "automation"
    template_name = AUTOMATION_TEMPLATE

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        return self.page(request, automation_context(request, site))

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        config = submitted_config(request.POST)
        try:
            site_settings_services.automation_config_update(site=site, config=validated(AutomationConfigUpdateSerializer, request, config))
        except (exceptions.ValidationError, BusinessRuleViolation) as exc:
            error, errors = refusal_messages(exc)
            context = automation_context(request, site, values=form_values(config), errors=errors or {"non_field_errors": [error]})
            return self.page(request, context, status=exc.status_code)
        return self.done(request, reverse("console:automation", kwargs={"site_id": site.pk}) + "?saved=1")


class RunNowView(SiteView):
    """Starts a run now (``run_now``). A 402 shows the configuration page again with what the run
    needs against what is available, and the per-run limits that shrink it."""

    module = "automation"
    throttle_scope = "ai"

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        try:
            run = services.start_run(site=site, user=request.user)
        except InsufficientCredits as exc:
            refused = {"needed": int(exc.errors["needed"][0]), "available": int(exc.errors["available"][0])}
            context = automation_context(request, site, refused=refused)
            return self.page(request, context, template=AUTOMATION_TEMPLATE, status=402)
        return self.done(request, reverse("console:automation-run", kwargs={"pk": run.pk}))


class RunsView(SiteView):
    """The site's runs, newest first (the active one too), each leading to its stages and log."""

    module = "automation"
    template_name = "console/pages/automation_runs.html"
    fragment_template = "console/pages/automation_runs_results.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        status = request.GET.get("status", "")
        query = {"site_id": site, **({"status": status} if status in RunStatus.values else {})}
        runs = filtered(RunFilter, request, query, scoped(AutomationRun, request))
        page = Paginator(runs, RUNS_PAGE_SIZE).get_page(request.GET.get("page"))
        return self.page(request, {"site": site, "page_obj": page, "statuses": RunStatus.choices, "status": status})


def run_of(request, pk) -> AutomationRun:
    return get_scoped(AutomationRun, request, pk, queryset=filters.with_stages(scoped(AutomationRun, request).select_related("site"), request.account))


class RunView(ConsoleView):
    """One run: its seven stages with the items each processed and the credits spent, the item in
    hand, pause, resume and cancel, and its log (paged, newest first). htmx polls the live part
    while the run is active; when its status changes the page reloads, to offer the right buttons."""

    module = "automation"
    model = AutomationRun
    template_name = "console/pages/automation_run.html"
    fragment_template = "console/components/automation_run_live.html"

    polled: selectors.RunLive | None = None  # read by poll_state, then drawn without reading it again

    def poll_state(self, request, pk):
        self.polled = selectors.run_live(account_id=request.account.pk, site_ids=accessible_site_ids(request), run_id=pk)
        return None if self.polled is None else self.polled.state

    def get(self, request, pk):
        if self.polled is None:
            run = run_of(request, pk)
            stages, site = run.stages.all(), run.site
        else:  # a poll draws the live part alone, which names no site; the log's filter finds it by id
            run, stages, site = self.polled.run, self.polled.stages, None
        remember_site(request, run.site_id)
        shown = request.GET.get("shown")
        if request.htmx and shown and shown != run.status:
            return HttpResponseClientRefresh()
        level = request.GET.get("level", "")
        query = {"site_id": site or run.site_id, "run_id": run.pk, **({"level": level} if level in LogLevel.values else {})}
        logs = Paginator(filtered(LogFilter, request, query, scoped(AutomationLog, request)), LOG_PAGE_SIZE).get_page(request.GET.get("page"))
        by_number = {stage.stage: stage for stage in stages}
        rows = [{"number": number, "name": STAGES[number].name, "stage": by_number.get(number)} for number in STAGE_NUMBERS]
        # The items the run left failed, each with its reason (contract section 12), shown above the
        # log; read only when a stage counted a failure, so a poll of a clean run costs nothing more.
        failed = sum(stage.failed for stage in stages)
        failures = (
            list(scoped(AutomationLog, request).filter(run_id=run.pk, event="item_failed").order_by("id").only("stage", "item_type", "message", "reason")[:FAILURES_SHOWN])
            if failed
            else []
        )
        return self.page(
            request,
            {
                "site": site,
                "run": run,
                "rows": rows,
                "is_active": run.status in ACTIVE_RUN_STATUSES,
                "polls": run.status in (RunStatus.QUEUED, RunStatus.RUNNING),
                "item": run.current_item or {},
                "page_obj": logs,
                "failures": failures,
                "failures_more": max(0, failed - len(failures)),
                "levels": LogLevel.choices,
                "level": level,
            },
        )


class RunControlView(ConsoleView):
    """Pause, resume or cancel a run (the automation services' state machine; 409 in a wrong state)."""

    module = "automation"
    model = AutomationRun
    control: staticmethod  # the automation service that changes the run's state

    def post(self, request, pk):
        run = get_scoped(AutomationRun, request, pk, queryset=scoped(AutomationRun, request).select_related("site"))
        self.control(site=run.site, run_id=run.pk)
        return self.done(request, reverse("console:automation-run", kwargs={"pk": run.pk}))


class PauseRunView(RunControlView):
    control = staticmethod(services.pause_run)


class ResumeRunView(RunControlView):
    control = staticmethod(services.resume_run)


class CancelRunView(RunControlView):
    control = staticmethod(services.cancel_run)
