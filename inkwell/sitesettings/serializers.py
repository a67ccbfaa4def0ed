"""Shapes of the site settings endpoints: unified settings (read and PATCH), default settings, and
the deprecated publishing settings.

Input is checked field by field here (400); a field error names its path with dots, as every
error of the API does: ``publishing_settings.daily_publish_limit``,
``publishing_settings.publish_time_slots.0.end``, ``stage_configs.2.batch_size``. A field the
endpoint does not know is a 400 ("Unknown field"); read-only fields sent back (``next_run_at``,
``id``) are ignored. The rules across fields, daily ≤ weekly ≤ monthly and the stages' budget
percentages adding up to at most 100, are the service's (422).

Beyond the spec's fields, ``automation_config`` carries the delays (``within_stage_delay``,
``between_stage_delay``, seconds) and each ``stage_configs`` entry the stage's ``use_testing``
and ``budget_pct``; the defaults endpoint keeps the spec's shape word for word.
"""

import re
from datetime import time

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inkwell.api.serializers import REQUIRED, OptionalFieldsMixin, RejectUnknownFieldsMixin
from inkwell.sitesettings import slots
from inkwell.sitesettings.defaults import AUTOMATION_FREQUENCIES, DAYS, MAX_TOTAL_BUDGET_PCT, STAGE_NUMBERS
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.selectors import DELAY_FIELDS, STAGE_CONFIG_NAMES, STAGE_LIMIT_FIELDS, automation_config_names

INVALID_DAY = "Invalid day name; use mon, tue, wed, thu, fri, sat or sun"
DUPLICATE_DAY = "Each day may appear once"
NO_DAYS = "Choose at least one day"
INVALID_TIME = "Enter a time as HH:MM"
INVALID_SCHEDULED_TIME = "Enter a time as HH:MM or HH:MM:SS"
SLOT_ENDS_TOO_EARLY = "The end must be after the start"
DUPLICATE_SLOT = "Each start time may appear once"
NO_SLOTS = "Give at least one time slot"
DUPLICATE_STAGE = "Each stage may appear once"
NOT_TEXT_MODEL = "Choose an active text model"
NOT_IMAGE_MODEL = "Choose an active image model"
# The kinds of the AI model catalogue (``AIModel.kind``).
TEXT_MODEL = "text"
IMAGE_MODEL = "image"
CONFLICTING_STAGE_VALUE = "Differs from automation_config.{field} in the same request"

HH_MM = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
HH_MM_SS = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?")
MAX_SLOTS = 24
MAX_BATCH_SIZE = 1000
MAX_PER_RUN = 100_000
MAX_PUBLISH_LIMIT = 10_000
MAX_DELAY_SECONDS = 3600

LIMIT_HELP = "0 means no limit. Daily ≤ weekly ≤ monthly among the limits that are not 0 (422 otherwise)."
PER_RUN_HELP = "The most items the stage takes in one run; 0 means no limit."
# What each stage does, and what its per-run limit counts (STAGE_LIMIT_FIELDS names them).
STAGE_WORK = {
    1: "keywords → clusters",
    2: "clusters → ideas",
    3: "ideas → tasks",
    4: "tasks → content",
    5: "content → image prompts",
    6: "image prompts → images",
    7: "review gate",
}
STAGE_LIMIT_HELP = {
    1: "the most keywords one run clusters",
    2: "the most clusters one run generates ideas for",
    3: "the most ideas one run turns into tasks",
    4: "the most articles one run writes (content generation)",
    5: "the most articles one run writes image prompts for",
    6: "the most images one run generates",
    7: "the most articles one run moves through the review gate",
}
BATCH_HELP = "Items the stage sends to the AI together; at least 1."
USE_TESTING_HELP = "The stage uses the testing model instead of the live one."
BUDGET_PCT_HELP = "The stage's share of a run's credit budget, in percent; the seven stages add up to at most 100 (422 otherwise)."
DELAY_HELP = {
    "within_stage": "Seconds between the items of a stage.",
    "between_stage": "Seconds between one stage and the next.",
}


@extend_schema_field({"type": "string", "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$", "example": "09:00"})
class TimeOfDayField(serializers.CharField):
    """``HH:MM``, 00:00 to 23:59."""

    default_error_messages = {"invalid": INVALID_TIME}

    def to_internal_value(self, data):
        if not isinstance(data, str) or not HH_MM.fullmatch(data):
            self.fail("invalid")
        return data


@extend_schema_field({"type": "string", "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$", "example": "02:00:00"})
class ScheduledTimeField(serializers.Field):
    """``HH:MM`` or ``HH:MM:SS`` in; ``HH:MM:SS`` out."""

    default_error_messages = {"invalid": INVALID_SCHEDULED_TIME}

    def to_internal_value(self, data) -> time:
        if not isinstance(data, str) or not HH_MM_SS.fullmatch(data):
            self.fail("invalid")
        return time.fromisoformat(data)

    def to_representation(self, value) -> str:
        return value


class DaysField(serializers.ListField):
    """Day names, each once, at least one; kept in week order (Monday first)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "Lowercase three-letter day names: mon, tue, wed, thu, fri, sat, sun.")
        day = serializers.ChoiceField(choices=DAYS, error_messages={"invalid_choice": INVALID_DAY})
        super().__init__(child=day, min_length=1, max_length=len(DAYS), error_messages={"min_length": NO_DAYS}, **kwargs)

    def to_internal_value(self, data):
        days = super().to_internal_value(data)
        if len(set(days)) != len(days):
            raise serializers.ValidationError(DUPLICATE_DAY)
        return sorted(days, key=DAYS.index)


def _count(*, minimum: int, maximum: int, help_text: str, required: bool = True) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=minimum, max_value=maximum, help_text=help_text, required=required)


# Time slots.


class TimeSlotSerializer(serializers.Serializer):
    start = TimeOfDayField(help_text="HH:MM in the site's time zone: when content in this slot is published.")
    end = TimeOfDayField(help_text="HH:MM, after the start.")


class TimeSlotInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    start = TimeOfDayField(help_text="HH:MM in the site's time zone: when content in this slot is published.")
    end = TimeOfDayField(required=False, help_text="HH:MM, after the start; an hour after the start when left out (at most 23:59).")

    def validate(self, attrs):
        if "end" not in attrs:
            return {"start": attrs["start"], "end": slots.default_slot_end(attrs["start"])}
        if attrs["end"] <= attrs["start"]:
            raise serializers.ValidationError({"end": [SLOT_ENDS_TOO_EARLY]})
        return attrs


class TimeSlotsField(serializers.ListField):
    """Slots with distinct starts, at least one, sorted by start; a slot is ``{start, end}`` or,
    in the deprecated resource, a start string."""

    def __init__(self, **kwargs):
        super().__init__(min_length=1, max_length=MAX_SLOTS, error_messages={"min_length": NO_SLOTS}, **kwargs)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        starts = [value if isinstance(value, str) else value["start"] for value in values]
        if len(set(starts)) != len(starts):
            raise serializers.ValidationError(DUPLICATE_SLOT)
        return sorted(values, key=lambda value: value if isinstance(value, str) else value["start"])


# Unified settings. automation_config is built from the stage numbers, so the names cannot drift.


def _automation_fields() -> dict:
    fields = {
        "enabled": serializers.BooleanField(help_text="Automation runs on its schedule."),
        "frequency": serializers.ChoiceField(
            choices=AUTOMATION_FREQUENCIES,
            help_text=(
                "hourly: every hour of the scheduled days, at the minute of scheduled_time; daily: every scheduled day; "
                "weekly: the first scheduled day of each week; monthly: the first scheduled day of each month."
            ),
        ),
        "scheduled_days": DaysField(),
        "scheduled_time": ScheduledTimeField(help_text="When runs start, in the site's time zone."),
        "next_run_at": serializers.DateTimeField(
            read_only=True, allow_null=True, help_text="When the schedule starts the next run; null while automation is disabled."
        ),
        "include_manual_drafts": serializers.BooleanField(
            required=False,
            help_text=(
                "Stages 5 to 7 (image prompts, images, the review gate) also take drafts made by hand; "
                "off (the default), they take only the articles the pipeline wrote."
            ),
        ),
    }
    for number in STAGE_NUMBERS:
        fields[f"stage_{number}_enabled"] = serializers.BooleanField(help_text=f"Stage {number} ({STAGE_WORK[number]}) runs; a disabled stage is skipped.")
        fields[f"stage_{number}_batch_size"] = _count(minimum=1, maximum=MAX_BATCH_SIZE, help_text=f"Stage {number} ({STAGE_WORK[number]}). {BATCH_HELP}")
    for number in STAGE_NUMBERS:
        fields[STAGE_LIMIT_FIELDS[number]] = _count(minimum=0, maximum=MAX_PER_RUN, help_text=f"Stage {number}: {STAGE_LIMIT_HELP[number]}; 0 means no limit.")
    for name, field in DELAY_FIELDS.items():
        fields[field] = _count(minimum=0, maximum=MAX_DELAY_SECONDS, help_text=DELAY_HELP[name])
    return fields


AutomationConfigSerializer = type("AutomationConfigSerializer", (serializers.Serializer,), _automation_fields())


class AutomationConfigInputSerializer(OptionalFieldsMixin, RejectUnknownFieldsMixin, AutomationConfigSerializer):
    pass


class PublishingFieldsSerializer(serializers.Serializer):
    """The publishing fields the unified settings and the deprecated resource share."""

    auto_approval_enabled = serializers.BooleanField(help_text="Generated content skips review.")
    auto_publish_enabled = serializers.BooleanField(help_text="Approved content goes into the next free slot.")
    daily_publish_limit = _count(minimum=0, maximum=MAX_PUBLISH_LIMIT, help_text=LIMIT_HELP)
    weekly_publish_limit = _count(minimum=0, maximum=MAX_PUBLISH_LIMIT, help_text=LIMIT_HELP)
    monthly_publish_limit = _count(minimum=0, maximum=MAX_PUBLISH_LIMIT, help_text=LIMIT_HELP)
    publish_days = DaysField()


class PublishingSettingsSerializer(PublishingFieldsSerializer):
    publish_time_slots = TimeSlotsField(child=TimeSlotSerializer(), help_text="Publishing slots in the site's time zone.")
    total_items_per_run = _count(minimum=0, maximum=MAX_PER_RUN, help_text="The most items one automation run publishes; 0 means no limit.")


class PublishingSettingsInputSerializer(OptionalFieldsMixin, RejectUnknownFieldsMixin, PublishingSettingsSerializer):
    publish_time_slots = TimeSlotsField(child=TimeSlotInputSerializer(), help_text="{start, end} objects; end defaults to an hour after start.")


class StageConfigSerializer(serializers.Serializer):
    stage = serializers.IntegerField(min_value=1, max_value=len(STAGE_NUMBERS))
    enabled = serializers.BooleanField()
    batch_size = _count(minimum=1, maximum=MAX_BATCH_SIZE, help_text=BATCH_HELP)
    max_per_run = _count(minimum=0, maximum=MAX_PER_RUN, help_text=PER_RUN_HELP)
    use_testing = serializers.BooleanField(help_text=USE_TESTING_HELP)
    budget_pct = _count(minimum=0, maximum=MAX_TOTAL_BUDGET_PCT, help_text=BUDGET_PCT_HELP)


class StageConfigInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    stage = serializers.IntegerField(min_value=1, max_value=len(STAGE_NUMBERS), help_text="The stage (1 to 7) whose other fields change.")
    enabled = serializers.BooleanField(required=False)
    batch_size = _count(minimum=1, maximum=MAX_BATCH_SIZE, help_text=BATCH_HELP, required=False)
    max_per_run = _count(minimum=0, maximum=MAX_PER_RUN, help_text=PER_RUN_HELP, required=False)
    use_testing = serializers.BooleanField(required=False, help_text=USE_TESTING_HELP)
    budget_pct = _count(minimum=0, maximum=MAX_TOTAL_BUDGET_PCT, help_text=BUDGET_PCT_HELP, required=False)


def validate_stage_entries(entries: list[dict], config: dict) -> list[dict]:
    """``stage_configs`` entries name each stage once, and agree with the same stage's values in
    ``automation_config`` when a request gives both (errors name ``stage_configs.N.field``)."""
    seen = set()
    for index, entry in enumerate(entries):
        # A PATCH makes every field optional, the entries' own included; an entry still names its stage.
        if "stage" not in entry:
            raise serializers.ValidationError({f"stage_configs.{index}.stage": [REQUIRED]})
        if entry["stage"] in seen:
            raise serializers.ValidationError({f"stage_configs.{index}.stage": [DUPLICATE_STAGE]})
        seen.add(entry["stage"])
        for stored, field in automation_config_names(entry["stage"]).items():
            name = STAGE_CONFIG_NAMES[stored]
            if name in entry and field in config and entry[name] != config[field]:
                raise serializers.ValidationError({f"stage_configs.{index}.{name}": [CONFLICTING_STAGE_VALUE.format(field=field)]})
    return entries


class AISettingsSerializer(serializers.Serializer):
    testing_model_id = serializers.IntegerField(allow_null=True, help_text="A text model of /system/ai-models/; null: the account's testing model.")
    live_model_id = serializers.IntegerField(allow_null=True, help_text="A text model of /system/ai-models/; null: the account's live model.")
    image_model_id = serializers.IntegerField(allow_null=True, help_text="An image model of /system/ai-models/; null: the account's image model.")


@extend_schema_field(OpenApiTypes.INT)
class AIModelField(serializers.PrimaryKeyRelatedField):
    """The id of an active model of one kind in the catalogue (``GET /system/ai-models/``), or null."""

    def __init__(self, *, kind: str, message: str, **kwargs):
        self.kind = kind
        super().__init__(allow_null=True, required=False, error_messages={"does_not_exist": message, "incorrect_type": message}, **kwargs)

    def get_queryset(self):
        # The catalogue is the model the settings' foreign keys name (system's AIModel): system sits
        # above this app and reads these settings, so the catalogue is reached through the relation.
        catalogue = SiteSettings._meta.get_field("testing_model").related_model
        return catalogue.objects.filter(kind=self.kind, is_active=True)


class AISettingsInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    testing_model_id = AIModelField(kind=TEXT_MODEL, message=NOT_TEXT_MODEL, help_text="An active text model; null: the account's.")
    live_model_id = AIModelField(kind=TEXT_MODEL, message=NOT_TEXT_MODEL, help_text="An active text model; null: the account's.")
    image_model_id = AIModelField(kind=IMAGE_MODEL, message=NOT_IMAGE_MODEL, help_text="An active image model; null: the account's.")


class PerformanceSettingsSerializer(serializers.Serializer):
    """Search performance (issue #37): review-by dates and the thresholds of the opportunities."""

    review_after_months = serializers.IntegerField(min_value=1, max_value=60, help_text="An article is due for review this many months after it was published or last reviewed.")
    decay_threshold_pct = serializers.IntegerField(min_value=1, max_value=100, help_text="Decaying: clicks per day fell by at least this percentage against the previous period.")
    decay_min_clicks = serializers.IntegerField(min_value=0, max_value=1_000_000, help_text="Decaying needs at least this many clicks in the previous period.")
    striking_min_position = serializers.IntegerField(min_value=1, max_value=100, help_text="Striking distance starts at this position.")
    striking_max_position = serializers.IntegerField(min_value=1, max_value=100, help_text="Striking distance ends at this position.")
    striking_min_impressions = serializers.IntegerField(min_value=0, max_value=100_000_000, help_text="Striking distance needs at least this many impressions.")


class PerformanceSettingsInputSerializer(OptionalFieldsMixin, RejectUnknownFieldsMixin, PerformanceSettingsSerializer):
    pass


class ReviewRulesSerializer(serializers.Serializer):
    four_eyes = serializers.BooleanField(help_text="Content is approved by someone other than the person who last edited it; the automation never approves.")
    client_approval = serializers.BooleanField(
        help_text="An approval through a review link, newer than the last edit, comes before the team's own; the automation never approves."
    )


class ReviewRulesInputSerializer(OptionalFieldsMixin, RejectUnknownFieldsMixin, ReviewRulesSerializer):
    pass


class UnifiedSettingsSerializer(serializers.Serializer):
    automation_config = AutomationConfigSerializer()
    publishing_settings = PublishingSettingsSerializer()
    stage_configs = StageConfigSerializer(many=True)
    ai_settings = AISettingsSerializer()
    performance_settings = PerformanceSettingsSerializer()
    review_rules = ReviewRulesSerializer()


class UnifiedSettingsInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A partial change: each section, and each field in it, is optional; ``stage_configs``
    entries name the ``stage`` they change."""

    automation_config = AutomationConfigInputSerializer(required=False)
    publishing_settings = PublishingSettingsInputSerializer(required=False)
    stage_configs = serializers.ListField(child=StageConfigInputSerializer(), required=False, max_length=len(STAGE_NUMBERS))
    ai_settings = AISettingsInputSerializer(required=False)
    performance_settings = PerformanceSettingsInputSerializer(required=False)
    review_rules = ReviewRulesInputSerializer(required=False)

    def validate(self, attrs):
        """A request may give a stage's value twice (``automation_config`` and ``stage_configs``), but not two different values."""
        validate_stage_entries(attrs.get("stage_configs", []), attrs.get("automation_config", {}))
        return attrs


# Default settings.


class DefaultAutomationSerializer(serializers.Serializer):
    enabled = serializers.BooleanField()
    frequency = serializers.CharField()
    time = serializers.CharField(help_text="HH:MM")


class DefaultStageSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    enabled = serializers.BooleanField()
    batch_size = serializers.IntegerField()
    per_run_limit = serializers.IntegerField(help_text="0 means no limit.")
    use_testing = serializers.BooleanField(help_text="The stage uses the testing model.")
    budget_pct = serializers.IntegerField(help_text="The stage's share of a run's credit budget, in percent.")


class DefaultDelaysSerializer(serializers.Serializer):
    within_stage = serializers.IntegerField(help_text="Seconds between items of a stage.")
    between_stage = serializers.IntegerField(help_text="Seconds between stages.")


class DefaultPublishingSerializer(serializers.Serializer):
    auto_approval_enabled = serializers.BooleanField()
    auto_publish_enabled = serializers.BooleanField()
    daily_publish_limit = serializers.IntegerField()
    weekly_publish_limit = serializers.IntegerField()
    monthly_publish_limit = serializers.IntegerField()
    publish_days = serializers.ListField(child=serializers.CharField())
    time_slots = serializers.ListField(child=serializers.CharField(), help_text="Slot start times, HH:MM.")


class DefaultImagesSerializer(serializers.Serializer):
    style = serializers.CharField()
    max_images = serializers.IntegerField()


class DefaultSettingsSerializer(serializers.Serializer):
    automation = DefaultAutomationSerializer()
    stages = DefaultStageSerializer(many=True)
    delays = DefaultDelaysSerializer()
    publishing = DefaultPublishingSerializer()
    images = DefaultImagesSerializer()


# Publishing settings (deprecated).


class PublishingSettingsResourceSerializer(RejectUnknownFieldsMixin, PublishingFieldsSerializer):
    """The deprecated resource. As input, every field but the read-only ones is required for PUT
    and optional for PATCH."""

    id = serializers.IntegerField(read_only=True)
    site = serializers.IntegerField(read_only=True, help_text="The site id.")
    publish_time_slots = TimeSlotsField(
        child=TimeOfDayField(), help_text="Slot start times, HH:MM. A start the site has already keeps its end; a new one ends an hour later."
    )
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)
