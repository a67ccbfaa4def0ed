"""Automation runs: one pass of a site's seven-stage pipeline, its stages and its log."""

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q

from inkwell.jobs.models import Job
from inkwell.tenancy.models import AccountOwnedModel, Site

TOTAL_STAGES = 7


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    PAUSED = "paused", "Paused"
    CANCELLED = "cancelled", "Cancelled"
    COMPLETED = "completed", "Completed"
    # Contract section 12: a run that ended with any failed item (``completed``: nothing failed).
    COMPLETED_WITH_ERRORS = "completed_with_errors", "Completed with errors"
    FAILED = "failed", "Failed"


ACTIVE_RUN_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.PAUSED)


class RunTrigger(models.TextChoices):
    MANUAL = "manual", "Started by hand"
    SCHEDULED = "scheduled", "Started by the schedule"


class StageStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    COMPLETED = "completed", "Completed"
    SKIPPED = "skipped", "Skipped (disabled)"
    BUDGET_REACHED = "budget_reached", "Stopped at its budget"
    FAILED = "failed", "Failed"


class LogLevel(models.TextChoices):
    INFO = "info", "Info"
    WARNING = "warning", "Warning"
    ERROR = "error", "Error"


class AutomationRun(AccountOwnedModel):
    """One run of a site's pipeline. ``job`` is the job currently driving it (a resumed run gets a
    new one); ``current_item`` says what is being processed right now.

    ``in_flight`` is the engine's own record of the step whose inline job is running:
    ``{"job_id", "stage", "items": [[id, label], ...]}``, written with the job's creation and
    cleared with the step's accounting, so that an engine taking over after a crash finishes and
    counts that job exactly once. Not part of the API.
    """

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="automation_runs")
    status = models.CharField(max_length=24, choices=RunStatus.choices, default=RunStatus.QUEUED)
    trigger = models.CharField(max_length=10, choices=RunTrigger.choices, default=RunTrigger.MANUAL)
    job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    started_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    current_stage = models.PositiveSmallIntegerField(default=1)
    total_stages = models.PositiveSmallIntegerField(default=TOTAL_STAGES)
    items_processed = models.PositiveIntegerField(default=0)
    credits_used = models.PositiveIntegerField(default=0)
    budget = models.PositiveIntegerField(default=0, help_text="Credits the run may spend: its estimate when it started.")
    current_item = models.JSONField(default=dict, blank=True)
    in_flight = models.JSONField(default=dict, blank=True)
    error_message = models.TextField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["site"], condition=Q(status__in=ACTIVE_RUN_STATUSES), name="automation_one_active_run_per_site"),
        ]
        indexes = [
            models.Index(fields=["account", "site", "-started_at"], name="automation_run_site_recent"),
            models.Index(fields=["account", "status", "-started_at"], name="automation_run_status"),
        ]


class AutomationStageRun(AccountOwnedModel):
    """One stage of one run: what was pending when it began, what it processed, spent and skipped."""

    run = models.ForeignKey(AutomationRun, on_delete=models.CASCADE, related_name="stages")
    stage = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=StageStatus.choices, default=StageStatus.PENDING)
    pending_at_start = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    credits_used = models.PositiveIntegerField(default=0)
    budget = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    site_field: ClassVar[str | None] = "run__site"

    class Meta:
        ordering = ["run", "stage"]
        constraints = [models.UniqueConstraint(fields=["run", "stage"], name="automation_stage_once_per_run")]


class AutomationLog(AccountOwnedModel):
    """A structured line: every stage transition and every item a run processed."""

    run = models.ForeignKey(AutomationRun, on_delete=models.CASCADE, related_name="logs")
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    stage = models.PositiveSmallIntegerField(null=True, blank=True)
    level = models.CharField(max_length=8, choices=LogLevel.choices, default=LogLevel.INFO)
    event = models.CharField(max_length=40)
    message = models.CharField(max_length=500)
    item_type = models.CharField(max_length=20, blank=True)
    item_id = models.BigIntegerField(null=True, blank=True)
    # Why an item was left unprocessed (an ``item_failed`` line always has one; contract section 12).
    reason = models.CharField(max_length=500, blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["run", "-id"], name="automation_log_run"),
            models.Index(fields=["account", "site", "-created_at"], name="automation_log_site_recent"),
            models.Index(fields=["run", "level", "-id"], name="automation_log_run_level"),
            # The items a stage of the site's runs processed (stages 5 to 7 take the articles stage 4 wrote).
            models.Index(fields=["site", "stage", "item_id"], name="automation_log_site_item"),
        ]
