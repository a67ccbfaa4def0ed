"""Planner: the keywords a site works on, their clusters, and the content ideas drawn from them."""

from django.db import models

from inkwell.keywords.models import SeedKeyword
from inkwell.tenancy.models import AccountOwnedModel, Sector, Site


class KeywordStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"
    ARCHIVED = "archived", "Archived"


class ClusterStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    ARCHIVED = "archived", "Archived"


class IdeaStatus(models.TextChoices):
    NEW = "new", "New"
    CONVERTED = "converted", "Converted to a task"
    ARCHIVED = "archived", "Archived"


class Cluster(AccountOwnedModel):
    """A group of a site's keywords about one topic (named by AI clustering or by hand)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    sector = models.ForeignKey(Sector, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=ClusterStatus.choices, default=ClusterStatus.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "site", "-created_at"], name="cluster_site_recent"),
            models.Index(fields=["site", "sector"], name="cluster_site_sector"),
        ]

    def __str__(self):
        return self.name


class Keyword(AccountOwnedModel):
    """A library keyword a site added to its workflow. Text, volume and difficulty are copied from
    the library so that lists filter and sort on this table alone."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    sector = models.ForeignKey(Sector, on_delete=models.CASCADE, related_name="+")
    seed_keyword = models.ForeignKey(SeedKeyword, on_delete=models.PROTECT, related_name="+")
    cluster = models.ForeignKey(Cluster, null=True, blank=True, on_delete=models.SET_NULL, related_name="keywords")
    keyword = models.CharField(max_length=255)
    volume = models.PositiveIntegerField(default=0)
    difficulty = models.PositiveSmallIntegerField(default=0)
    country = models.CharField(max_length=2, default="US")
    status = models.CharField(max_length=10, choices=KeywordStatus.choices, default=KeywordStatus.ACTIVE)
    credits_paid = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["site", "seed_keyword"], name="planner_keyword_once_per_site")]
        indexes = [
            models.Index(fields=["account", "site", "-created_at"], name="keyword_site_recent"),
            models.Index(fields=["site", "status"], name="keyword_site_status"),
            models.Index(fields=["site", "cluster"], name="keyword_site_cluster"),
            models.Index(fields=["site", "volume"], name="keyword_site_volume"),
            # sector_stats.added counts a sector's library keywords by account (and site).
            models.Index(fields=["account", "seed_keyword"], name="keyword_account_seed"),
        ]

    def __str__(self):
        return self.keyword


class ContentIdea(AccountOwnedModel):
    """An article idea for a site, usually generated from a cluster."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    sector = models.ForeignKey(Sector, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    cluster = models.ForeignKey(Cluster, null=True, blank=True, on_delete=models.SET_NULL, related_name="ideas")
    title = models.CharField(max_length=300)
    description = models.TextField(blank=True)
    content_type = models.CharField(max_length=20, default="post")
    content_structure = models.CharField(max_length=20, default="guide")
    target_keywords = models.JSONField(default=list, blank=True)
    outline = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=IdeaStatus.choices, default=IdeaStatus.NEW)
    # Cannibalization guard (#19, inkwell.writer.overlaps): the site's pieces this idea competed
    # with when it was created ({id, kind, title, similarity}), and whether there were any.
    overlaps = models.JSONField(default=list, blank=True)
    overlap_flagged = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "site", "-created_at"], name="idea_site_recent"),
            models.Index(fields=["site", "status"], name="idea_site_status"),
            models.Index(fields=["cluster"], name="idea_cluster"),
        ]

    def __str__(self):
        return self.title
