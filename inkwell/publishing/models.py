"""Publishing: a record of every attempt to put content on a CMS, and versioned snapshots of each
site's public definition."""

from django.conf import settings
from django.db import models

from inkwell.tenancy.models import AccountOwnedModel, Site
from inkwell.writer.models import Content, ContentRefresh


class PublishStatus(models.TextChoices):
    PUBLISHING = "publishing", "Publishing"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class PublishTrigger(models.TextChoices):
    MANUAL = "manual", "Published on request"
    SCHEDULED = "scheduled", "Published by the scheduler"
    RECORDED = "recorded", "Recorded by hand"


class PublishingRecord(AccountOwnedModel):
    """One attempt to publish one content: who or what asked, where it went, how it ended."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="publishing_records")
    # Set when the attempt sent a refresh of the live post (issue #37) rather than the content itself.
    refresh = models.ForeignKey(ContentRefresh, null=True, blank=True, on_delete=models.SET_NULL, related_name="publishing_records")
    platform = models.CharField(max_length=20)
    trigger = models.CharField(max_length=10, choices=PublishTrigger.choices)
    status = models.CharField(max_length=10, choices=PublishStatus.choices, default=PublishStatus.PUBLISHING)
    attempt = models.PositiveSmallIntegerField(default=1)
    external_id = models.CharField(max_length=100, blank=True)
    external_url = models.URLField(max_length=500, blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    error = models.CharField(max_length=300, blank=True)
    retry_at = models.DateTimeField(null=True, blank=True, help_text="When the scheduler tries again after this failed attempt.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "site", "-created_at"], name="pubrecord_site_recent"),
            models.Index(fields=["account", "status", "-created_at"], name="pubrecord_account_status"),
            models.Index(fields=["content", "-created_at"], name="pubrecord_content_recent"),
            models.Index(fields=["refresh", "-created_at"], name="pubrecord_refresh_recent"),
        ]


class ScheduleOverride(AccountOwnedModel):
    """A schedule someone set outside the site's publishing rules with ``override_rules`` (contract
    section 12): which content (and which refresh of it, when a refresh was scheduled), for when,
    the rule it broke and who overrode it."""

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="schedule_overrides")
    refresh = models.ForeignKey(ContentRefresh, null=True, blank=True, on_delete=models.CASCADE, related_name="schedule_overrides")
    scheduled_publish_at = models.DateTimeField()
    rule = models.CharField(max_length=300)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["content", "-created_at"], name="schedule_override_content")]


class Deployment(AccountOwnedModel):
    """A version of a site's public definition, made when what is published changed."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="deployments")
    version = models.PositiveIntegerField()
    checksum = models.CharField(max_length=64)
    article_count = models.PositiveIntegerField(default=0)
    definition = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["site", "version"], name="deployment_version_per_site")]
        indexes = [models.Index(fields=["account", "site", "-version"], name="deployment_site_recent")]
