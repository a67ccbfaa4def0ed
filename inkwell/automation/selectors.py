"""Reads of automation: the pipeline's pending items, a run's credit estimate, what a run is doing.

Every number comes from the stage definitions of ``inkwell.automation.stages`` (the ones the
engine runs) over live data.
"""

from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from inkwell.api.sql import account_row_conditions, fetched_rows, loaded, model_columns, quoted_table, sql_columns, sql_where
from inkwell.automation.models import ACTIVE_RUN_STATUSES, AutomationLog, AutomationRun, AutomationStageRun
from inkwell.automation.stages import KEYWORDS_PER_CLUSTER, STAGES, Pipeline
from inkwell.billing.selectors import available_credits
from inkwell.billing.services import cost_of
from inkwell.sitesettings.models import SiteSettings
from inkwell.tenancy.models import Site
from inkwell.writer import selectors as writer_selectors


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


def _taken(count: int, per_run_limit: int) -> int:
    return min(count, per_run_limit) if per_run_limit else count


def _image_groups_cost(content_ids: list) -> int:
    """What a batch of images costs: one job per content of the batch (``stages._image_steps``)."""
    return sum(cost_of(operation_type=writer_selectors.IMAGE_GENERATION, units=len(list(group))) for _, group in groupby(content_ids))


def estimate(site: Site) -> dict:
    """What a run started now does (``GET /automation/estimate/``): per stage its pending items,
    the items it would process (its own pending ones and those the stages before it make, within
    its per-run limit and its share of the run's budget) and their credits, from the cost table.

    The run's ``budget`` is what the whole pipeline would cost with no budget split; each stage
    may spend its ``budget_pct`` share of it plus what earlier stages left, exactly as the engine
    applies it, so a stage the split cuts short shows the items it really processes
    (``budget_reached``). Exact wherever the settings determine the counts: ideas per cluster, one
    task per idea, one article per task at its length, images per article. Not exact downstream of
    clustering, whose number of clusters only the provider knows: a batch of keywords is assumed
    to make one cluster per ``KEYWORDS_PER_CLUSTER``; those stages say ``"exact": false``.
    """
    pipeline = Pipeline.of(site)
    available = available_credits(site.account_id)
    snapshot = _pending_now(pipeline)
    budget = sum(row["credits"] for row in _projection(pipeline, snapshot=snapshot))
    rows = _projection(pipeline, budget=budget, snapshot=snapshot)
    total = sum(row["credits"] for row in rows)
    return {"estimated_credits": total, "current_balance": available, "sufficient": total <= available, "budget": budget, "stages": rows}


def remaining_credits(site: Site, *, from_stage: int) -> int:
    """What the stages from ``from_stage`` on would spend with no budget split, the earlier ones
    making nothing more: the engine's budget of the rest of a run once clustering is done."""
    pipeline = Pipeline.of(site)
    return sum(row["credits"] for row in _projection(pipeline, first_stage=from_stage, snapshot=_pending_now(pipeline)))


def _pending_now(pipeline: Pipeline) -> dict[int, int | list]:
    """What each stage has pending now: counts, and for stages 4 and 6 the items' article lengths
    and contents (a queue's order decides what a per-run limit takes). Read once per estimate:
    its projections all start from the same data."""
    return {
        1: STAGES[1].pending(pipeline).count(),
        2: STAGES[2].pending(pipeline).count(),
        3: STAGES[3].pending(pipeline).count(),
        4: list(STAGES[4].pending(pipeline).values_list("word_count", flat=True)),
        5: STAGES[5].pending(pipeline).count(),
        6: list(STAGES[6].pending(pipeline).values_list("content_id", flat=True)),
        7: STAGES[7].pending(pipeline).count(),
    }


def _projection(pipeline: Pipeline, first_stage: int = 1, *, snapshot: dict, budget: int | None = None, new_clusters: int = 0) -> list[dict]:
    """The estimate's rows, the run simulated stage by stage as the engine processes it; stages
    before ``first_stage`` process nothing. ``budget``: the run's budget, split by the stages'
    ``budget_pct`` (None: no split). ``new_clusters``: clusters made before ``first_stage``."""
    rows, exact, spent = [], True, 0

    def config(number: int):
        return pipeline.settings.stage(number)

    def runs(number: int) -> bool:
        return number >= first_stage and config(number).enabled

    def stage_row(number: int, pending: int, items: int, credits: int, cut: bool) -> None:
        rows.append(
            {
                "number": number,
                "name": STAGES[number].name,
                "enabled": config(number).enabled,
                "pending": pending,
                "projected_items": items,
                "credits": credits,
                "budget_reached": cut,
                "exact": exact,
            }
        )

    def process(number: int, items: list, batch_cost) -> tuple[list, int, bool]:
        """The items the stage processes (a prefix, in whole batches), their credits, and whether
        its budget stopped it: ``engine.Engine._stage``'s loop."""
        nonlocal spent
        if not runs(number):
            return [], 0, False
        settings = config(number)
        items = items[: _taken(len(items), settings.per_run_limit)]
        shares = sum(config(stage).budget_pct for stage in range(1, number + 1))
        limit = None if budget is None else max(0, budget * shares // 100 - spent)
        taken, credits = [], 0
        for batch in _chunks(items, settings.batch_size):
            cost = batch_cost(batch)
            if limit is not None and credits + cost > limit:
                spent += credits
                return taken, credits, True
            taken.extend(batch)  # in place: a new list per batch made a long queue quadratic
            credits += cost
        spent += credits
        return taken, credits, False

    # 1 keywords → clusters
    pending = snapshot[1]
    taken, credits, cut = process(1, [None] * pending, lambda batch: cost_of(operation_type="clustering", units=len(batch)))
    stage_row(1, pending, len(taken), credits, cut)
    made = sum(-(-len(batch) // KEYWORDS_PER_CLUSTER) for batch in _chunks(taken, config(1).batch_size))
    exact = not made
    if budget is not None and taken and runs(2):
        # The engine's rebase once clustering is done: what it spent plus the rest with no split.
        budget = spent + sum(row["credits"] for row in _projection(pipeline, first_stage=2, snapshot=snapshot, new_clusters=made))
    made += new_clusters

    # 2 clusters → ideas
    pending = snapshot[2]
    taken, credits, cut = process(2, [None] * (pending + made), lambda batch: cost_of(operation_type="idea_generation", units=len(batch)))
    stage_row(2, pending, len(taken), credits, cut)
    made = len(taken) * pipeline.ideas_per_cluster

    # 3 ideas → tasks (free)
    pending = snapshot[3]
    taken, credits, cut = process(3, [None] * (pending + made), lambda batch: 0)
    stage_row(3, pending, len(taken), credits, cut)
    made = len(taken)

    # 4 tasks → content: the queued tasks at their own length, the new ones at the account's.
    lengths = list(snapshot[4])
    pending = len(lengths)
    lengths += [pipeline.article_length] * made
    taken, credits, cut = process(4, lengths, lambda batch: sum(cost_of(operation_type="content_generation", units=length) for length in batch))
    stage_row(4, pending, len(taken), credits, cut)
    new_contents = len(taken)

    # 5 content → image prompts (none when articles get no images)
    pending = snapshot[5]
    contents = list(range(pending + new_contents)) if pipeline.images_per_content else []
    prompted, credits, cut = process(5, contents, lambda batch: len(batch) * cost_of(operation_type=writer_selectors.PROMPT_EXTRACTION, units=1))
    stage_row(5, pending, len(prompted), credits, cut)

    # 6 image prompts → images: each image is known by its content, to cost a batch by content.
    existing = list(snapshot[6])
    queue = existing + [("new", content) for content in prompted for _ in range(pipeline.images_per_content)]
    taken, credits, cut = process(6, queue, _image_groups_cost)
    stage_row(6, len(existing), len(taken), credits, cut)
    # Content whose every image gets made becomes reviewable; without images, every new draft does.
    if pipeline.images_per_content:
        left = set(queue[len(taken) :])
        reviewable = len({content for content in taken if content not in left})
    else:
        reviewable = new_contents

    # 7 review gate (free)
    pending = snapshot[7]
    taken, credits, cut = process(7, [None] * (pending + reviewable), lambda batch: 0)
    stage_row(7, pending, len(taken), credits, cut)
    return rows


def active_run(site: Site) -> AutomationRun | None:
    """The site's queued, running or paused run (at most one: a constraint keeps it so)."""
    return AutomationRun.objects.for_account(site.account_id).filter(site=site, status__in=ACTIVE_RUN_STATUSES).first()


def current_processing(site: Site) -> dict:
    """What the site's active run is doing (``GET /automation/current_processing/``): its stage,
    the item being processed, and done/total of the stage. All None/0 without an active run."""
    run = active_run(site)
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


def due_automation(*, now: datetime, limit: int = 500) -> list[SiteSettings]:
    """Every account's sites whose next automation run has come, the longest due first (index
    ``sitesettings_next_run``), with their site, account and subscription. At most ``limit``: the
    rest are still due at the next pass."""
    due = SiteSettings.dangerously_unscoped.filter(next_run_at__lte=now).select_related("site", "account__subscription")
    return list(due.order_by("next_run_at", "id")[:limit])


# What a run's live part shows (console/components/automation_run_live.html): the run's fields and
# each stage's; a new log line shows as a new newest id.
LIVE_RUN_FIELDS = ("status", "current_stage", "total_stages", "items_processed", "credits_used", "budget", "current_item", "error_message")
LIVE_STAGE_FIELDS = ("stage", "status", "pending_at_start", "processed", "failed", "credits_used", "budget")
_LIVE_RUN_COLUMNS = model_columns("r", AutomationRun, ("id", "site_id", *LIVE_RUN_FIELDS))
_LIVE_STAGE_COLUMNS = model_columns("s", AutomationStageRun, ("id", *LIVE_STAGE_FIELDS))


@dataclass(frozen=True)
class RunLive:
    """A run with only what its live part shows loaded, its stages in order, and ``state``: all
    of it and the newest log line's id, as the ETag of the live part names it."""

    run: AutomationRun
    stages: list[AutomationStageRun]
    state: tuple


def run_live(*, account_id: int, site_ids: frozenset[int] | None, run_id: int) -> RunLive | None:
    """The run's live part in one plain statement (a row per stage, the run's columns and its
    newest log line's id on each): the console asks every second while the run is active, and
    mostly hears that nothing changed. None when the run is not among the caller's."""
    scope = account_row_conditions("r", account_id=account_id, site_ids=site_ids, row_id=run_id)
    if scope is None:
        return None
    conditions, params = scope
    statement = (
        f"SELECT {sql_columns(_LIVE_RUN_COLUMNS + _LIVE_STAGE_COLUMNS)}, "
        f"(SELECT MAX(l.id) FROM {quoted_table(AutomationLog)} l WHERE l.run_id = r.id) "
        f"FROM {quoted_table(AutomationRun)} r LEFT OUTER JOIN {quoted_table(AutomationStageRun)} s ON s.run_id = r.id "
        f"{sql_where(conditions)} ORDER BY s.stage"
    )
    rows = fetched_rows(statement, params, _LIVE_RUN_COLUMNS + _LIVE_STAGE_COLUMNS)
    if not rows:
        return None
    stage_values = slice(len(_LIVE_RUN_COLUMNS), len(_LIVE_RUN_COLUMNS) + len(_LIVE_STAGE_COLUMNS))
    stages = [loaded(_LIVE_STAGE_COLUMNS, row[stage_values]) for row in rows if row[stage_values.start] is not None]
    return RunLive(run=loaded(_LIVE_RUN_COLUMNS, rows[0][: stage_values.start]), stages=stages, state=tuple(map(tuple, rows)))
