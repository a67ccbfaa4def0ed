"""Reads of the keywords library, shaped for millions of rows.

- ``count`` is exact. Filters the totals table covers (sectors, country, difficulty band, paid,
  high opportunity) are answered by summing ``SeedKeywordStats``. Volume ranges and searches
  count the keywords themselves, through the covering and trigram indexes.
- A page is one statement, a deferred join: the subquery finds the page's ids with an
  index-only scan in the requested order (cheap even at page 2,000), and only those rows are
  read and joined to their sector.
- The list's count and page are plain SQL: building and compiling their querysets cost the ORM
  more Python time per request than PostgreSQL spent running them (bench/keywords_library.py
  measures both). The search is Django's own ``icontains`` SQL, which the trigram index serves.
- The difficulty band's label is looked up in ``DIFFICULTY_LABELS`` (one tuple index per row).
  A SQL ``CASE`` would give the same labels, but compiling its expressions cost more Python time
  per request (about 1.5 ms) than the whole page's SQL.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection
from django.db.models import F, Q, Sum
from rest_framework.exceptions import NotFound

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
        conditions.append(f"{table}.industry_sector_id IN ({', '.join(['%s'] * len(filters.sector_ids))})")
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
            # Django's icontains, so that the trigram index on UPPER(keyword::text) serves it on PostgreSQL.
            column = connection.ops.lookup_cast("icontains", "CharField") % f"{table}.keyword"
            conditions.append(f"{column} {connection.operators['icontains'] % '%s'}")
            params.append(f"%{connection.ops.prep_for_like_query(filters.search)}%")
        if filters.volume_min is not None:
            conditions.append(f"{table}.volume >= %s")
            params.append(filters.volume_min)
        if filters.volume_max is not None:
            conditions.append(f"{table}.volume <= %s")
            params.append(filters.volume_max)
    return conditions, params


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _where(conditions: list[str]) -> str:
    return f"WHERE {' AND '.join(conditions)}" if conditions else ""


def library_count(filters: LibraryFilters) -> int:
    if filters.sector_ids == ():
        return 0
    if filters.needs_keyword_count:
        conditions, params = _sql_conditions(filters, table="k", band_column=None)
        statement = f"SELECT COUNT(*) FROM {_table(SeedKeyword)} k {_where(conditions)}"
    else:
        conditions, params = _sql_conditions(filters, table="t", band_column="difficulty_band")
        statement = f"SELECT SUM(t.total) FROM {_table(SeedKeywordStats)} t {_where(conditions)}"
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchone()[0] or 0


def _order_by(ordering: str) -> list:
    """The requested order, with id in the same direction as the tie-breaker (stable pages)."""
    descending = ordering.startswith("-")
    field = ordering.lstrip("-")
    return [f"-{field}", "-id"] if descending else [field, "id"]


def _sql_order_by(ordering: str, table: str) -> str:
    return ", ".join(f"{table}.{name.lstrip('-')} {'DESC' if name.startswith('-') else 'ASC'}" for name in _order_by(ordering))


# The page's columns in LIBRARY_ITEM_FIELDS' order: (table alias, model, field name).
_PAGE_COLUMNS = tuple(
    ("s", IndustrySector, "name") if name == "industry_sector_name" else ("k", SeedKeyword, name) for name in LIBRARY_ITEM_FIELDS
)


def _page_converters() -> list[tuple[int, list]]:
    """The converters the ORM would apply to each column on this database (SQLite's booleans and
    datetimes; none on PostgreSQL), as the compiler's ``apply_converters`` runs them."""
    converters = []
    for index, (alias, model, name) in enumerate(_PAGE_COLUMNS):
        column = model._meta.get_field(name).get_col(alias)
        found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if found:
            converters.append((index, [(converter, column) for converter in found]))
    return converters


def library_page(filters: LibraryFilters, offset: int, limit: int) -> list[dict]:
    """One page of items in the requested order, in one statement (see the module docstring)."""
    if filters.sector_ids == () or limit <= 0:
        return []
    conditions, params = _sql_conditions(filters, table="k", band_column=None)
    columns = ", ".join(f"{alias}.{model._meta.get_field(name).column}" for alias, model, name in _PAGE_COLUMNS)
    keywords = _table(SeedKeyword)
    statement = (
        f"SELECT {columns} FROM {keywords} k INNER JOIN {_table(IndustrySector)} s ON s.id = k.industry_sector_id "
        f"WHERE k.id IN (SELECT k.id FROM {keywords} k {_where(conditions)} ORDER BY {_sql_order_by(filters.ordering, 'k')} "
        f"LIMIT %s OFFSET %s) ORDER BY {_sql_order_by(filters.ordering, 'k')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, limit, offset])
        rows = cursor.fetchall()
    converters = _page_converters()
    difficulty = LIBRARY_ITEM_FIELDS.index("difficulty")
    items = []
    for row in rows:
        if converters:
            row = list(row)
            for index, column_converters in converters:
                for converter, column in column_converters:
                    row[index] = converter(row[index], column, connection)
        item = dict(zip(LIBRARY_ITEM_FIELDS, row, strict=True))
        item["difficulty"] = DIFFICULTY_LABELS[row[difficulty]]  # the spec's name for the band
        items.append(item)
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
