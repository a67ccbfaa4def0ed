"""Reads of the keywords library, shaped for millions of rows.

- ``count`` is exact. Filters the totals table covers (sectors, country, difficulty band, paid,
  high opportunity) are answered by summing ``SeedKeywordStats``. Volume ranges and searches
  count the keywords themselves, through the covering and trigram indexes.
- A page is one statement, a deferred join: the subquery finds the page's ids with an
  index-only scan in the requested order (cheap even at page 2,000), and only those rows are
  read and joined to their sector.
- The list's count and page, and the sector totals, are plain SQL: building and compiling their querysets cost the ORM
  more Python time per request than PostgreSQL spent running them (bench/keywords_library.py
  measures both). The search is Django's own ``icontains`` SQL, which the trigram index serves.
- The difficulty band's label is looked up in ``DIFFICULTY_LABELS`` (one tuple index per row).
  A SQL ``CASE`` would give the same labels, but compiling its expressions cost more Python time
  per request (about 1.5 ms) than the whole page's SQL.
- The pieces of that SQL that know no keyword (``icontains_condition``, ``sql_order_by``,
  ``fetched_rows`` and their kin) are in ``inkwell.api.sql``, which the planner's keyword list
  and the console's polled fragments build on too.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection
from rest_framework.exceptions import NotFound

from inkwell.api.sql import Column, PagedRows, fetched_rows, icontains_condition, in_condition, quoted_table, sql_columns, sql_order_by, sql_where
from inkwell.keywords.models import BAND_RANGES, DIFFICULTY_LABELS, SeedKeyword, SeedKeywordStats
from inkwell.tenancy.access import can_access_site
from inkwell.tenancy.models import Account, IndustrySector, Sector, Site

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


def _sql_conditions(filters: LibraryFilters, *, table: str, band_column: str | None) -> tuple[list[str], list]:
    """The filters as SQL conditions on ``table`` and their parameters: on the keywords
    (``band_column`` None), or on the totals table, whose ``band_column`` holds the band and which
    has no keyword or volume to filter."""
    conditions, params = [], []
    if filters.sector_ids is not None:
        conditions.append(in_condition(f"{table}.industry_sector_id", len(filters.sector_ids)))
        params += filters.sector_ids
    if filters.country:
        conditions.append(f"{table}.country = %s")
        params.append(filters.country)
    if filters.is_high_opportunity is not None:
        conditions.append(f"{table}.is_high_opportunity = %s")
        params.append(filters.is_high_opportunity)
    if filters.is_paid is not None:
        conditions.append(f"{table}.is_paid = %s")
        params.append(filters.is_paid)
    if filters.difficulty is not None:
        if band_column is None:
            conditions.append(f"{table}.difficulty >= %s AND {table}.difficulty <= %s")
            params += BAND_RANGES[filters.difficulty]
        else:
            conditions.append(f"{table}.{band_column} = %s")
            params.append(filters.difficulty)
    if band_column is None:
        if filters.search:
            condition, param = icontains_condition(f"{table}.keyword", filters.search)
            conditions.append(condition)
            params.append(param)
        if filters.volume_min is not None:
            conditions.append(f"{table}.volume >= %s")
            params.append(filters.volume_min)
        if filters.volume_max is not None:
            conditions.append(f"{table}.volume <= %s")
            params.append(filters.volume_max)
    return conditions, params


def library_count(filters: LibraryFilters) -> int:
    if filters.sector_ids == ():
        return 0
    if filters.needs_keyword_count:
        conditions, params = _sql_conditions(filters, table="k", band_column=None)
        statement = f"SELECT COUNT(*) FROM {quoted_table(SeedKeyword)} k {sql_where(conditions)}"
    else:
        conditions, params = _sql_conditions(filters, table="t", band_column="difficulty_band")
        statement = f"SELECT SUM(t.total) FROM {quoted_table(SeedKeywordStats)} t {sql_where(conditions)}"
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchone()[0] or 0


# The page's columns in LIBRARY_ITEM_FIELDS' order.
_PAGE_COLUMNS: tuple[Column, ...] = tuple(
    ("s", IndustrySector, "name") if name == "industry_sector_name" else ("k", SeedKeyword, name) for name in LIBRARY_ITEM_FIELDS
)


def library_page(filters: LibraryFilters, offset: int, limit: int) -> list[dict]:
    """One page of items in the requested order, in one statement (see the module docstring)."""
    if filters.sector_ids == () or limit <= 0:
        return []
    conditions, params = _sql_conditions(filters, table="k", band_column=None)
    keywords = quoted_table(SeedKeyword)
    statement = (
        f"SELECT {sql_columns(_PAGE_COLUMNS)} FROM {keywords} k INNER JOIN {quoted_table(IndustrySector)} s ON s.id = k.industry_sector_id "
        f"WHERE k.id IN (SELECT k.id FROM {keywords} k {sql_where(conditions)} ORDER BY {sql_order_by(filters.ordering, 'k')} "
        f"LIMIT %s OFFSET %s) ORDER BY {sql_order_by(filters.ordering, 'k')}"
    )
    difficulty = LIBRARY_ITEM_FIELDS.index("difficulty")
    items = []
    for row in fetched_rows(statement, [*params, limit, offset], _PAGE_COLUMNS):
        item = dict(zip(LIBRARY_ITEM_FIELDS, row, strict=True))
        item["difficulty"] = DIFFICULTY_LABELS[row[difficulty]]  # the spec's name for the band
        items.append(item)
    return items


class LibraryPage(PagedRows):
    """The library: exact ``count()`` and slices fetched as a deferred join."""

    filters: LibraryFilters

    def count(self) -> int:
        return library_count(self.filters)

    def rows(self, offset: int, limit: int) -> list[dict]:
        return library_page(self.filters, offset, limit)


# Keywords an account has added to its workflow, by industry sector. The planner registers the
# function that counts them (its AppConfig.ready); while none is registered, nothing is added.
AddedCounter = Callable[[Account, Site | None, list[int]], dict[int, int]]
_added_counter: AddedCounter | None = None


def register_added_counter(counter: AddedCounter) -> None:
    global _added_counter
    _added_counter = counter


def _sector_totals(sector_ids: tuple[int, ...] | None) -> list[tuple]:
    """``(sector id, name, description, total, paid, high opportunity)`` per industry sector with
    keywords, by name: one grouped statement over the totals table, plain SQL for the reason the
    list's count is (the module docstring)."""
    if sector_ids == ():
        return []
    sectors = quoted_table(IndustrySector)
    where = f"WHERE {in_condition('t.industry_sector_id', len(sector_ids))}" if sector_ids is not None else ""
    statement = (
        "SELECT t.industry_sector_id, s.name, s.description, SUM(t.total),"
        " COALESCE(SUM(CASE WHEN t.is_paid THEN t.total ELSE 0 END), 0),"
        " COALESCE(SUM(CASE WHEN t.is_high_opportunity THEN t.total ELSE 0 END), 0)"
        f" FROM {quoted_table(SeedKeywordStats)} t INNER JOIN {sectors} s ON s.id = t.industry_sector_id {where}"
        " GROUP BY t.industry_sector_id, s.name, s.description ORDER BY s.name, t.industry_sector_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, list(sector_ids or ()))
        return cursor.fetchall()


def sector_stats(*, account: Account, site: Site | None = None, sector_ids: tuple[int, ...] | None = None) -> list[dict]:
    """Totals per industry sector from the totals table (one query), plus what was added (one query)."""
    rows = _sector_totals(sector_ids)
    added = _added_counter(account, site, [row[0] for row in rows]) if _added_counter and rows else {}
    stats = []
    for sector_id, name, description, total, paid, high_opportunity in rows:
        sector_added = added.get(sector_id, 0)
        stats.append(
            {
                "sector_id": sector_id,
                "sector_name": name,
                "sector_description": description,
                "stats": {
                    "total": total,
                    "added": sector_added,
                    "available": total - sector_added,
                    "high_opportunity": high_opportunity,
                    "paid": paid,
                    "free": total - paid,
                },
            }
        )
    return stats


def with_site_sector(request, query: dict) -> dict:
    """The query with ``site_sector_id`` (a sector of one of the caller's sites) resolved to its
    industry sector, added to ``sector_ids``; another account's sector, or one of a site the
    caller may not see, is a 404."""
    if query.get("site_sector_id") is None:
        return query
    sector = Sector.objects.for_account(request.account).filter(pk=query["site_sector_id"]).values("site_id", "industry_sector_id").first()
    if sector is None or not can_access_site(request, sector["site_id"]):
        raise NotFound()
    return {**query, "sector_ids": tuple(sorted({*(query.get("sector_ids") or ()), sector["industry_sector_id"]}))}
