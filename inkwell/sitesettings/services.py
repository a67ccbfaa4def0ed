"""Writes of a site's settings: the unified PATCH, the automation configuration, the deprecated
publishing settings resource, and the reset.

Writes take the validated bodies of ``inkwell.sitesettings.serializers``, store only the fields
that differ from the defaults, and check the rules that span fields (422): daily ≤ weekly ≤
monthly publish limits, where 0 means no limit and takes no part; the seven stages' ``budget_pct``
add up to at most 100. A write that changes the schedule moves ``next_run_at``.
"""

from datetime import datetime, time

from django.db import transaction
from django.utils import timezone

from inkwell.api.exceptions import BusinessRuleViolation
from inkwell.sitesettings.defaults import DEFAULT_SETTINGS, MAX_TOTAL_BUDGET_PCT, STAGE_NUMBERS, UNIFIED_ONLY_DEFAULTS
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.selectors import (
    AI_FIELDS,
    automation_config_names,
    DELAY_FIELDS,
    LIMITS,
    PUBLISHING_STORAGE_NAMES,
    STAGE_CONFIG_NAMES,
    effective_from_row,
    next_scheduled_run,
    schedule_key,
    overlay_defaults,
    slot_with_end,
)
from inkwell.tenancy.models import Site

LIMIT_ORDER_MESSAGES = {
    ("daily_publish_limit", "weekly_publish_limit"): "The daily limit cannot be greater than the weekly limit",
    ("daily_publish_limit", "monthly_publish_limit"): "The daily limit cannot be greater than the monthly limit",
    ("weekly_publish_limit", "monthly_publish_limit"): "The weekly limit cannot be greater than the monthly limit",
}
BUDGET_OVER_100 = "The stages' budget_pct add up to {total}; they may add up to at most 100"



def publishing_settings_resource(*, site: Site) -> dict:
    """The deprecated publishing settings resource: the same stored values, slots as start times.

    The resource has an id and timestamps of its own, so its row is made the first time it is
    read; an empty row holds no values, so making it changes nothing the site uses.
    """
    row, _ = SiteSettings.objects.for_account(site.account_id).get_or_create(account_id=site.account_id, site=site)
    publishing = effective_from_row(row).publishing
    return {
        "id": row.pk,
        "site": site.pk,
        "auto_approval_enabled": publishing.auto_approval_enabled,
        "auto_publish_enabled": publishing.auto_publish_enabled,
        **{name: getattr(publishing, name) for name in LIMITS},
        "publish_days": list(publishing.publish_days),
        "publish_time_slots": [slot["start"] for slot in publishing.time_slots],
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }



# Writes.


def _locked_row(site: Site) -> SiteSettings:
    row, _ = SiteSettings.objects.for_account(site.account_id).select_for_update().get_or_create(account_id=site.account_id, site=site)
    return row


def _set(stored: dict, defaults: dict, name: str, value) -> None:
    """Stores ``value`` as the site's change of ``name``, or forgets the change when it is the default."""
    if value == defaults[name]:
        stored.pop(name, None)
    else:
        stored[name] = value


def _check_limit_order(publishing: dict, *, prefix: str) -> None:
    """Daily ≤ weekly ≤ monthly among the limits that are set (0 means no limit)."""
    for (smaller, larger), message in LIMIT_ORDER_MESSAGES.items():
        if publishing[smaller] and publishing[larger] and publishing[smaller] > publishing[larger]:
            raise BusinessRuleViolation({f"{prefix}{smaller}": [message]})


def _apply_publishing(row: SiteSettings, values: dict, *, prefix: str) -> None:
    """Stores the publishing fields of ``values`` (stored names) and checks the limits' order on the result."""
    defaults = {**DEFAULT_SETTINGS["publishing"], **UNIFIED_ONLY_DEFAULTS["publishing"]}
    defaults["time_slots"] = [slot_with_end(value) for value in defaults["time_slots"]]
    for name, value in values.items():
        _set(row.publishing, defaults, name, value)
    _check_limit_order(overlay_defaults(defaults, row.publishing), prefix=prefix)


def _time_text(value: time) -> str:
    return value.strftime("%H:%M:%S" if value.second else "%H:%M")


def _check_budget_total(row: SiteSettings) -> None:
    """The seven stages' shares of a run's budget add up to at most 100 percent."""
    total = sum(stage.budget_pct for stage in effective_from_row(row).stages)
    if total > MAX_TOTAL_BUDGET_PCT:
        raise BusinessRuleViolation({"stage_configs": [BUDGET_OVER_100.format(total=total)]})


def _apply_automation(row: SiteSettings, site: Site, config: dict, stage_configs: list[dict], *, now: datetime) -> None:
    """Stores the automation fields of a validated ``automation_config`` and ``stage_configs``
    (the fields given), checks the budget total, and moves ``next_run_at`` when the schedule changed."""
    schedule_before = schedule_key(row)
    defaults = {**DEFAULT_SETTINGS["automation"], **UNIFIED_ONLY_DEFAULTS["automation"]}
    schedule = {name: config[name] for name in ("enabled", "frequency", "scheduled_days", "include_manual_drafts") if name in config}
    if "scheduled_time" in config:
        schedule["time"] = _time_text(config["scheduled_time"])
    for name, value in schedule.items():
        _set(row.automation, defaults, name, value)
    for name, field in DELAY_FIELDS.items():
        if field in config:
            _set(row.delays, DEFAULT_SETTINGS["delays"], name, config[field])

    changes = {
        number: {name: config[field] for name, field in automation_config_names(number).items() if field in config} for number in STAGE_NUMBERS
    }
    for entry in stage_configs:
        changes[entry["stage"]].update({name: entry[field] for name, field in STAGE_CONFIG_NAMES.items() if field in entry})
    for stage in DEFAULT_SETTINGS["stages"]:
        stored = dict(row.stages.get(str(stage["number"]), {}))
        for name, value in changes[stage["number"]].items():
            _set(stored, stage, name, value)
        if stored:
            row.stages[str(stage["number"])] = stored
        else:
            row.stages.pop(str(stage["number"]), None)
    _check_budget_total(row)
    if schedule_key(row) != schedule_before:
        row.next_run_at = next_scheduled_run(row=row, site=site, after=now)


@transaction.atomic
def unified_settings_update(*, site: Site, changes: dict, now: datetime | None = None) -> SiteSettings:
    """Applies a validated unified settings PATCH (``UnifiedSettingsInputSerializer``): each
    section changes only the fields it names, ``stage_configs`` entries by their ``stage``. A
    daily, weekly or monthly limit out of order is a 422 on ``publishing_settings.<field>``;
    budget percentages over 100 in all a 422 on ``stage_configs``. A changed schedule moves
    ``next_run_at`` to its next run after ``now``."""
    row = _locked_row(site)
    if "automation_config" in changes or "stage_configs" in changes:
        _apply_automation(row, site, changes.get("automation_config", {}), changes.get("stage_configs", []), now=now or timezone.now())
    if "publishing_settings" in changes:
        values = {PUBLISHING_STORAGE_NAMES.get(name, name): value for name, value in changes["publishing_settings"].items()}
        _apply_publishing(row, values, prefix="publishing_settings.")
    for name, field in AI_FIELDS.items():
        if name in changes.get("ai_settings", {}):
            setattr(row, field, changes["ai_settings"][name])
    if "performance_settings" in changes:
        _apply_performance(row, changes["performance_settings"])
    for name, value in changes.get("review_rules", {}).items():
        _set(row.review, UNIFIED_ONLY_DEFAULTS["review"], name, value)
    row.save()
    return row


STRIKING_ORDER = "striking_max_position must be greater than or equal to striking_min_position"


def _apply_performance(row: SiteSettings, values: dict) -> None:
    """The search performance thresholds given (issue #37); a striking-distance range whose end
    comes before its start is a 422."""
    defaults = UNIFIED_ONLY_DEFAULTS["performance"]
    merged = {**defaults, **row.performance, **values}
    if merged["striking_max_position"] < merged["striking_min_position"]:
        raise BusinessRuleViolation({"performance_settings.striking_max_position": [STRIKING_ORDER]})
    for name, value in values.items():
        _set(row.performance, defaults, name, value)


@transaction.atomic
def automation_config_update(*, site: Site, config: dict, now: datetime | None = None) -> SiteSettings:
    """Applies a validated ``PUT /automation/update_config/`` (``AutomationConfigUpdateSerializer``):
    every ``automation_config`` field, and the delays and ``stage_configs`` entries given. The same
    stored values as the unified settings, under the same rules."""
    config = dict(config)
    row = _locked_row(site)
    _apply_automation(row, site, config, config.pop("stage_configs", []), now=now or timezone.now())
    row.save()
    return row


@transaction.atomic
def publishing_settings_update(*, site: Site, values: dict) -> SiteSettings:
    """Applies a validated deprecated publishing settings PUT or PATCH: the fields given, slots as
    start times. A slot whose start the site has already keeps its end; a new one ends an hour
    later. Limits out of order are a 422 on the field."""
    row = _locked_row(site)
    values = dict(values)
    if "publish_time_slots" in values:
        ends = {slot["start"]: slot["end"] for slot in effective_from_row(row).publishing.time_slots}
        values["time_slots"] = [slot_with_end({"start": start, "end": ends.get(start)}) for start in values.pop("publish_time_slots")]
    _apply_publishing(row, values, prefix="")
    row.save()
    return row


@transaction.atomic
def site_settings_reset(*, site: Site) -> SiteSettings:
    """Returns every setting of the site to the defaults (the row, and its id, stay)."""
    row = _locked_row(site)
    row.automation, row.stages, row.delays, row.publishing, row.performance, row.review = {}, {}, {}, {}, {}, {}
    row.testing_model = row.live_model = row.image_model = None
    row.next_run_at = next_scheduled_run(row=row, site=site, after=timezone.now())
    row.save()
    return row


