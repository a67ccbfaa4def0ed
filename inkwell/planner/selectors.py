"""Reads of the planner: the lists' querysets, and the counts other apps ask for (plan usage,
the keywords library's ``sector_stats.added``).

The API's keyword list is plain SQL (``KeywordListPage``), as the keywords library's is: building
and compiling its queryset cost the ORM about three times the Python time PostgreSQL spent
running it (docs/benchmarks.md, "Light authenticated endpoints"). ``KeywordFilter`` still validates
the query.
"""

from dataclasses import dataclass

from django.db import connection, models
from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import Coalesce

from inkwell.api.sql import Column, PagedRows, account_conditions, fetched_rows, icontains_condition, in_condition, quoted_table, sql_columns, sql_order_by, sql_where
from inkwell.keywords.models import DIFFICULTY_LABELS, SeedKeyword
from inkwell.planner.models import Cluster, Keyword
from inkwell.tenancy.models import Account, Sector, Site

# What a planner keyword copies from its library keyword (and what add_to_workflow checks).
SEED_FIELDS = ("id", "keyword", "volume", "difficulty", "country", "industry_sector_id", "credit_cost")


class SkipReason(models.TextChoices):
    """Why ``add_to_workflow`` left a library keyword out."""

    ALREADY_ADDED = "already_added", "The site has this keyword already"
    NOT_IN_SECTOR = "not_in_sector", "The keyword belongs to another industry sector's library"
    NOT_FOUND = "not_found", "No library keyword has this id"


@dataclass(frozen=True)
class WorkflowSelection:
    adding: list[dict]
    skipped: list[dict]
    credits: int

    @property
    def paid(self) -> int:
        return sum(1 for seed in self.adding if seed["credit_cost"])


def workflow_additions(*, account: Account, site: Site, sector: Sector, seed_keyword_ids: list[int]) -> WorkflowSelection:
    """What ``add_to_workflow`` would add of these library keywords, what it would skip and why, and
    what the paid ones cost: the service acts on it (under the account lock), the console shows it first."""
    wanted = list(dict.fromkeys(seed_keyword_ids))
    seeds = {seed["id"]: seed for seed in SeedKeyword.objects.filter(pk__in=wanted).values(*SEED_FIELDS)}
    present = set(Keyword.objects.for_account(account).filter(site=site, seed_keyword_id__in=list(seeds)).values_list("seed_keyword_id", flat=True))
    skipped, adding = [], []
    for seed_id in wanted:
        seed = seeds.get(seed_id)
        if seed is None:
            skipped.append({"seed_keyword_id": seed_id, "reason": SkipReason.NOT_FOUND})
        elif seed["industry_sector_id"] != sector.industry_sector_id:
            skipped.append({"seed_keyword_id": seed_id, "reason": SkipReason.NOT_IN_SECTOR})
        elif seed_id in present:
            skipped.append({"seed_keyword_id": seed_id, "reason": SkipReason.ALREADY_ADDED})
        else:
            adding.append(seed)
    return WorkflowSelection(adding=adding, skipped=skipped, credits=sum(seed["credit_cost"] for seed in adding))


def keyword_count(account: Account) -> int:
    """The account's planner keywords, every site: what the plan's ``max_keywords`` limits."""
    return Keyword.objects.for_account(account).count()


def added_by_industry_sector(account: Account, site: Site | None, sector_ids: list[int]) -> dict[int, int]:
    """``{industry_sector_id: n}``: the account's (or one site's) planner keywords drawn from each
    industry sector's library, in one grouped statement (``keywords.selectors.register_added_counter``).
    Plain SQL with the account written in it, as the keyword list: the library's sector totals ask
    for it on every request, and its queryset cost more Python time than the statement."""
    if not sector_ids:
        return {}
    conditions, params = account_conditions("k", account_id=account.pk, site_ids=None if site is None else (site.pk,))
    conditions.append(in_condition("s.industry_sector_id", len(sector_ids)))
    params += sector_ids
    statement = (
        f"SELECT s.industry_sector_id, COUNT(*) FROM {quoted_table(Keyword)} k "
        f"INNER JOIN {quoted_table(SeedKeyword)} s ON s.id = k.seed_keyword_id {sql_where(conditions)} GROUP BY s.industry_sector_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return dict(cursor.fetchall())


# The keyword list's answer, field for field what serializers.KeywordSerializer writes (a test checks).
KEYWORD_LIST_FIELDS = (
    "id", "site_id", "sector_id", "seed_keyword_id", "cluster_id", "cluster_name", "keyword", "volume",
    "difficulty", "country", "status", "credits_paid", "created_at", "updated_at",
)


# Keyword.Meta.ordering, the list's order when none is asked for.
DEFAULT_KEYWORD_ORDERING = "-created_at"

# The list's columns in KEYWORD_LIST_FIELDS' order; a keyword without a cluster has no cluster_name.
_KEYWORD_LIST_COLUMNS: tuple[Column, ...] = tuple(
    ("c", Cluster, "name") if name == "cluster_name" else ("k", Keyword, name) for name in KEYWORD_LIST_FIELDS
)


@dataclass(frozen=True)
class KeywordListFilters:
    """Whose keywords the list may show (the account, and the sites the caller may touch: None for
    every site), and the query's filters (``filters.keyword_list_filters``)."""

    account_id: int
    site_ids: frozenset[int] | None
    site_id: int | None = None
    sector_id: int | None = None
    cluster_id: int | None = None
    status: str = ""
    difficulty_min: int | None = None
    difficulty_max: int | None = None
    volume_min: int | None = None
    volume_max: int | None = None
    search: str = ""
    ordering: str = DEFAULT_KEYWORD_ORDERING

    @property
    def sees_no_site(self) -> bool:
        return self.site_ids is not None and not self.site_ids


def _keyword_conditions(filters: KeywordListFilters) -> tuple[list[str], list]:
    """The tenancy scope and the filters as SQL conditions on the keywords (alias ``k``), and their parameters."""
    conditions, params = account_conditions("k", account_id=filters.account_id, site_ids=filters.site_ids)
    for column, value in (("site_id", filters.site_id), ("sector_id", filters.sector_id), ("cluster_id", filters.cluster_id)):
        if value is not None:
            conditions.append(f"k.{column} = %s")
            params.append(value)
    if filters.status:
        conditions.append("k.status = %s")
        params.append(filters.status)
    for column, operator, value in (
        ("difficulty", ">=", filters.difficulty_min),
        ("difficulty", "<=", filters.difficulty_max),
        ("volume", ">=", filters.volume_min),
        ("volume", "<=", filters.volume_max),
    ):
        if value is not None:
            conditions.append(f"k.{column} {operator} %s")
            params.append(value)
    if filters.search:
        condition, param = icontains_condition("k.keyword", filters.search)
        conditions.append(condition)
        params.append(param)
    return conditions, params


def keyword_list_count(*, filters: KeywordListFilters) -> int:
    if filters.sees_no_site:
        return 0
    conditions, params = _keyword_conditions(filters)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {quoted_table(Keyword)} k {sql_where(conditions)}", params)
        return cursor.fetchone()[0]


def keyword_list_page(*, filters: KeywordListFilters, offset: int, limit: int) -> list[dict]:
    """One page of the list's rows (``KEYWORD_LIST_FIELDS``, then ``difficulty_band``), in the
    requested order, in one statement."""
    if filters.sees_no_site or limit <= 0:
        return []
    conditions, params = _keyword_conditions(filters)
    statement = (
        f"SELECT {sql_columns(_KEYWORD_LIST_COLUMNS)} FROM {quoted_table(Keyword)} k "
        f"LEFT OUTER JOIN {quoted_table(Cluster)} c ON c.id = k.cluster_id {sql_where(conditions)} "
        f"ORDER BY {sql_order_by(filters.ordering, 'k')} LIMIT %s OFFSET %s"
    )
    rows = fetched_rows(statement, [*params, limit, offset], _KEYWORD_LIST_COLUMNS)
    return with_difficulty_band([dict(zip(KEYWORD_LIST_FIELDS, row, strict=True)) for row in rows])


class KeywordListPage(PagedRows):
    """The API's keyword list: ``count()`` and slices of its rows."""

    filters: KeywordListFilters

    def count(self) -> int:
        return keyword_list_count(filters=self.filters)

    def rows(self, offset: int, limit: int) -> list[dict]:
        return keyword_list_page(filters=self.filters, offset=offset, limit=limit)


def with_difficulty_band(rows: list[dict]) -> list[dict]:
    """Each row with ``difficulty_band`` after ``difficulty``, in the serializer's order of keys."""
    return [
        {
            **{name: row[name] for name in KEYWORD_LIST_FIELDS[:9]},
            "difficulty_band": DIFFICULTY_LABELS[min(row["difficulty"], 100)],
            **{name: row[name] for name in KEYWORD_LIST_FIELDS[9:]},
        }
        for row in rows
    ]


def with_cluster_totals(queryset: QuerySet) -> QuerySet:
    """Clusters with ``keyword_count`` and ``total_volume`` computed by the database, in the same query
    (newest first: a grouped query drops the model's default order)."""
    totals = queryset.annotate(keyword_count=Count("keywords"), total_volume=Coalesce(Sum("keywords__volume"), 0))
    return totals.order_by(*Cluster._meta.ordering)


def cluster_with_totals(account: Account, cluster_id: int) -> Cluster:
    return with_cluster_totals(Cluster.objects.for_account(account)).get(pk=cluster_id)


