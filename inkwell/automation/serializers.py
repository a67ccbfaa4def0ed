"""Shapes of the automation endpoints (docs/automation.md).

Every automation endpoint names its site with ``site_id`` in the query string: another account's
site, or no site at all, is a 404; a site of the caller's account that an editor or viewer was
not granted is a 403. pause, resume and cancel also accept ``site_id`` and ``run_id`` in the body,
where another account's site is a 400 like every ``site_id`` in a payload.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied

from inkwell.api.filters import MAX_ID
from inkwell.automation.models import AutomationLog, AutomationRun, AutomationStageRun, RunStatus, RunTrigger
from inkwell.automation.stages import STAGES
from inkwell.sitesettings.defaults import STAGE_NUMBERS
from inkwell.sitesettings.serializers import AutomationConfigSerializer, StageConfigInputSerializer, StageConfigSerializer, validate_stage_entries
from inkwell.sitesettings.selectors import DELAY_FIELDS
from inkwell.api.serializers import REQUIRED, RejectUnknownFieldsMixin
from inkwell.tenancy.access import can_access_site
from inkwell.tenancy.models import Site
from inkwell.tenancy.serializers import AccountSiteField

SITE_ID_HELP = "The site whose automation this is (another account's site: 404)."
RUN_ID_HELP = "One of the site's runs (another run: 404)."
DIFFERS_FROM_QUERY = "Differs from {field} in the query string"
DIFFERS_FROM_FIELD = "Differs from {field}"
INVALID_LEVEL = "Invalid level; use info, warning or error"
# How many of its newest log lines a run's detail carries; /automation/logs/?run_id= pages through all.
DETAIL_LOG_LINES = 100


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class QuerySiteField(serializers.IntegerField):
    """``site_id`` in the query string, as the site: one of the caller's account's (404 otherwise)
    that the caller may touch (403 otherwise)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", SITE_ID_HELP)
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def run_validation(self, data=serializers.empty) -> Site:
        # The id is checked as an integer (its range included) before it is looked up.
        site_id = super().run_validation(data)
        request = self.context["request"]
        site = Site.objects.for_account(request.account).filter(pk=site_id).first()
        if site is None:
            raise NotFound()
        if not can_access_site(request, site.pk):
            raise PermissionDenied()
        return site


def _run_id(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text=RUN_ID_HELP, **kwargs)


# Query strings.


class SiteQuerySerializer(serializers.Serializer):
    site_id = QuerySiteField(source="site")


class RunDetailQuerySerializer(serializers.Serializer):
    site_id = QuerySiteField(source="site", help_text="The run's site (a run of another site: 404).")


class RunTargetQuerySerializer(serializers.Serializer):
    site_id = QuerySiteField(source="site", required=False, help_text=f"{SITE_ID_HELP} Required here or in the body.")
    run_id = _run_id(required=False)


class RunTargetInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """pause, resume and cancel name the site and, optionally, the run here or in the query string
    (both: they must agree). Without ``run_id``, the site's run that the action applies to."""

    site_id = AccountSiteField(source="site", required=False, help_text="The site; or ?site_id=.")
    run_id = _run_id(required=False)


def run_target(query: dict, body: dict) -> dict:
    """``{"site", "run_id"}`` from the validated query string and body of pause, resume or cancel."""
    target = {}
    for name, field in (("site", "site_id"), ("run_id", "run_id")):
        if name in query and name in body and query[name] != body[name]:
            raise serializers.ValidationError({field: [DIFFERS_FROM_QUERY.format(field=field)]})
        target[name] = body.get(name, query.get(name))
    if target["site"] is None:
        raise serializers.ValidationError({"site_id": ["This field is required"]})
    return target


# Configuration: the same stored values as the unified settings' automation_config and stage_configs.


class AutomationConfigResourceSerializer(AutomationConfigSerializer):
    """The unified settings' ``automation_config`` with the delays, and the ``stage_configs``, and
    the site they belong to (``site_id``), so that the answer can be sent back as it is to
    ``update_config/``, with or without ``?site_id=``."""

    site_id = serializers.IntegerField(read_only=True, help_text="The site whose automation this is.")
    stage_configs = StageConfigSerializer(many=True)


class AutomationConfigUpdateSerializer(RejectUnknownFieldsMixin, AutomationConfigSerializer):
    """A full update of the ``automation_config`` fields: each is required (``next_run_at``, read
    only, is ignored). The delays and ``stage_configs`` entries (for ``use_testing`` and
    ``budget_pct``) are optional and change what they name."""

    site_id = AccountSiteField(
        source="site", required=False, write_only=True, help_text="The site, as ``GET /automation/config/`` names it; or ?site_id= (both: they must agree)."
    )
    is_enabled = serializers.BooleanField(required=False, write_only=True, help_text="Another name of ``enabled`` (both: they must agree).")
    stage_configs = serializers.ListField(child=StageConfigInputSerializer(), required=False, max_length=len(STAGE_NUMBERS))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in DELAY_FIELDS.values():
            self.fields[field].required = False
        # ``enabled`` or its other name ``is_enabled``: one of them is required (``validate``), so
        # the schema cannot require ``enabled`` itself.
        self.fields["enabled"].required = False

    def to_internal_value(self, data):
        # Clients written from the spec's automation config call ``enabled`` ``is_enabled`` (issue 30).
        if isinstance(data, dict) and "is_enabled" in data and "enabled" not in data:
            data = {**data, "enabled": data["is_enabled"]}
        return super().to_internal_value(data)

    def validate(self, attrs):
        if "is_enabled" in attrs and attrs.pop("is_enabled") != attrs.get("enabled"):
            raise serializers.ValidationError({"is_enabled": [DIFFERS_FROM_FIELD.format(field="enabled")]})
        if "enabled" not in attrs and not self.partial:
            raise serializers.ValidationError({"enabled": [REQUIRED]})
        validate_stage_entries(attrs.get("stage_configs", []), attrs)
        return attrs


class ConfigQuerySerializer(serializers.Serializer):
    site_id = QuerySiteField(source="site", required=False, help_text=f"{SITE_ID_HELP} Required here or in the body.")


def config_site(query: dict, body: dict) -> Site:
    """The site of an ``update_config`` from its validated query string and body (``site`` popped
    from the body): named in either, in both the same."""
    target = run_target(query, {"site": body.pop("site")} if "site" in body else {})
    return target["site"]


# Runs.


class RunSerializer(serializers.ModelSerializer):
    """The spec's Automation run resource."""

    site = serializers.IntegerField(source="site_id", help_text="The site id.")
    status = serializers.ChoiceField(choices=RunStatus.choices, help_text="queued, running, paused, cancelled, completed (nothing failed), completed_with_errors (some item failed) or failed.")
    current_stage = serializers.IntegerField(help_text="The stage (1 to 7) the run is in, or ended in.")
    total_stages = serializers.IntegerField(help_text="7 for the pipeline.")
    items_processed = serializers.IntegerField()
    credits_used = serializers.IntegerField()

    class Meta:
        model = AutomationRun
        fields = ["id", "site", "status", "started_at", "completed_at", "current_stage", "total_stages", "items_processed", "credits_used", "error_message"]


class StageRunSerializer(serializers.ModelSerializer):
    name = serializers.SerializerMethodField(help_text="What the stage turns into what.")
    pending_at_start = serializers.IntegerField(help_text="Items pending when the stage began.")
    processed = serializers.IntegerField()
    failed = serializers.IntegerField()
    credits_used = serializers.IntegerField()
    budget = serializers.IntegerField(help_text="Credits the stage may spend: its budget_pct of the run's budget plus what earlier stages left.")

    class Meta:
        model = AutomationStageRun
        fields = ["stage", "name", "status", "pending_at_start", "processed", "failed", "credits_used", "budget", "started_at", "finished_at"]

    def get_name(self, stage: AutomationStageRun) -> str:
        return STAGES[stage.stage].name


class LogSerializer(serializers.ModelSerializer):
    run_id = serializers.IntegerField(read_only=True)
    data = serializers.DictField(help_text="The line's structured details (ids, counts, credits).")
    reason = serializers.CharField(help_text="Why the item was left unprocessed: set on every item_failed line, else empty.")

    class Meta:
        model = AutomationLog
        fields = ["id", "run_id", "stage", "level", "event", "message", "item_type", "item_id", "reason", "data", "created_at"]


class RunWithStagesSerializer(RunSerializer):
    """A run with how it was started, its credit budget and its stages so far."""

    trigger = serializers.ChoiceField(choices=RunTrigger.choices, help_text="manual or scheduled.")
    budget = serializers.IntegerField(help_text="The run's budget, which the stages' budget_pct split: the estimate's budget when it started.")
    stages = StageRunSerializer(many=True, help_text="The stages begun so far, in order.")

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "trigger", "budget", "stages"]


class RunDetailSerializer(RunWithStagesSerializer):
    log_count = serializers.IntegerField(help_text="All of the run's log lines.")
    logs = LogSerializer(
        many=True, source="recent_logs", help_text=f"The newest {DETAIL_LOG_LINES} log lines, newest first; /automation/logs/?run_id= has them all."
    )

    class Meta(RunWithStagesSerializer.Meta):
        fields = [*RunWithStagesSerializer.Meta.fields, "log_count", "logs"]


class HistoryItemSerializer(RunSerializer):
    """A finished run in brief."""

    trigger = serializers.ChoiceField(choices=RunTrigger.choices, help_text="manual or scheduled.")
    duration_seconds = serializers.SerializerMethodField(help_text="From its start to its end.")

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "trigger", "duration_seconds"]

    def get_duration_seconds(self, run: AutomationRun) -> int | None:
        return None if run.completed_at is None else int((run.completed_at - run.started_at).total_seconds())


class RunStartedSerializer(serializers.Serializer):
    run_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=RunStatus.choices)


# What the pipeline holds (inkwell.automation.selectors).


class PipelineStageSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="The stage, 1 to 7.")
    name = serializers.CharField()
    item_type = serializers.CharField(help_text="What the stage takes: keyword, cluster, idea, task, content or image.")
    pending = serializers.IntegerField(help_text="Items waiting for the stage now.")


class PipelineOverviewSerializer(serializers.Serializer):
    site_id = serializers.IntegerField()
    stages = PipelineStageSerializer(many=True)
    total_pending = serializers.IntegerField()


class ProcessingItemSerializer(serializers.Serializer):
    item_type = serializers.CharField(allow_null=True)
    item_id = serializers.IntegerField(allow_null=True)
    label = serializers.CharField(allow_null=True, help_text="The item's keyword, name or title.")
    job_id = serializers.IntegerField(allow_null=True, help_text="The job processing it, when one does.")


class CurrentProcessingSerializer(serializers.Serializer):
    """Null run fields and zero counts when no run of the site is active."""

    run_id = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=RunStatus.choices, allow_null=True)
    current_stage = serializers.IntegerField(allow_null=True)
    stage_name = serializers.CharField(allow_null=True)
    item = ProcessingItemSerializer(allow_null=True, help_text="The item being processed; null between items.")
    done = serializers.IntegerField(help_text="Items of the current stage done so far.")
    total = serializers.IntegerField(help_text="Items the current stage takes in this run.")
    items_processed = serializers.IntegerField()
    credits_used = serializers.IntegerField()


class EstimateStageSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    enabled = serializers.BooleanField()
    pending = serializers.IntegerField(help_text="Items waiting for the stage now.")
    projected_items = serializers.IntegerField(
        help_text="Items a run would process: pending ones and those earlier stages make, within the per-run limit and the stage's budget share."
    )
    credits = serializers.IntegerField(help_text="What the stage spends on them.")
    budget_reached = serializers.BooleanField(help_text="The stage's budget_pct share stops it before its items are done (the rest waits for a later run).")
    exact = serializers.BooleanField(help_text="False downstream of clustering, whose number of clusters only the provider knows.")


class EstimateSerializer(serializers.Serializer):
    estimated_credits = serializers.IntegerField(help_text="What the run spends: the sum of the stages' credits.")
    current_balance = serializers.IntegerField(help_text="Credits available now.")
    sufficient = serializers.BooleanField(help_text="The balance covers the estimate; run_now answers 402 otherwise.")
    budget = serializers.IntegerField(help_text="The run's budget, which the stages' budget_pct split: what every stage would cost with no split.")
    stages = EstimateStageSerializer(many=True)
