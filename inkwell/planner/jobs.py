"""The planner's AI jobs: clustering keywords and generating ideas from clusters.

Each handler asks the provider first and writes everything in one transaction at the end: the
rows, the charge (the job's held credits settled with the provider's token usage), the job's
result and the ``*_complete`` notification. A handler run again after its worker died once that
transaction committed finds the result on the job and returns it, so nothing is written twice.
Provider errors propagate: the runner retries the transient ones and records the others, then
``on_failure`` raises the ``*_failed`` notification (the held credits are released).
"""

from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from inkwell.ai.types import STRUCTURES, ClusterDraft, KeywordInput, TokenUsage
from inkwell.api.text import counted
from inkwell.billing.services import cost_of, settle_job
from inkwell.jobs.models import Job
from inkwell.jobs.services import JobContext, JobFailed, job_kind
from inkwell.notifications import events
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.planner.overlaps import flag_new_ideas
from inkwell.planner.services import AUTO_CLUSTER_JOB, CONTENT_TYPES, GENERATE_IDEAS_JOB
from inkwell.system.selectors import ai_client
from inkwell.tenancy.models import Sector

# The keywords an idea prompt names per cluster: its highest-volume ones.
IDEA_PROMPT_KEYWORDS = 20


def _failure_message(job: Job) -> str:
    return (job.error or {}).get("message") or "The job did not finish"


# Clustering


def _cluster_sector_id(keyword_ids: list[int], sector_of: dict[int, int], chosen: int | None) -> int | None:
    """The sector the job was asked for, else the one sector all the cluster's keywords share."""
    if chosen is not None:
        return chosen
    sectors = {sector_of[pk] for pk in keyword_ids}
    return sectors.pop() if len(sectors) == 1 else None


def _clustering_failed(job: Job) -> None:
    count = len(job.params.get("keyword_ids", []))
    events.clustering_failed(account=job.account, site=job.site, site_id=job.site_id, keywords=count, reason=_failure_message(job), job_id=job.pk)


@job_kind(name=AUTO_CLUSTER_JOB, on_failure=_clustering_failed)
def auto_cluster(ctx: JobContext) -> dict:
    job = ctx.job
    if job.result:
        return job.result
    account, sector_id = job.account, ctx.params.get("sector_id")
    keywords = list(
        Keyword.objects.for_account(account)
        .filter(site_id=job.site_id, pk__in=ctx.params["keyword_ids"])
        .values("id", "keyword", "volume", "difficulty", "country", "sector_id")
    )
    if not keywords:
        raise JobFailed("The keywords to cluster no longer exist", code="nothing_to_cluster")
    sector = Sector.objects.for_account(account).filter(pk=sector_id).values("id", "name").first() if sector_id else None
    sector_id, sector_name = (sector["id"], sector["name"]) if sector else (None, "")
    ctx.progress(5, f"Clustering {counted(len(keywords), 'keyword')}")
    answer = ai_client(account, site=job.site).cluster_keywords(
        [
            KeywordInput(id=row["id"], keyword=row["keyword"], volume=row["volume"], difficulty=row["difficulty"], country=row["country"])
            for row in keywords
        ],
        sector=sector_name,
    )
    ctx.progress(90, "Saving the clusters")

    sector_of = {row["id"]: row["sector_id"] for row in keywords}
    placed: set[int] = set()
    groups = []
    for draft in answer.value:
        # Each keyword joins one cluster, and only keywords this job was given.
        ids = [pk for pk in dict.fromkeys(draft.keyword_ids) if pk in sector_of and pk not in placed]
        if ids:
            placed.update(ids)
            groups.append((draft, ids))
    # Every keyword ends in a cluster (contract section 12): one the provider's answer left out is a
    # cluster of its own, named after it (issue 30: a run used to charge for keywords left out).
    for row in keywords:
        if row["id"] not in placed:
            placed.add(row["id"])
            groups.append((ClusterDraft(name=row["keyword"].strip(), description="", keyword_ids=[row["id"]]), [row["id"]]))
    now = timezone.now()
    with transaction.atomic():
        clusters = Cluster.objects.bulk_create(
            Cluster(
                account=account,
                site_id=job.site_id,
                sector_id=_cluster_sector_id(ids, sector_of, sector_id),
                name=draft.name[:200] or "Cluster",
                description=draft.description,
            )
            for draft, ids in groups
        )
        for cluster, (_, ids) in zip(clusters, groups, strict=True):
            Keyword.objects.for_account(account).filter(pk__in=ids).update(cluster=cluster, updated_at=now)
        credits = settle_job(job=job, amount=cost_of(operation_type="clustering", units=len(keywords)), usage=answer.usage)
        result = {
            "clusters_created": len(clusters),
            "keywords_clustered": len(placed),
            # Always 0 since every keyword ends in a cluster; kept for the clients that read it.
            "keywords_unclustered": len(keywords) - len(placed),
            "cluster_ids": [cluster.pk for cluster in clusters],
            "credits_used": credits,
        }
        ctx.record_result(result)
        events.clustering_complete(
            account=account, site=job.site, site_id=job.site_id, keywords=len(placed), clusters=len(clusters), credits=credits, job_id=job.pk
        )
    return result


# Ideas


def _ideas_failed(job: Job) -> None:
    count = len(job.params.get("cluster_ids", []))
    events.ideas_failed(account=job.account, site=job.site, site_id=job.site_id, clusters=count, reason=_failure_message(job), job_id=job.pk)


def _prompt_keywords(account, cluster_ids: list[int]) -> dict[int, list[str]]:
    """Each cluster's highest-volume keywords, in one query."""
    by_cluster: dict[int, list[str]] = defaultdict(list)
    rows = Keyword.objects.for_account(account).filter(cluster_id__in=cluster_ids).order_by("cluster_id", "-volume", "id")
    for cluster_id, text in rows.values_list("cluster_id", "keyword"):
        if len(by_cluster[cluster_id]) < IDEA_PROMPT_KEYWORDS:
            by_cluster[cluster_id].append(text)
    return by_cluster


@job_kind(name=GENERATE_IDEAS_JOB, on_failure=_ideas_failed)
def generate_ideas(ctx: JobContext) -> dict:
    job = ctx.job
    if job.result:
        return job.result
    account, per_cluster = job.account, ctx.params["ideas_per_cluster"]
    clusters = list(Cluster.objects.for_account(account).filter(site_id=job.site_id, pk__in=ctx.params["cluster_ids"]).order_by("id"))
    if not clusters:
        raise JobFailed("The clusters no longer exist", code="nothing_to_generate")
    keywords = _prompt_keywords(account, [cluster.pk for cluster in clusters])
    client = ai_client(account, site=job.site)
    drafts, prompt_tokens, completion_tokens, model = [], 0, 0, ""
    for index, cluster in enumerate(clusters):
        ctx.progress(5 + 85 * index // len(clusters), f"Ideas for {cluster.name}")
        answer = client.generate_ideas(cluster.name, keywords.get(cluster.pk) or [cluster.name], count=per_cluster)
        drafts.extend((cluster, idea) for idea in answer.value[:per_cluster])
        prompt_tokens += answer.usage.prompt_tokens
        completion_tokens += answer.usage.completion_tokens
        model = answer.usage.model or model
    ctx.progress(90, "Saving the ideas")

    ideas = [
        ContentIdea(
            account=account,
            site_id=cluster.site_id,
            sector_id=cluster.sector_id,
            cluster=cluster,
            title=idea.title[:300],
            description=idea.description,
            # The writer accepts these values; a provider's other labels fall back to the defaults.
            content_type=idea.content_type if idea.content_type in CONTENT_TYPES else "post",
            content_structure=idea.content_structure if idea.content_structure in STRUCTURES else "guide",
            target_keywords=idea.target_keywords,
            outline=idea.outline,
        )
        for cluster, idea in drafts
    ]
    # Compared with what the site had before this job: ideas of one cluster are angles on it, not rivals.
    flag_new_ideas(account=account, ideas=ideas)
    with transaction.atomic():
        ideas = ContentIdea.objects.bulk_create(ideas)
        credits = settle_job(job=job, amount=cost_of(operation_type="idea_generation", units=len(clusters)), usage=TokenUsage(prompt_tokens, completion_tokens, model))
        result = {
            "ideas_created": len(ideas),
            "idea_ids": [idea.pk for idea in ideas],
            "cluster_ids": [cluster.pk for cluster in clusters],
            "credits_used": credits,
        }
        ctx.record_result(result)
        events.ideas_complete(
            account=account, site=job.site, site_id=job.site_id, ideas=len(ideas), clusters=len(clusters), credits=credits, job_id=job.pk
        )
    return result
