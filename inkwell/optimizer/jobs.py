"""The optimizer's jobs: AI optimization of one article, or of many of one site.

Each handler asks the provider first, article by article, and writes everything in one
transaction at the end: the new revisions, the charge (the job's held credits settled for the
articles saved, with the provider's token usage) and the job's result. A handler run again after
its worker died once that transaction committed finds the result on the job and returns it, so
nothing is written or charged twice. Provider errors of a single optimization propagate (the
runner retries the transient ones); in a batch an article the provider failed on is reported in
``failed`` and the others go on, unless every article failed. No notification: the spec's events
name none for the optimizer.
"""

from django.db import transaction

from inkwell.ai.errors import AIError
from inkwell.ai.types import TokenUsage
from inkwell.billing.services import cost_of, settle_job
from inkwell.jobs.services import JobContext, JobFailed, job_kind
from inkwell.optimizer.services import (
    BATCH_OPTIMIZE,
    OPERATION,
    OPTIMIZE,
    REFRESH_WITH_AI,
    Outcome,
    apply_proposal,
    apply_refresh_proposal,
    optimizer_client,
    propose,
    refresh_proposal,
)
from inkwell.writer.models import Content, ContentRefresh

CONTENT_GONE = "The content was deleted before it was optimized"


def _total(usages: list[TokenUsage]) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=sum(usage.prompt_tokens for usage in usages),
        completion_tokens=sum(usage.completion_tokens for usage in usages),
        model=next((usage.model for usage in usages if usage.model), ""),
    )


def _optimized(results: list[dict]) -> int:
    return sum(1 for item in results if item["outcome"] == Outcome.OPTIMIZED)


@job_kind(name=OPTIMIZE)
def optimize(ctx: JobContext) -> dict:
    job = ctx.job
    if job.result:
        return job.result
    account = job.account
    content = Content.objects.for_account(account).select_related("task").filter(pk=ctx.params["content_id"]).first()
    if content is None:
        raise JobFailed(CONTENT_GONE, code="content_missing")
    ctx.progress(10, f"Optimizing {content.title}"[:255])
    proposal = propose(client=optimizer_client(account=account, site=content.site), account=account, content=content)
    ctx.progress(90, "Saving the optimized article")
    with transaction.atomic():
        item = apply_proposal(account=account, proposal=proposal, user=job.created_by)
        credits = settle_job(job=job, amount=cost_of(operation_type=OPERATION, units=_optimized([item])), usage=proposal.usage)
        result = {**item, "credits_used": credits}
        ctx.record_result(result)
    return result


@job_kind(name=BATCH_OPTIMIZE)
def batch_optimize(ctx: JobContext) -> dict:
    job = ctx.job
    if job.result:
        return job.result
    account = job.account
    content_ids = ctx.params["content_ids"]
    not_found = list(ctx.params.get("not_found", []))
    contents = {
        content.pk: content
        for content in Content.objects.for_account(account).select_related("task").filter(site_id=job.site_id, pk__in=content_ids)
    }
    client = optimizer_client(account=account, site=job.site)
    proposals, failed, first_error = [], [], None
    for number, content_id in enumerate(content_ids):
        content = contents.get(content_id)
        if content is None:
            not_found.append(content_id)
            continue
        ctx.progress(5 + 85 * number // len(content_ids), f"Optimizing {content.title}"[:255])
        try:
            proposals.append(propose(client=client, account=account, content=content))
        except AIError as error:
            failed.append({"content_id": content_id, "error": error.message})
            first_error = first_error or error
    if not proposals:
        if first_error is not None:
            raise first_error
        raise JobFailed(CONTENT_GONE, code="content_missing")
    ctx.progress(90, "Saving the optimized articles")
    with transaction.atomic():
        results = [apply_proposal(account=account, proposal=proposal, user=job.created_by) for proposal in proposals]
        optimized = _optimized(results)
        credits = settle_job(job=job, amount=cost_of(operation_type=OPERATION, units=optimized), usage=_total([proposal.usage for proposal in proposals]))
        result = {"optimized": optimized, "credits_used": credits, "results": results, "failed": failed, "not_found": not_found}
        ctx.record_result(result)
    return result


REFRESH_GONE = "The refresh was deleted before it was written"


@job_kind(name=REFRESH_WITH_AI)
def refresh_with_ai(ctx: JobContext) -> dict:
    """Writes a draft refresh with AI from its opportunity (issue #37): charged only when saved."""
    job = ctx.job
    if job.result:
        return job.result
    account = job.account
    refresh = ContentRefresh.objects.for_account(account).select_related("content", "site").filter(pk=ctx.params["refresh_id"]).first()
    if refresh is None:
        raise JobFailed(REFRESH_GONE, code="refresh_missing")
    snapshot = (refresh.title, refresh.html, refresh.meta_title, refresh.meta_description, refresh.status)
    ctx.progress(10, f"Writing the refresh of {refresh.content.title}"[:255])
    article, changes, usage = refresh_proposal(client=optimizer_client(account=account, site=refresh.site), account=account, refresh=refresh)
    ctx.progress(90, "Saving the refresh")
    with transaction.atomic():
        saved = apply_refresh_proposal(account=account, refresh_id=refresh.pk, snapshot=snapshot, article=article, user=job.created_by)
        credits = settle_job(job=job, amount=cost_of(operation_type=OPERATION, units=1 if saved else 0), usage=usage)
        result = {"refresh_id": refresh.pk, "saved": saved, "changes": changes if saved else [], "credits_used": credits}
        ctx.record_result(result)
    return result
