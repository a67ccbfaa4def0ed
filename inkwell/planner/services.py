"""Writes of the planner: keywords added from the library (paid ones charged their ``credit_cost``),
clusters and ideas by hand or by AI jobs, and ideas turned into writer tasks.

Keyword statuses: ``active`` (the default; clustered by ``auto_cluster``), ``paused`` (kept, but
left out of automatic clustering) and ``archived`` (kept for the record only). Cluster statuses:
``active``, ``archived``. Idea statuses: ``new``, ``converted`` (a writer task was made from it),
``archived``.
"""

from django.db import models, transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from inkwell.api.exceptions import Conflict, PlanLimitReached
from inkwell.api.text import counted
from inkwell.billing.services import cost_of, reserve_for_job, spend
from inkwell.jobs.models import Job
from inkwell.jobs.services import start_job
from inkwell.keywords.models import SeedKeyword
from inkwell.notifications import events
from inkwell.planner import selectors
from inkwell.planner.selectors import SEED_FIELDS
from inkwell.planner.models import Cluster, ClusterStatus, ContentIdea, Keyword, KeywordStatus
from inkwell.planner.overlaps import flag_new_ideas
from inkwell.tenancy.models import Account, Sector, Site, User
from inkwell.tenancy.services import lock_account

AUTO_CLUSTER_JOB = "planner.auto_cluster"
GENERATE_IDEAS_JOB = "planner.generate_ideas"

MAX_BULK_IDS = 10_000
# One clustering job: the local provider clusters this many in one pass (inkwell.ai.local.clustering).
MAX_CLUSTER_KEYWORDS = 5_000
MAX_IDEA_CLUSTERS = 100
# Rows per INSERT when adding keywords: 5,000 keywords are 5 statements on PostgreSQL (SQLite's
# 999-parameter limit makes its batches smaller).
INSERT_BATCH_SIZE = 1_000
# What the writer accepts for an idea's content type (its structures: inkwell.ai.types.STRUCTURES).
CONTENT_TYPES = ("post", "page")

ALREADY_ADDED = "This keyword is already in the site's workflow"
NOTHING_TO_CLUSTER = "There are no unclustered active keywords to cluster"
CLUSTER_NOT_IN_SITE = "Cluster must belong to the same site"
SECTOR_NOT_IN_SITE = "Sector must belong to the selected site"
CLUSTERS_OF_ONE_SITE = "All clusters must belong to the same site"


class TaskSkipReason(models.TextChoices):
    """Why ``create_tasks`` made no task of an idea."""

    ALREADY_CONVERTED = "already_converted", "The idea already became a task"
    NOT_FOUND = "not_found", "None of the caller's ideas has this id"
    NO_SECTOR = "no_sector", "Neither the idea nor its site has a sector"


def _check_keyword_limit(account: Account, adding: int) -> None:
    """403 ``plan_limit_reached`` when ``adding`` more keywords would pass the plan's ``max_keywords``."""
    maximum = account.subscription.plan.max_keywords
    current = selectors.keyword_count(account)
    if current + adding > maximum:
        raise PlanLimitReached(
            {"max_keywords": [f"Your plan allows at most {counted(maximum, 'keyword')}; {max(0, maximum - current)} more can be added"]}
        )


def _keyword_from(seed: dict, *, account: Account, site: Site, sector: Sector, status: str = KeywordStatus.ACTIVE) -> Keyword:
    return Keyword(
        account=account,
        site=site,
        sector=sector,
        seed_keyword_id=seed["id"],
        keyword=seed["keyword"],
        volume=seed["volume"],
        difficulty=seed["difficulty"],
        country=seed["country"],
        status=status,
        credits_paid=seed["credit_cost"],
    )


# Keywords


@transaction.atomic
def keyword_create(*, account: Account, site: Site, sector: Sector, seed_keyword: SeedKeyword, status: str = KeywordStatus.ACTIVE) -> Keyword:
    """One library keyword added to a site; a paid one costs its ``credit_cost`` (402 when short)."""
    lock_account(account=account)
    if Keyword.objects.for_account(account).filter(site=site, seed_keyword=seed_keyword).exists():
        raise Conflict({"seed_keyword_id": [ALREADY_ADDED]})
    _check_keyword_limit(account, 1)
    if seed_keyword.credit_cost:
        spend(
            account=account,
            operation_type="keyword_purchase",
            amount=seed_keyword.credit_cost,
            site=site,
            related=("seed_keyword", seed_keyword.pk),
            description=f"Paid keyword: {seed_keyword.keyword}",
        )
    seed = {field: getattr(seed_keyword, field) for field in SEED_FIELDS}
    keyword = _keyword_from(seed, account=account, site=site, sector=sector, status=status)
    keyword.save()
    return keyword


@transaction.atomic
def keyword_update(*, keyword: Keyword, **fields) -> Keyword:
    """Changes ``status`` and/or ``cluster`` (a cluster of the keyword's site, or None)."""
    cluster = fields.get("cluster")
    if cluster is not None and cluster.site_id != keyword.site_id:
        raise ValidationError({"cluster_id": [CLUSTER_NOT_IN_SITE]})
    for name, value in fields.items():
        setattr(keyword, name, value)
    keyword.save()
    return keyword


def _found_ids(keywords: models.QuerySet, ids: list[int]) -> tuple[list[int], list[int]]:
    """The ids among ``ids`` that name rows of ``keywords`` (locked), and the others, in request order."""
    wanted = list(dict.fromkeys(ids))
    found = set(keywords.filter(pk__in=wanted).select_for_update().values_list("pk", flat=True))
    return [pk for pk in wanted if pk in found], [pk for pk in wanted if pk not in found]


@transaction.atomic
def keywords_bulk_delete(*, keywords: models.QuerySet, ids: list[int]) -> dict:
    """Hard-deletes the caller's keywords among ``ids`` (``keywords`` is the caller's scoped
    queryset) in one statement; the others are reported as ``not_found``."""
    found, not_found = _found_ids(keywords, ids)
    deleted = keywords.filter(pk__in=found).delete()[0] if found else 0
    return {"deleted": deleted, "not_found": not_found}


@transaction.atomic
def keywords_bulk_status(*, keywords: models.QuerySet, ids: list[int], status: str) -> dict:
    found, not_found = _found_ids(keywords, ids)
    updated = keywords.filter(pk__in=found).update(status=status, updated_at=timezone.now()) if found else 0
    return {"updated": updated, "not_found": not_found}


def add_to_workflow(*, account: Account, site: Site, sector: Sector, seed_keyword_ids: list[int]) -> dict:
    """Adds many library keywords to a site's sector at once.

    Only the sector's industry sector's library keywords are added; the others are reported in
    ``skipped`` (``not_in_sector``, ``not_found``), as are those the site has already
    (``already_added``). The paid ones are charged their ``credit_cost`` together, in one charge
    before anything is inserted: when the balance cannot cover it the answer is 402 and nothing
    is added. Past the plan's ``max_keywords`` the answer is 403 and nothing is added. A fixed
    number of queries plus one INSERT per ``INSERT_BATCH_SIZE`` rows, whatever the count.
    """
    with transaction.atomic():
        lock_account(account=account)  # concurrent additions cannot both pass the limit or add the same keyword
        selection = selectors.workflow_additions(account=account, site=site, sector=sector, seed_keyword_ids=seed_keyword_ids)
        adding, skipped, credits = selection.adding, selection.skipped, selection.credits
        if adding:
            _check_keyword_limit(account, len(adding))
            if credits:
                paid = sum(1 for seed in adding if seed["credit_cost"])
                spend(account=account, operation_type="keyword_purchase", amount=credits, site=site, description=f"{counted(paid, 'paid keyword')} for {site.name}")
            Keyword.objects.bulk_create(
                [_keyword_from(seed, account=account, site=site, sector=sector) for seed in adding], batch_size=INSERT_BATCH_SIZE
            )
            events.keywords_imported(account=account, site=site, sector_id=sector.pk, sector_name=sector.name, added=len(adding), credits=credits)
    return {"added": len(adding), "skipped": skipped, "credits_used": credits}


# Clusters


@transaction.atomic
def cluster_create(
    *, account: Account, site: Site, name: str, sector: Sector | None = None, description: str = "", status: str = ClusterStatus.ACTIVE
) -> Cluster:
    return Cluster.objects.create(account=account, site=site, sector=sector, name=name, description=description, status=status)


@transaction.atomic
def cluster_update(*, cluster: Cluster, **fields) -> Cluster:
    sector = fields.get("sector")
    if sector is not None and sector.site_id != cluster.site_id:
        raise ValidationError({"sector_id": [SECTOR_NOT_IN_SITE]})
    for name, value in fields.items():
        setattr(cluster, name, value)
    cluster.save()
    return cluster


def start_auto_cluster(
    *, account: Account, user: User | None, site: Site, sector: Sector | None = None, keyword_ids: list[int] | None = None, inline: bool = False
) -> Job:
    """Starts an AI clustering job (``jobs.AUTO_CLUSTER_JOB``) over the given keywords of the site,
    or its (sector's) unclustered active keywords; its cost, ``cost_of("clustering", n)``, is held
    as the job is created (402 and no job when the balance cannot cover it). ``inline``: the caller
    runs the job itself (``jobs.services.start_job``)."""
    keywords = Keyword.objects.for_account(account).filter(site=site)
    if sector is not None:
        keywords = keywords.filter(sector=sector)
    if keyword_ids is None:
        ids = list(
            keywords.filter(cluster__isnull=True, status=KeywordStatus.ACTIVE).order_by("-volume", "id").values_list("pk", flat=True)[:MAX_CLUSTER_KEYWORDS]
        )
        if not ids:
            raise ValidationError({"sector_id" if sector is not None else "site_id": [NOTHING_TO_CLUSTER]})
    else:
        ids = list(dict.fromkeys(keyword_ids))
        found = set(keywords.filter(pk__in=ids).values_list("pk", flat=True))
        missing = [pk for pk in ids if pk not in found]
        if missing:
            where = "this site and sector" if sector is not None else "this site"
            raise ValidationError({"keyword_ids": [f"Keywords not found in {where}: {_id_text(missing)}"]})
    cost = cost_of(operation_type="clustering", units=len(ids))
    return start_job(
        account=account,
        kind=AUTO_CLUSTER_JOB,
        params={"keyword_ids": ids, "sector_id": sector.pk if sector is not None else None},
        site=site,
        user=user,
        prepare=reserve_for_job(operation_type="clustering", amount=cost, description=f"Clustering {counted(len(ids), 'keyword')}"),
        inline=inline,
    )


def _id_text(ids: list[int], shown: int = 20) -> str:
    text = ", ".join(map(str, ids[:shown]))
    return text + (f" and {len(ids) - shown} more" if len(ids) > shown else "")


def start_generate_ideas(
    *, account: Account, user: User | None, clusters: models.QuerySet, cluster_ids: list[int], ideas_per_cluster: int, inline: bool = False
) -> Job:
    """Starts an idea generation job (``jobs.GENERATE_IDEAS_JOB``) for clusters of one site among
    ``clusters`` (the caller's scoped queryset); it costs ``cost_of("idea_generation", n)``, held as
    the job is created. ``inline``: the caller runs the job itself."""
    wanted = list(dict.fromkeys(cluster_ids))
    sites = dict(clusters.filter(pk__in=wanted).values_list("pk", "site_id"))
    missing = [pk for pk in wanted if pk not in sites]
    if missing:
        raise ValidationError({"cluster_ids": [f"Clusters not found: {_id_text(missing)}"]})
    if len(set(sites.values())) > 1:
        raise ValidationError({"cluster_ids": [CLUSTERS_OF_ONE_SITE]})
    site = Site.objects.for_account(account).get(pk=next(iter(sites.values())))
    cost = cost_of(operation_type="idea_generation", units=len(wanted))
    return start_job(
        account=account,
        kind=GENERATE_IDEAS_JOB,
        params={"cluster_ids": wanted, "ideas_per_cluster": ideas_per_cluster},
        site=site,
        user=user,
        prepare=reserve_for_job(operation_type="idea_generation", amount=cost, description=f"Ideas for {counted(len(wanted), 'cluster')}"),
        inline=inline,
    )


# Ideas


@transaction.atomic
def idea_create(*, account: Account, site: Site, title: str, **fields) -> ContentIdea:
    """A new idea, flagged when it competes with the site's existing pieces (``inkwell.planner.overlaps``)."""
    idea = ContentIdea(account=account, site=site, title=title, **fields)
    flag_new_ideas(account=account, ideas=[idea])
    idea.save()
    return idea


@transaction.atomic
def idea_update(*, idea: ContentIdea, **fields) -> ContentIdea:
    sector, cluster = fields.get("sector"), fields.get("cluster")
    if sector is not None and sector.site_id != idea.site_id:
        raise ValidationError({"sector_id": [SECTOR_NOT_IN_SITE]})
    if cluster is not None and cluster.site_id != idea.site_id:
        raise ValidationError({"cluster_id": [CLUSTER_NOT_IN_SITE]})
    for name, value in fields.items():
        setattr(idea, name, value)
    idea.save()
    return idea
