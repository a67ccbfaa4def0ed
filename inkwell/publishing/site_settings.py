"""A site's settings (spec: Unified site settings, Default settings, Publishing settings; the
automation configuration of ``/automation/config/``): reads, writes and the auto-publish placement.

Every read starts from the central defaults (``inkwell.publishing.defaults``) and lays the site's
saved changes (``SiteSettings``) over them. Other domains read a site's settings through
``effective_settings(site)``:

    settings = effective_settings(site)
    settings.automation.enabled, settings.automation.time          # the schedule
    settings.automation.next_run_at                                # None while disabled
    settings.stage(4).batch_size, settings.stage(4).per_run_limit  # 0: no limit
    settings.stage(4).use_testing, settings.stage(4).budget_pct
    settings.delays.within_stage, settings.delays.between_stage    # seconds
    settings.publishing.daily_publish_limit, settings.publishing.time_slots
    settings.images.max_images, settings.ai.live_model_id

Writes take the validated bodies of ``inkwell.publishing.settings_serializers``, store only the
fields that differ from the defaults, and check the rules that span fields (422): daily ≤ weekly ≤
monthly publish limits, where 0 means no limit and takes no part; the seven stages' ``budget_pct``
add up to at most 100.

``next_run_at`` is stored (``SiteSettings.next_run_at``), not computed on read: every write that
changes the schedule (enabled, frequency, days, time) or the site's time zone sets it to the
schedule's next run after now, or None when automation is disabled, and the dispatcher
(``inkwell.automation.tasks``) moves it on when it claims a due run. Reads show the stored value.
"""

import copy
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from django.db import transaction
from django.db.models import Q
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from inkwell.api.exceptions import BusinessRuleViolation
from inkwell.publishing import slots
from inkwell.publishing.defaults import DEFAULT_SETTINGS, MAX_TOTAL_BUDGET_PCT, STAGE_NUMBERS, UNIFIED_ONLY_DEFAULTS
from inkwell.publishing.models import SiteSettings
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, SiteStatus
from inkwell.writer.services import content_schedule

# The per-run limit of each stage in ``automation_config``, named after the stage's work: the spec
# names stages 1 and 2 by what they take (keywords clustered, clusters given ideas); stage 3 takes
# ideas; from stage 4 on each is named by what it makes (articles written, articles whose image
# prompts are written, images made, articles through the review gate).
STAGE_LIMIT_FIELDS = {
    1: "max_keywords_per_run",
    2: "max_clusters_per_run",
    3: "max_ideas_per_run",
    4: "max_content_per_run",
    5: "max_image_prompts_per_run",
    6: "max_images_per_run",
    7: "max_review_items_per_run",
}
# A stage's stored fields and their names in a ``stage_configs`` entry.
STAGE_CONFIG_NAMES = {
    "enabled": "enabled",
    "batch_size": "batch_size",
    "per_run_limit": "max_per_run",
    "use_testing": "use_testing",
    "budget_pct": "budget_pct",
}
# The delays (seconds) and their names in ``automation_config``.
DELAY_FIELDS = {"within_stage": "within_stage_delay", "between_stage": "between_stage_delay"}
# Field names of the unified ``publishing_settings`` whose stored name differs.
PUBLISHING_STORAGE_NAMES = {"publish_time_slots": "time_slots"}
AI_FIELDS = {"testing_model_id": "testing_model", "live_model_id": "live_model", "image_model_id": "image_model"}
LIMITS = ("daily_publish_limit", "weekly_publish_limit", "monthly_publish_limit")
LIMIT_ORDER_MESSAGES = {
    ("daily_publish_limit", "weekly_publish_limit"): "The daily limit cannot be greater than the weekly limit",
    ("daily_publish_limit", "monthly_publish_limit"): "The daily limit cannot be greater than the monthly limit",
    ("weekly_publish_limit", "monthly_publish_limit"): "The weekly limit cannot be greater than the monthly limit",
}
NO_FREE_SLOT = "No free publishing slot within the limits"
BUDGET_OVER_100 = "The stages' budget_pct add up to {total}; they may add up to at most 100"


def automation_config_names(number: int) -> dict[str, str]:
    """A stage's stored fields and their names in ``automation_config``."""
    return {"enabled": f"stage_{number}_enabled", "batch_size": f"stage_{number}_batch_size", "per_run_limit": STAGE_LIMIT_FIELDS[number]}


# The effective settings.


@dataclass(frozen=True)
class AutomationSchedule:
    enabled: bool
    frequency: str
    time: time
    scheduled_days: tuple[str, ...]
    next_run_at: datetime | None


@dataclass(frozen=True)
class StageSettings:
    number: int
    enabled: bool
    batch_size: int
    per_run_limit: int
    use_testing: bool
    budget_pct: int


@dataclass(frozen=True)
class Delays:
    within_stage: int
    between_stage: int


@dataclass(frozen=True)
class PublishingSettings:
    auto_approval_enabled: bool
    auto_publish_enabled: bool
    daily_publish_limit: int
    weekly_publish_limit: int
    monthly_publish_limit: int
    publish_days: tuple[str, ...]
    time_slots: tuple[dict, ...]  # {"start": "HH:MM", "end": "HH:MM"}
    total_items_per_run: int


@dataclass(frozen=True)
class ImageSettings:
    style: str
    max_images: int


@dataclass(frozen=True)
class AISettings:
    testing_model_id: int | None
    live_model_id: int | None
    image_model_id: int | None


@dataclass(frozen=True)
class EffectiveSiteSettings:
    """A site's settings as they apply: the defaults with the site's changes laid over them."""

    automation: AutomationSchedule
    stages: tuple[StageSettings, ...]
    delays: Delays
    publishing: PublishingSettings
    images: ImageSettings
    ai: AISettings

    def stage(self, number: int) -> StageSettings:
        return self.stages[number - 1]


def _overlay(defaults: dict, saved: dict) -> dict:
    """The defaults with the saved values of the same fields; saved fields that are no longer
    settings are ignored. Copied, so that no caller can change the defaults."""
    return {name: copy.deepcopy(saved.get(name, default)) for name, default in defaults.items()}


def _slot(value) -> dict:
    """A stored slot ``{start, end}``, or a start string (the defaults), as ``{start, end}``."""
    start = value if isinstance(value, str) else value["start"]
    end = None if isinstance(value, str) else value.get("end")
    return {"start": start, "end": end or slots.default_slot_end(start)}


def _stored(row: SiteSettings | None) -> dict:
    """What a site saved, per section: ``{automation, stages, delays, publishing, ai}``."""
    if row is None:
        return {"automation": {}, "stages": {}, "delays": {}, "publishing": {}, "ai": {}}
    return {
        "automation": row.automation,
        "stages": row.stages,
        "delays": row.delays,
        "publishing": row.publishing,
        "ai": {name: getattr(row, f"{field}_id") for name, field in AI_FIELDS.items() if getattr(row, f"{field}_id") is not None},
    }


def _effective(row: SiteSettings | None) -> EffectiveSiteSettings:
    saved = _stored(row)
    automation = _overlay({**DEFAULT_SETTINGS["automation"], **UNIFIED_ONLY_DEFAULTS["automation"]}, saved["automation"])
    publishing = _overlay({**DEFAULT_SETTINGS["publishing"], **UNIFIED_ONLY_DEFAULTS["publishing"]}, saved["publishing"])
    stages = [_overlay(stage, saved["stages"].get(str(stage["number"]), {})) for stage in DEFAULT_SETTINGS["stages"]]
    return EffectiveSiteSettings(
        automation=AutomationSchedule(
            enabled=automation["enabled"],
            frequency=automation["frequency"],
            time=slots.parse_time(automation["time"]),
            scheduled_days=tuple(automation["scheduled_days"]),
            next_run_at=row.next_run_at if row is not None else None,
        ),
        stages=tuple(StageSettings(**stage) for stage in stages),
        delays=Delays(**_overlay(DEFAULT_SETTINGS["delays"], saved["delays"])),
        publishing=PublishingSettings(
            **{name: publishing[name] for name in ("auto_approval_enabled", "auto_publish_enabled", *LIMITS, "total_items_per_run")},
            publish_days=tuple(publishing["publish_days"]),
            time_slots=tuple(_slot(value) for value in publishing["time_slots"]),
        ),
        images=ImageSettings(**DEFAULT_SETTINGS["images"]),
        ai=AISettings(**_overlay(UNIFIED_ONLY_DEFAULTS["ai"], saved["ai"])),
    )


def _row(site: Site) -> SiteSettings | None:
    return SiteSettings.objects.for_account(site.account_id).filter(site=site).first()


def effective_settings(site: Site) -> EffectiveSiteSettings:
    """The site's settings as they apply now (one query)."""
    return _effective(_row(site))


def default_settings() -> dict:
    """The spec's default settings (``GET /integration/settings/defaults/``)."""
    return copy.deepcopy(DEFAULT_SETTINGS)


# The unified shape.


def _automation_config(settings: EffectiveSiteSettings) -> dict:
    """The spec's ``automation_config``, plus the delays (``within_stage_delay``, ``between_stage_delay``)."""
    automation = settings.automation
    config = {
        "enabled": automation.enabled,
        "frequency": automation.frequency,
        "scheduled_days": list(automation.scheduled_days),
        "scheduled_time": automation.time.strftime("%H:%M:%S"),
        "next_run_at": automation.next_run_at,
    }
    for stage in settings.stages:
        config[f"stage_{stage.number}_enabled"] = stage.enabled
        config[f"stage_{stage.number}_batch_size"] = stage.batch_size
    for stage in settings.stages:
        config[STAGE_LIMIT_FIELDS[stage.number]] = stage.per_run_limit
    for name, field in DELAY_FIELDS.items():
        config[field] = getattr(settings.delays, name)
    return config


def _stage_configs(settings: EffectiveSiteSettings) -> list[dict]:
    """The spec's ``stage_configs``, each entry with the stage's ``use_testing`` and ``budget_pct`` too."""
    return [{field: getattr(stage, name) for name, field in {"number": "stage", **STAGE_CONFIG_NAMES}.items()} for stage in settings.stages]


def _unified(settings: EffectiveSiteSettings) -> dict:
    publishing = settings.publishing
    return {
        "automation_config": _automation_config(settings),
        "publishing_settings": {
            "auto_approval_enabled": publishing.auto_approval_enabled,
            "auto_publish_enabled": publishing.auto_publish_enabled,
            **{name: getattr(publishing, name) for name in LIMITS},
            "publish_days": list(publishing.publish_days),
            "publish_time_slots": [dict(slot) for slot in publishing.time_slots],
            "total_items_per_run": publishing.total_items_per_run,
        },
        "stage_configs": _stage_configs(settings),
        "ai_settings": {
            "testing_model_id": settings.ai.testing_model_id,
            "live_model_id": settings.ai.live_model_id,
            "image_model_id": settings.ai.image_model_id,
        },
    }


def unified_settings(site: Site) -> dict:
    """The spec's unified site settings (one query)."""
    return _unified(effective_settings(site))


def automation_config(site: Site) -> dict:
    """``GET /automation/config/``: the unified ``automation_config`` with the ``stage_configs`` (one query)."""
    settings = effective_settings(site)
    return {**_automation_config(settings), "stage_configs": _stage_configs(settings)}


def publishing_settings_resource(site: Site) -> dict:
    """The deprecated publishing settings resource: the same stored values, slots as start times.

    The resource has an id and timestamps of its own, so its row is made the first time it is
    read; an empty row holds no values, so making it changes nothing the site uses.
    """
    row, _ = SiteSettings.objects.for_account(site.account_id).get_or_create(account_id=site.account_id, site=site)
    publishing = _effective(row).publishing
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
    defaults["time_slots"] = [_slot(value) for value in defaults["time_slots"]]
    for name, value in values.items():
        _set(row.publishing, defaults, name, value)
    _check_limit_order(_overlay(defaults, row.publishing), prefix=prefix)


def _time_text(value: time) -> str:
    return value.strftime("%H:%M:%S" if value.second else "%H:%M")


def _check_budget_total(row: SiteSettings) -> None:
    """The seven stages' shares of a run's budget add up to at most 100 percent."""
    total = sum(stage.budget_pct for stage in _effective(row).stages)
    if total > MAX_TOTAL_BUDGET_PCT:
        raise BusinessRuleViolation({"stage_configs": [BUDGET_OVER_100.format(total=total)]})


def _schedule(row: SiteSettings) -> tuple:
    """What makes the schedule: a change of any of it moves ``next_run_at``."""
    automation = _effective(row).automation
    return automation.enabled, automation.frequency, automation.scheduled_days, automation.time


def next_scheduled_run(row: SiteSettings, site: Site, *, after: datetime) -> datetime | None:
    """The schedule's next run strictly after ``after`` in the site's time zone; None while
    automation is disabled (or no day is scheduled)."""
    automation = _effective(row).automation
    if not automation.enabled:
        return None
    return slots.next_run_at(
        after=after, time_zone=site.time_zone, frequency=automation.frequency, days=automation.scheduled_days, at=automation.time
    )


def _apply_automation(row: SiteSettings, site: Site, config: dict, stage_configs: list[dict], *, now: datetime) -> None:
    """Stores the automation fields of a validated ``automation_config`` and ``stage_configs``
    (the fields given), checks the budget total, and moves ``next_run_at`` when the schedule changed."""
    schedule_before = _schedule(row)
    defaults = {**DEFAULT_SETTINGS["automation"], **UNIFIED_ONLY_DEFAULTS["automation"]}
    schedule = {name: config[name] for name in ("enabled", "frequency", "scheduled_days") if name in config}
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
    if _schedule(row) != schedule_before:
        row.next_run_at = next_scheduled_run(row, site, after=now)


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
    row.save()
    return row


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
        ends = {slot["start"]: slot["end"] for slot in _effective(row).publishing.time_slots}
        values["time_slots"] = [_slot({"start": start, "end": ends.get(start)}) for start in values.pop("publish_time_slots")]
    _apply_publishing(row, values, prefix="")
    row.save()
    return row


@transaction.atomic
def site_settings_reset(*, site: Site) -> SiteSettings:
    """Returns every setting of the site to the defaults (the row, and its id, stay)."""
    row = _locked_row(site)
    row.automation, row.stages, row.delays, row.publishing = {}, {}, {}, {}
    row.testing_model = row.live_model = row.image_model = None
    row.next_run_at = next_scheduled_run(row, site, after=timezone.now())
    row.save()
    return row


# The automation dispatcher's claims (inkwell.automation.tasks).


def due_automation(*, now: datetime, limit: int = 500) -> list[SiteSettings]:
    """Every account's sites whose next automation run has come, the longest due first (index
    ``sitesettings_next_run``), with their site, account and subscription. At most ``limit``: the
    rest are still due at the next pass."""
    due = SiteSettings.dangerously_unscoped.filter(next_run_at__lte=now).select_related("site", "account__subscription")
    return list(due.order_by("next_run_at", "id")[:limit])


def claim_due_run(row: SiteSettings, *, now: datetime) -> bool:
    """Moves a due site's ``next_run_at`` on to the schedule's next run after ``now``, provided it
    still holds the time ``row`` was read with: of several dispatchers that read the same due row,
    exactly one claims it, and a schedule changed meanwhile keeps its new time."""
    following = next_scheduled_run(row, row.site, after=now)
    return SiteSettings.dangerously_unscoped.filter(pk=row.pk, next_run_at=row.next_run_at).update(next_run_at=following) == 1


@receiver(post_save, sender=Site, dispatch_uid="publishing.site_settings.follow_time_zone")
def follow_time_zone(sender, instance: Site, created: bool, **kwargs) -> None:
    """A site saved with another time zone runs its automation at the same local time in the new
    one. A run that is already due is left to the dispatcher, which computes the one after it in
    the new zone; for a site whose zone did not change, the next run after now is the stored one,
    so saving it changes nothing."""
    if created:
        return
    now = timezone.now()
    row = SiteSettings.objects.for_account(instance.account_id).filter(site=instance, next_run_at__gt=now).first()
    if row is None:
        return
    next_run_at = next_scheduled_run(row, instance, after=now)
    if next_run_at != row.next_run_at:
        SiteSettings.objects.for_account(instance.account_id).filter(pk=row.pk, next_run_at=row.next_run_at).update(next_run_at=next_run_at)


# Auto-publish placement.


def _taken_times(site: Site, *, start: datetime, end: datetime, exclude: Content) -> list[datetime]:
    """When the site's other content is scheduled or was published, between ``start`` and ``end`` (one query)."""
    upcoming = (SiteStatus.SCHEDULED, SiteStatus.PUBLISHING)
    rows = (
        Content.objects.for_account(site.account_id)
        .filter(site=site)
        .filter(Q(site_status__in=upcoming, scheduled_publish_at__range=(start, end)) | Q(published_at__range=(start, end)))
        .exclude(pk=exclude.pk)
        .values_list("site_status", "scheduled_publish_at", "published_at")
    )
    taken = []
    for site_status, scheduled_at, published_at in rows:
        if site_status in upcoming and scheduled_at is not None and start <= scheduled_at <= end:
            taken.append(scheduled_at)
        if published_at is not None and start <= published_at <= end:
            taken.append(published_at)
    return taken


@transaction.atomic
def schedule_in_next_slot(content: Content, *, after: datetime | None = None) -> dict:
    """Schedules the content in its site's next free publishing slot after ``after`` (now by
    default): a publish day and time slot in the site's time zone whose day, week and month are
    under their limits (``slots.next_free_slot``). Returns the schedule result.

    The site row is locked first, so two approvals on one site never take the same slot. None
    free within the planner's horizon is a 422 on ``scheduled_publish_at``.
    """
    site = Site.objects.for_account(content.account_id).select_for_update().get(pk=content.site_id)
    after = after or timezone.now()
    publishing = effective_settings(site).publishing
    taken = _taken_times(
        site, start=slots.window_start(after, site.time_zone), end=after + timedelta(days=slots.HORIZON_DAYS + 2), exclude=content
    )
    slot = slots.next_free_slot(
        after=after,
        time_zone=site.time_zone,
        publish_days=publishing.publish_days,
        time_slots=publishing.time_slots,
        daily_limit=publishing.daily_publish_limit,
        weekly_limit=publishing.weekly_publish_limit,
        monthly_limit=publishing.monthly_publish_limit,
        taken=taken,
    )
    if slot is None:
        raise BusinessRuleViolation({"scheduled_publish_at": [NO_FREE_SLOT]})
    return content_schedule(content=content, scheduled_publish_at=slot)
