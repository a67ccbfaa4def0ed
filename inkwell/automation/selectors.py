"""Reads of automation: the pipeline's pending items, a run's credit estimate, what a run is doing.

Every number comes from the stage definitions of ``inkwell.automation.stages`` (the ones the
engine runs) over live data.
"""

from itertools import groupby

from inkwell.automation.models import ACTIVE_RUN_STATUSES, AutomationRun
from inkwell.automation.stages import KEYWORDS_PER_CLUSTER, STAGES, Pipeline
from inkwell.billing.models import CreditLedger
from inkwell.billing.services import cost_of
from inkwell.tenancy.models import Site
from inkwell.writer import images as writer_images


def pipeline_overview(site: Site) -> dict:
    """Pending items per stage, from live data (``GET /automation/pipeline_overview/``)."""
    pipeline = Pipeline.of(site)
    stages = [
        {"number": stage.number, "name": stage.name, "item_type": stage.item_type, "pending": stage.pending(pipeline).count()}
        for stage in STAGES.values()
    ]
    return {"site_id": site.pk, "stages": stages, "total_pending": sum(stage["pending"] for stage in stages)}


def _chunks(items: list, size: int) -> list[list]:
    return [items[start : start + size] for start in range(0, len(items), max(size, 1))]


def _batch_sizes(count: int, size: int) -> list[int]:
    """The sizes of the batches ``count`` items are taken in, ``size`` at a time."""
    size = max(size, 1)
    return [size] * (count // size) + ([count % size] if count % size else [])


def _taken(count: int, per_run_limit: int) -> int:
    return min(count, per_run_limit) if per_run_limit else count


def _image_groups_cost(content_ids: list) -> int:
    """What a batch of images costs: one job per content of the batch (``stages._image_steps``)."""
    return sum(cost_of(writer_images.IMAGE_GENERATION, len(list(group))) for _, group in groupby(content_ids))


def estimate(site: Site) -> dict:
    """What a run started now would spend (``GET /automation/estimate/``): per stage its pending
    items, the items it would process (its own pending ones and those the stages before it make,
    within its per-run limit) and their credits, from the cost table.

    Exact wherever the settings determine the counts: ideas per cluster, one task per idea, one
    article per task at its length, images per article. Not exact downstream of clustering, whose
    number of clusters only the provider knows: a batch of keywords is assumed to make one
    cluster per ``KEYWORDS_PER_CLUSTER``; those stages say ``"exact": false``.
    """
    rows = _projection(Pipeline.of(site))
    total = sum(row["credits"] for row in rows)
    ledger = CreditLedger.objects.for_account(site.account_id).first()
    available = ledger.available if ledger else 0
    return {"estimated_credits": total, "current_balance": available, "sufficient": total <= available, "stages": rows}


def remaining_credits(site: Site, *, from_stage: int) -> int:
    """What the stages from ``from_stage`` on would spend, the earlier ones making nothing more:
    the engine's exact estimate of the rest of a run once clustering is done."""
    return sum(row["credits"] for row in _projection(Pipeline.of(site), first_stage=from_stage))


def _projection(pipeline: Pipeline, first_stage: int = 1) -> list[dict]:
    """The estimate's rows; stages before ``first_stage`` process nothing."""
    rows, exact = [], True

    def config(number: int):
        return pipeline.settings.stage(number)

    def runs(number: int) -> bool:
        return number >= first_stage and config(number).enabled

    def stage_row(number: int, pending: int, items: int, credits: int) -> None:
        rows.append(
            {
                "number": number,
                "name": STAGES[number].name,
                "enabled": config(number).enabled,
                "pending": pending,
                "projected_items": items,
                "credits": credits,
                "exact": exact,
            }
        )

    def batches(number: int, count: int) -> list[int]:
        """The batch sizes a stage processes ``count`` items in (none when it does not run)."""
        settings = config(number)
        return _batch_sizes(_taken(count, settings.per_run_limit), settings.batch_size) if runs(number) else []

    # 1 keywords → clusters
    pending = STAGES[1].pending(pipeline).count()
    sizes = batches(1, pending)
    stage_row(1, pending, sum(sizes), sum(cost_of("clustering", size) for size in sizes))
    made = sum(-(-size // KEYWORDS_PER_CLUSTER) for size in sizes)
    exact = not made

    # 2 clusters → ideas
    pending = STAGES[2].pending(pipeline).count()
    sizes = batches(2, pending + made)
    stage_row(2, pending, sum(sizes), sum(cost_of("idea_generation", size) for size in sizes))
    made = sum(sizes) * pipeline.ideas_per_cluster

    # 3 ideas → tasks (free)
    pending = STAGES[3].pending(pipeline).count()
    made = sum(batches(3, pending + made))
    stage_row(3, pending, made, 0)

    # 4 tasks → content: the queued tasks at their own length, the new ones at the account's.
    lengths = list(STAGES[4].pending(pipeline).values_list("word_count", flat=True))
    pending = len(lengths)
    lengths += [pipeline.article_length] * made
    made = sum(batches(4, len(lengths)))
    stage_row(4, pending, made, sum(cost_of("content_generation", length) for length in lengths[:made]))

    # 5 content → image prompts (none when articles get no images)
    pending = STAGES[5].pending(pipeline).count()
    new_contents = made
    prompted = sum(batches(5, pending + made)) if pipeline.images_per_content else 0
    stage_row(5, pending, prompted, prompted * cost_of(writer_images.PROMPT_EXTRACTION, 1))

    # 6 image prompts → images: each image is known by its content, to cost a batch by content.
    existing = list(STAGES[6].pending(pipeline).values_list("content_id", flat=True))
    queue = existing + [("new", index) for index in range(prompted) for _ in range(pipeline.images_per_content)]
    settings = config(6)
    taken = queue[: _taken(len(queue), settings.per_run_limit)] if runs(6) else []
    stage_row(6, len(existing), len(taken), sum(_image_groups_cost(chunk) for chunk in _chunks(taken, settings.batch_size)))
    # Content whose every image gets made becomes reviewable; without images, every new draft does.
    if pipeline.images_per_content:
        left = set(queue[len(taken) :])
        reviewable = len({content for content in taken if content not in left})
    else:
        reviewable = new_contents

    # 7 review gate (free)
    pending = STAGES[7].pending(pipeline).count()
    stage_row(7, pending, sum(batches(7, pending + reviewable)), 0)
    return rows


def current_processing(site: Site) -> dict:
    """What the site's active run is doing (``GET /automation/current_processing/``): its stage,
    the item being processed, and done/total of the stage. All None/0 without an active run."""
    run = AutomationRun.objects.for_account(site.account_id).filter(site=site, status__in=ACTIVE_RUN_STATUSES).first()
    if run is None:
        idle = dict.fromkeys(("run_id", "status", "current_stage", "stage_name", "item"))
        return {**idle, "done": 0, "total": 0, "items_processed": 0, "credits_used": 0}
    item = run.current_item or {}
    return {
        "run_id": run.pk,
        "status": run.status,
        "current_stage": run.current_stage,
        "stage_name": STAGES[run.current_stage].name,
        "item": {key: item.get(key) for key in ("item_type", "item_id", "label", "job_id")} if item.get("item_id") is not None else None,
        "done": item.get("done", 0),
        "total": item.get("total", 0),
        "items_processed": run.items_processed,
        "credits_used": run.credits_used,
    }
