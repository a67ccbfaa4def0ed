"""Reads of a site's settings (spec: Unified site settings, Default settings, Publishing settings;
the automation configuration of ``/automation/config/``).

Every read starts from the central defaults (``inkwell.sitesettings.defaults``) and lays the site's
saved changes (``SiteSettings``) over them. Other domains read a site's settings through
``effective_settings(site=site)``:

    settings = effective_settings(site=site)
    settings.automation.enabled, settings.automation.time          # the schedule
    settings.automation.next_run_at                                # None while disabled
    settings.stage(4).batch_size, settings.stage(4).per_run_limit  # 0: no limit
    settings.stage(4).use_testing, settings.stage(4).budget_pct
    settings.delays.within_stage, settings.delays.between_stage    # seconds
    settings.publishing.daily_publish_limit, settings.publishing.time_slots
    settings.images.max_images, settings.ai.live_model_id

``next_run_at`` is stored (``SiteSettings.next_run_at``), not computed on read: every write that
changes the schedule (enabled, frequency, days, time) or the site's time zone sets it to the
schedule's next run after now, or None when automation is disabled, and the automation dispatcher
(``inkwell.automation.services.claim_due_run``) moves it on when it claims a due run. Reads show
the stored value.
"""

import copy
from dataclasses import dataclass
from datetime import datetime, time

from inkwell.sitesettings import slots
from inkwell.sitesettings.defaults import DEFAULT_SETTINGS, UNIFIED_ONLY_DEFAULTS
from inkwell.sitesettings.models import SiteSettings
from inkwell.tenancy.models import Site

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
LIMITS = ("daily_publish_limit", "weekly_publish_limit", "monthly_publish_limit")
AI_FIELDS = {"testing_model_id": "testing_model", "live_model_id": "live_model", "image_model_id": "image_model"}
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
    # Stages 5 to 7 also take drafts made by hand (else only the articles the pipeline wrote).
    include_manual_drafts: bool = False


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
class PerformanceSettings:
    review_after_months: int
    decay_threshold_pct: int
    decay_min_clicks: int
    striking_min_position: int
    striking_max_position: int
    striking_min_impressions: int


@dataclass(frozen=True)
class ReviewRules:
    """A site's approval rules. ``four_eyes``: content is approved by someone other than the person
    who last edited it. ``client_approval``: an approval through a review link, newer than the last
    edit, comes before the team's own."""

    four_eyes: bool
    client_approval: bool

    @property
    def person_required(self) -> bool:
        """Whether approving needs a person: then the automation never approves."""
        return self.four_eyes or self.client_approval


@dataclass(frozen=True)
class EffectiveSiteSettings:
    """A site's settings as they apply: the defaults with the site's changes laid over them."""

    automation: AutomationSchedule
    stages: tuple[StageSettings, ...]
    delays: Delays
    publishing: PublishingSettings
    images: ImageSettings
    ai: AISettings
    performance: PerformanceSettings
    review: ReviewRules

    def stage(self, number: int) -> StageSettings:
        return self.stages[number - 1]


def overlay_defaults(defaults: dict, saved: dict) -> dict:
    """The defaults with the saved values of the same fields; saved fields that are no longer
    settings are ignored. Copied, so that no caller can change the defaults."""
    return {name: copy.deepcopy(saved.get(name, default)) for name, default in defaults.items()}


def slot_with_end(value) -> dict:
    """A stored slot ``{start, end}``, or a start string (the defaults), as ``{start, end}``."""
    start = value if isinstance(value, str) else value["start"]
    end = None if isinstance(value, str) else value.get("end")
    return {"start": start, "end": end or slots.default_slot_end(start)}


def _stored(row: SiteSettings | None) -> dict:
    """What a site saved, per section: ``{automation, stages, delays, publishing, ai}``."""
    if row is None:
        return {"automation": {}, "stages": {}, "delays": {}, "publishing": {}, "ai": {}, "performance": {}, "review": {}}
    return {
        "automation": row.automation,
        "stages": row.stages,
        "delays": row.delays,
        "publishing": row.publishing,
        "performance": row.performance,
        "review": row.review,
        "ai": {name: getattr(row, f"{field}_id") for name, field in AI_FIELDS.items() if getattr(row, f"{field}_id") is not None},
    }


def effective_from_row(row: SiteSettings | None) -> EffectiveSiteSettings:
    saved = _stored(row)
    automation = overlay_defaults({**DEFAULT_SETTINGS["automation"], **UNIFIED_ONLY_DEFAULTS["automation"]}, saved["automation"])
    publishing = overlay_defaults({**DEFAULT_SETTINGS["publishing"], **UNIFIED_ONLY_DEFAULTS["publishing"]}, saved["publishing"])
    stages = [overlay_defaults(stage, saved["stages"].get(str(stage["number"]), {})) for stage in DEFAULT_SETTINGS["stages"]]
    return EffectiveSiteSettings(
        automation=AutomationSchedule(
            enabled=automation["enabled"],
            frequency=automation["frequency"],
            time=slots.parse_time(automation["time"]),
            scheduled_days=tuple(automation["scheduled_days"]),
            next_run_at=row.next_run_at if row is not None else None,
            include_manual_drafts=automation["include_manual_drafts"],
        ),
        stages=tuple(StageSettings(**stage) for stage in stages),
        delays=Delays(**overlay_defaults(DEFAULT_SETTINGS["delays"], saved["delays"])),
        publishing=PublishingSettings(
            **{name: publishing[name] for name in ("auto_approval_enabled", "auto_publish_enabled", *LIMITS, "total_items_per_run")},
            publish_days=tuple(publishing["publish_days"]),
            time_slots=tuple(slot_with_end(value) for value in publishing["time_slots"]),
        ),
        images=ImageSettings(**DEFAULT_SETTINGS["images"]),
        ai=AISettings(**overlay_defaults(UNIFIED_ONLY_DEFAULTS["ai"], saved["ai"])),
        performance=PerformanceSettings(**overlay_defaults(UNIFIED_ONLY_DEFAULTS["performance"], saved["performance"])),
        review=ReviewRules(**overlay_defaults(UNIFIED_ONLY_DEFAULTS["review"], saved["review"])),
    )


def _row(site: Site) -> SiteSettings | None:
    return SiteSettings.objects.for_account(site.account_id).filter(site=site).first()


def effective_settings(*, site: Site) -> EffectiveSiteSettings:
    """The site's settings as they apply now (one query)."""
    return effective_from_row(_row(site))


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
        "include_manual_drafts": automation.include_manual_drafts,
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
        "performance_settings": dict(settings.performance.__dict__),
        "review_rules": {"four_eyes": settings.review.four_eyes, "client_approval": settings.review.client_approval},
    }


def unified_settings(*, site: Site) -> dict:
    """The spec's unified site settings (one query)."""
    return _unified(effective_settings(site=site))


def automation_config(*, site: Site) -> dict:
    """``GET /automation/config/``: the unified ``automation_config`` with the ``stage_configs`` (one query)."""
    settings = effective_settings(site=site)
    return {**_automation_config(settings), "stage_configs": _stage_configs(settings)}


def schedule_key(row: SiteSettings) -> tuple:
    """What makes the schedule: a change of any of it moves ``next_run_at``."""
    automation = effective_from_row(row).automation
    return automation.enabled, automation.frequency, automation.scheduled_days, automation.time


def next_scheduled_run(*, row: SiteSettings, site: Site, after: datetime) -> datetime | None:
    """The schedule's next run strictly after ``after`` in the site's time zone; None while
    automation is disabled (or no day is scheduled)."""
    automation = effective_from_row(row).automation
    if not automation.enabled:
        return None
    return slots.next_run_at(
        after=after, time_zone=site.time_zone, frequency=automation.frequency, days=automation.scheduled_days, at=automation.time
    )


