"""A site's settings: one row per site, holding only what the site changed from the defaults."""

from django.db import models
from django.db.models import Q

from inkwell.tenancy.models import AccountOwnedModel, Site


class SiteSettings(AccountOwnedModel):
    """A site's automation, publishing and AI settings, one row per site.

    Each JSON column holds only the fields the site changed; reads lay them over the central
    defaults (``inkwell.sitesettings.defaults``, merged by ``inkwell.sitesettings.selectors``), so
    a site that never changed a field follows the defaults. ``automation``: enabled, frequency,
    time, scheduled_days; ``stages``: ``{"<number>": {enabled, batch_size, per_run_limit,
    use_testing, budget_pct}}``; ``performance``: the review-by and opportunity thresholds (issue #37); ``delays``: within_stage, between_stage (seconds);
    ``publishing``: the publishing fields of the defaults plus total_items_per_run, ``time_slots``
    as ``[{start, end}]``. A null model means the account's own AI provider settings.

    ``next_run_at`` is the automation schedule's next run, kept by every write that changes the
    schedule (or the site's time zone) and by the dispatcher that starts due runs; null while
    automation is disabled. The dispatcher finds due sites through its index.
    """

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="site_settings")
    automation = models.JSONField(default=dict, blank=True)
    stages = models.JSONField(default=dict, blank=True)
    delays = models.JSONField(default=dict, blank=True)
    publishing = models.JSONField(default=dict, blank=True)
    performance = models.JSONField(default=dict, blank=True)
    # The approval rules the site changed: four_eyes, client_approval (#36).
    review = models.JSONField(default=dict, blank=True)
    testing_model = models.ForeignKey("system.AIModel", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    live_model = models.ForeignKey("system.AIModel", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    image_model = models.ForeignKey("system.AIModel", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    next_run_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The table kept the name it had when the model belonged to publishing.
        db_table = "publishing_sitesettings"
        verbose_name_plural = "site settings"
        indexes = [models.Index(fields=["next_run_at"], condition=Q(next_run_at__isnull=False), name="sitesettings_next_run")]

    def __str__(self):
        return f"Settings of site {self.site_id}"
