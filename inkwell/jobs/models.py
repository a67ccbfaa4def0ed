from typing import ClassVar

from django.conf import settings
from django.db import models

from inkwell.tenancy.models import AccountOwnedModel, Site


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE_JOB_STATUSES = frozenset({JobStatus.QUEUED, JobStatus.RUNNING})


class Job(AccountOwnedModel):
    """One piece of background work and its progress, as the caller sees it."""

    site = models.ForeignKey(Site, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=60)
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0)
    progress_message = models.CharField(max_length=255, blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    # {"code": ..., "message": ...}: safe to show; never a traceback.
    error = models.JSONField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    site_field: ClassVar[str | None] = "site"

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "-created_at"], name="job_account_recent"),
            models.Index(fields=["account", "status"], name="job_account_status"),
            # The stale-job sweep looks only at active jobs.
            models.Index(fields=["status", "heartbeat_at"], name="job_status_heartbeat"),
        ]

    def __str__(self):
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_JOB_STATUSES
