"""A site's connection to its CMS, the record of each sync, and the webhook deliveries it received."""

from typing import ClassVar

from django.db import models

from inkwell.crypto import EncryptedTextField
from inkwell.jobs.models import Job
from inkwell.tenancy.models import AccountOwnedModel, Site


class Platform(models.TextChoices):
    WORDPRESS = "wordpress", "WordPress"
    GHOST = "ghost", "Ghost"


class ConnectionStatus(models.TextChoices):
    UNTESTED = "untested", "Untested"
    CONNECTED = "connected", "Connected"
    FAILED = "failed", "Failed"


class SyncStatus(models.TextChoices):
    NEVER = "never", "Never synced"
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE_SYNC_STATUSES = frozenset({SyncStatus.QUEUED, SyncStatus.RUNNING})


class SiteIntegration(AccountOwnedModel):
    """One site's CMS. ``app_password`` holds the platform's secret, encrypted at rest and never
    returned by the API: WordPress's application password (of ``username``), or Ghost's Admin API
    key ``<id>:<secret>`` (``username`` empty). ``webhook_secret`` is encrypted too (shown once,
    when it is made). ``remote_webhook_ids`` are the webhooks Inkwell made on the CMS (Ghost),
    removed when they are made anew."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="integrations")
    platform = models.CharField(max_length=20, choices=Platform.choices, default=Platform.WORDPRESS)
    base_url = models.URLField(max_length=500)
    username = models.CharField(max_length=150, blank=True)
    app_password = EncryptedTextField()
    webhook_secret = EncryptedTextField()
    remote_webhook_ids = models.JSONField(default=list, blank=True)
    is_active = models.BooleanField(default=True)
    connection_status = models.CharField(max_length=10, choices=ConnectionStatus.choices, default=ConnectionStatus.UNTESTED)
    connection_message = models.CharField(max_length=300, blank=True)
    last_tested_at = models.DateTimeField(null=True, blank=True)
    remote_site_name = models.CharField(max_length=200, blank=True)
    structure = models.JSONField(default=dict, blank=True, help_text="Content types and site facts read by update_structure.")
    structure_updated_at = models.DateTimeField(null=True, blank=True)
    sync_status = models.CharField(max_length=10, choices=SyncStatus.choices, default=SyncStatus.NEVER)
    sync_job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    last_synced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["site", "platform"], name="integration_once_per_site_platform")]
        indexes = [models.Index(fields=["account", "site"], name="integration_account_site")]

    def __str__(self):
        return f"{self.get_platform_display()} of site {self.site_id}"


class SyncRun(AccountOwnedModel):
    """One sync of an integration: what it imported and reconciled, how long it took, how it ended."""

    integration = models.ForeignKey(SiteIntegration, on_delete=models.CASCADE, related_name="sync_runs")
    job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=SyncStatus.choices, default=SyncStatus.RUNNING)
    counts = models.JSONField(default=dict, blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    error = models.CharField(max_length=300, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    site_field: ClassVar[str | None] = "integration__site"

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["integration", "-started_at"], name="syncrun_integration_recent")]


class WebhookDelivery(AccountOwnedModel):
    """A webhook the CMS delivered, kept while a replay of it could still arrive; ``signature``
    (unique per integration) is what makes a duplicate delivery harmless."""

    integration = models.ForeignKey(SiteIntegration, on_delete=models.CASCADE, related_name="webhook_deliveries")
    signature = models.CharField(max_length=64)
    event = models.CharField(max_length=40)
    external_id = models.CharField(max_length=100, blank=True)
    outcome = models.CharField(max_length=20)
    received_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = "integration__site"

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["integration", "signature"], name="webhook_delivery_once")]
        indexes = [models.Index(fields=["received_at"], name="webhook_delivery_received")]


class SiteSetup(AccountOwnedModel):
    """The moment a site first had a sector and a CMS integration whose connection test succeeded.
    One row per site, ever: inserting it is what decides that ``site_setup_complete`` is raised,
    so the notification cannot be raised twice, not even by two requests racing."""

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="+")
    completed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
