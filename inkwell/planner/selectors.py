"""Reads of the planner: the lists' querysets, and the counts other apps ask for (plan usage,
the keywords library's ``sector_stats.added``)."""

from dataclasses import dataclass

from django.db import models
from django.db.models import Count, F, QuerySet, Sum
from django.db.models.functions import Coalesce

from inkwell.keywords.models import DIFFICULTY_LABELS, SeedKeyword
from inkwell.planner.models import Cluster, ContentIdea, Keyword
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
    industry sector's library, in one grouped query (``keywords.selectors.register_added_counter``)."""
    keywords = Keyword.objects.for_account(account).filter(seed_keyword__industry_sector_id__in=sector_ids)
    if site is not None:
        keywords = keywords.filter(site=site)
    rows = keywords.values("seed_keyword__industry_sector_id").annotate(added=Count("id")).order_by()
    return {row["seed_keyword__industry_sector_id"]: row["added"] for row in rows}


# The keyword list's answer, field for field what serializers.KeywordSerializer writes (a test checks).
KEYWORD_LIST_FIELDS = (
    "id", "site_id", "sector_id", "seed_keyword_id", "cluster_id", "cluster_name", "keyword", "volume",
    "difficulty", "country", "status", "credits_paid", "created_at", "updated_at",
)


def keyword_list_rows(keywords: QuerySet) -> QuerySet:
    """The list's rows as plain dicts from ``.values()``: the list is read far more often than
    written, and the serializer cost more than the query. ``with_difficulty_band`` completes a page."""
    return keywords.annotate(cluster_name=F("cluster__name")).values(*KEYWORD_LIST_FIELDS)


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


def ideas_of(account: Account, idea_ids) -> QuerySet:
    return ContentIdea.objects.for_account(account).filter(pk__in=list(idea_ids))
