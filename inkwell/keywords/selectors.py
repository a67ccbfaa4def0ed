"""Reads of the keywords library, shaped for millions of rows.

- ``count`` is exact. Filters the totals table covers (sectors, country, difficulty band, paid,
  high opportunity) are answered by summing ``SeedKeywordStats``. Volume ranges and searches
  count the keywords themselves, through the covering and trigram indexes.
- A page is one statement, a deferred join: the subquery finds the page's ids with an
  index-only scan in the requested order (cheap even at page 2,000), and only those rows are
  read and joined to their sector.
- Rows come from ``values()`` with plain columns; the difficulty band's label is looked up in
  ``DIFFICULTY_LABELS`` (one tuple index per row). A SQL ``CASE`` would give the same labels,
  but compiling its expressions cost more Python time per request (about 1.5 ms) than the
  whole page's SQL (bench/keywords_library.py measures both).
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import F, Q, QuerySet, Sum
from rest_framework.exceptions import NotFound

from inkwell.keywords.models import BAND_RANGES, DIFFICULTY_LABELS, SeedKeyword, SeedKeywordStats
from inkwell.tenancy.access import can_access_site
from inkwell.tenancy.models import Account, Sector, Site

ORDERING_FIELDS = ("keyword", "volume", "difficulty", "country")
DEFAULT_ORDERING = "-volume"
LIBRARY_ITEM_FIELDS = (
    "id",
    "keyword",
    "volume",
    "difficulty",
    "country",
    "industry_sector",
    "industry_sector_name",
    "is_high_opportunity",
    "is_paid",
    "credit_cost",
    "created_at",
)


@dataclass(frozen=True)
class LibraryFilters:
    sector_ids: tuple[int, ...] | None = None
    search: str = ""
    country: str | None = None
    volume_min: int | None = None
    volume_max: int | None = None
    difficulty: int | None = None  # a DifficultyBand
    is_high_opportunity: bool | None = None
    is_paid: bool | None = None
    ordering: str = DEFAULT_ORDERING

    @property
    def needs_keyword_count(self) -> bool:
        """Whether the totals table cannot answer the count for these filters."""
        return bool(self.search) or self.volume_min is not None or self.volume_max is not None


def _common_conditions(filters: LibraryFilters, *, band_field: str) -> Q:
    conditions = Q()
    if filters.sector_ids is not None:
        conditions &= Q(industry_sector_id__in=filters.sector_ids)
    if filters.country:
        conditions &= Q(country=filters.country)
    if filters.is_high_opportunity is not None:
        conditions &= Q(is_high_opportunity=filters.is_high_opportunity)
    if filters.is_paid is not None:
        conditions &= Q(is_paid=filters.is_paid)
    if filters.difficulty is not None:
        if band_field == "difficulty":
            low, high = BAND_RANGES[filters.difficulty]
            conditions &= Q(difficulty__gte=low, difficulty__lte=high)
        else:
            conditions &= Q(difficulty_band=filters.difficulty)
    return conditions


def library_keywords(filters: LibraryFilters) -> QuerySet:
    """The keywords matching every filter, unordered."""
    conditions = _common_conditions(filters, band_field="difficulty")
    if filters.search:
        conditions &= Q(keyword__icontains=filters.search)
    if filters.volume_min is not None:
        conditions &= Q(volume__gte=filters.volume_min)
    if filters.volume_max is not None:
        conditions &= Q(volume__lte=filters.volume_max)
    return SeedKeyword.objects.filter(conditions)


def library_count(filters: LibraryFilters) -> int:
    if filters.needs_keyword_count:
        return library_keywords(filters).count()
    totals = SeedKeywordStats.objects.filter(_common_conditions(filters, band_field="difficulty_band"))
    return totals.aggregate(total=Sum("total"))["total"] or 0


def _order_by(ordering: str) -> list:
    """The requested order, with id in the same direction as the tie-breaker (stable pages)."""
    descending = ordering.startswith("-")
    field = ordering.lstrip("-")
    return [f"-{field}", "-id"] if descending else [field, "id"]


def library_page(filters: LibraryFilters, offset: int, limit: int) -> list[dict]:
    """One page of items in the requested order, in one statement (see the module docstring)."""
    order = _order_by(filters.ordering)
    page_ids = library_keywords(filters).order_by(*order).values("id")[offset : offset + limit]
    rows = (
        SeedKeyword.objects.filter(id__in=page_ids)
        .order_by(*order)
        .values(*(field for field in LIBRARY_ITEM_FIELDS if field != "industry_sector_name"), industry_sector_name=F("industry_sector__name"))
    )
    items = []
    for row in rows:
        row["difficulty"] = DIFFICULTY_LABELS[row["difficulty"]]  # the spec's name for the band
        items.append({field: row[field] for field in LIBRARY_ITEM_FIELDS})  # the spec's field order
    return items


class LibraryPage:
    """What the paginator pages through: exact ``count()`` and slices fetched as a deferred join."""

    def __init__(self, filters: LibraryFilters):
        self.filters = filters

    def count(self) -> int:
        return library_count(self.filters)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window: slice) -> list[dict]:
        return library_page(self.filters, window.start or 0, window.stop - (window.start or 0))


# Keywords an account has added to its workflow, by industry sector. The planner registers the
# function that counts them (its AppConfig.ready); while none is registered, nothing is added.
AddedCounter = Callable[[Account, Site | None, list[int]], dict[int, int]]
_added_counter: AddedCounter | None = None


def register_added_counter(counter: AddedCounter) -> None:
    global _added_counter
    _added_counter = counter


def sector_stats(*, account: Account, site: Site | None = None, sector_ids: tuple[int, ...] | None = None) -> list[dict]:
    """Totals per industry sector from the totals table (one query), plus what was added (one query)."""
    totals = SeedKeywordStats.objects.all()
    if sector_ids is not None:
        totals = totals.filter(industry_sector_id__in=sector_ids)
    rows = (
        totals.values("industry_sector_id")
        .annotate(
            sector_total=Sum("total"),
            paid=Sum("total", filter=Q(is_paid=True), default=0),
            high_opportunity=Sum("total", filter=Q(is_high_opportunity=True), default=0),
            sector_name=F("industry_sector__name"),
            sector_description=F("industry_sector__description"),
        )
        .order_by("industry_sector__name", "industry_sector_id")
    )
    rows = list(rows)
    added = _added_counter(account, site, [row["industry_sector_id"] for row in rows]) if _added_counter and rows else {}
    return [
        {
            "sector_id": row["industry_sector_id"],
            "sector_name": row["sector_name"],
            "sector_description": row["sector_description"],
            "stats": {
                "total": row["sector_total"],
                "added": added.get(row["industry_sector_id"], 0),
                "available": row["sector_total"] - added.get(row["industry_sector_id"], 0),
                "high_opportunity": row["high_opportunity"],
                "paid": row["paid"],
                "free": row["sector_total"] - row["paid"],
            },
        }
        for row in rows
    ]


def with_site_sector(request, query: dict) -> dict:
    """The query with ``site_sector_id`` (a sector of one of the caller's sites) resolved to its
    industry sector, added to ``sector_ids``; another account's sector, or one of a site the
    caller may not see, is a 404."""
    if "site_sector_id" not in query:
        return query
    sector = Sector.objects.for_account(request.account).filter(pk=query["site_sector_id"]).values("site_id", "industry_sector_id").first()
    if sector is None or not can_access_site(request, sector["site_id"]):
        raise NotFound()
    return {**query, "sector_ids": tuple(sorted({*(query.get("sector_ids") or ()), sector["industry_sector_id"]}))}
