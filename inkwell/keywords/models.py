from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from inkwell.tenancy.models import IndustrySector


class DifficultyBand(models.IntegerChoices):
    """Difficulty is stored 0..100 and shown as a band."""

    EASY = 1, "easy"
    MEDIUM = 2, "medium"
    HARD = 3, "hard"
    VERY_HARD = 4, "very_hard"


# Inclusive difficulty range of each band.
BAND_RANGES = {
    DifficultyBand.EASY: (0, 25),
    DifficultyBand.MEDIUM: (26, 50),
    DifficultyBand.HARD: (51, 75),
    DifficultyBand.VERY_HARD: (76, 100),
}
BAND_BY_LABEL = {band.label: band for band in DifficultyBand}
# The band label of each difficulty 0..100 (the column's check constraint keeps it in that range).
DIFFICULTY_LABELS = tuple(
    next(band.label for band, (low, high) in BAND_RANGES.items() if low <= difficulty <= high) for difficulty in range(101)
)


# The largest search volume a keyword can hold (``volume`` is a PositiveIntegerField).
MAX_VOLUME = 2**31 - 1


class SeedKeyword(models.Model):
    """One keyword of the shared library, read by every account, written by staff and imports."""

    keyword = models.CharField(max_length=255)
    volume = models.PositiveIntegerField(default=0)
    difficulty = models.PositiveSmallIntegerField(validators=[MaxValueValidator(100)])
    country = models.CharField(max_length=2, default="US")
    industry_sector = models.ForeignKey(IndustrySector, on_delete=models.PROTECT, related_name="seed_keywords")
    is_high_opportunity = models.BooleanField(default=False)
    is_paid = models.BooleanField(default=False)
    credit_cost = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-volume", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["keyword", "country", "industry_sector"], name="seed_keyword_unique"),
            models.CheckConstraint(condition=Q(difficulty__lte=100), name="seed_keyword_difficulty_0_100"),
            models.CheckConstraint(condition=Q(is_paid=True) | Q(credit_cost=0), name="seed_keyword_free_costs_nothing"),
        ]
        indexes = [
            # Each ordering of the list, with id as the tie-breaker that keeps pages stable; these
            # also serve the deep pages as index-only scans.
            models.Index(fields=["volume", "id"], name="seed_kw_volume_idx"),
            models.Index(fields=["difficulty", "id"], name="seed_kw_difficulty_idx"),
            models.Index(fields=["keyword", "id"], name="seed_kw_keyword_idx"),
            models.Index(fields=["country", "id"], name="seed_kw_country_idx"),
            # Sector lists by volume, and the covering index for sector + difficulty + volume filters.
            models.Index(fields=["industry_sector", "volume", "id"], name="seed_kw_sector_volume_idx"),
            models.Index(fields=["industry_sector", "difficulty", "volume", "id"], name="seed_kw_sector_diff_vol_idx"),
        ]

    def __str__(self):
        return self.keyword


class SeedKeywordStats(models.Model):
    """Exact keyword counts per (sector, country, band, paid, high-opportunity).

    A few thousand rows summarise the library, so totals for any combination of those filters
    (the list's ``count``, sector statistics) are a sum over this table instead of a count over
    millions of keywords. ``keywords.stats.refresh_library_stats`` rebuilds the rows of the
    sectors that changed; every write path (import, admin, model signals) calls it.
    """

    industry_sector = models.ForeignKey(IndustrySector, on_delete=models.CASCADE, related_name="+")
    country = models.CharField(max_length=2)
    difficulty_band = models.PositiveSmallIntegerField(choices=DifficultyBand.choices)
    is_paid = models.BooleanField()
    is_high_opportunity = models.BooleanField()
    total = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["industry_sector", "country", "difficulty_band", "is_paid", "is_high_opportunity"], name="seed_keyword_stats_cell"
            )
        ]
