"""Keeps ``SeedKeywordStats`` exact: rebuilt per sector from the keywords, in the database."""

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Case, Count, IntegerField, Value, When

from inkwell.keywords.models import BAND_RANGES, DifficultyBand, SeedKeyword, SeedKeywordStats
from inkwell.tenancy.models import IndustrySector


def difficulty_band_expression() -> Case:
    """The band number of ``difficulty``, computed by the database."""
    return Case(
        *(When(difficulty__lte=high, then=Value(int(band))) for band, (_, high) in BAND_RANGES.items() if band != DifficultyBand.VERY_HARD),
        default=Value(int(DifficultyBand.VERY_HARD)),
        output_field=IntegerField(),
    )


@transaction.atomic
def refresh_library_stats(sector_ids: Iterable[int] | None = None) -> None:
    """Rebuilds the totals of the given industry sectors (all when None) with one GROUP BY.

    The sectors' rows are locked first, so concurrent refreshes of a sector run one after the other.
    """
    sectors = IndustrySector.objects.select_for_update().order_by("id")
    if sector_ids is not None:
        sector_ids = sorted(set(sector_ids))
        if not sector_ids:
            return
        sectors = sectors.filter(id__in=sector_ids)
    locked_ids = list(sectors.values_list("id", flat=True))

    SeedKeywordStats.objects.filter(industry_sector_id__in=locked_ids).delete()
    cells = (
        SeedKeyword.objects.filter(industry_sector_id__in=locked_ids)
        .annotate(band=difficulty_band_expression())
        .values("industry_sector_id", "country", "band", "is_paid", "is_high_opportunity")
        .annotate(total=Count("id"))
        .order_by()
    )
    SeedKeywordStats.objects.bulk_create(
        SeedKeywordStats(
            industry_sector_id=cell["industry_sector_id"],
            country=cell["country"],
            difficulty_band=cell["band"],
            is_paid=cell["is_paid"],
            is_high_opportunity=cell["is_high_opportunity"],
            total=cell["total"],
        )
        for cell in cells
    )
