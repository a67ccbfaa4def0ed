"""The seven stages of the pipeline, each defined once: which of a site's
items are pending (live data), what processing a batch of them costs, how it is processed (by the
SAME services and job handlers the planner and writer endpoints use, the jobs run inline), and
which items reached the stage's result. The engine, ``pipeline_overview`` and ``estimate`` all
read these definitions.

1 keywords → clusters     active keywords without a cluster; one clustering job per batch
2 clusters → ideas        active clusters without ideas; one idea job per batch
3 ideas → tasks           new ideas; ``create_tasks`` per batch (no AI, free)
4 tasks → content         queued tasks; one content job per task
5 content → image prompts draft content without images, when articles get images; one prompts job per content
6 image prompts → images  pending images that have a prompt; one images job per content of the batch
7 review gate             draft content whose images are done (or that needs none): to ``review``,
                          or ``approved`` with auto-approval (auto-publish then schedules it)

Stages 5 to 7 take only the drafts the pipeline wrote (their task went through stage 4 of a run of
the site), unless the site's ``include_manual_drafts`` is on: a draft made by hand is a person's.

An item some active job is working on (a user's, or the step a dead worker left, which the jobs
sweep finishes) is not pending: nothing is processed twice.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet

from inkwell.automation.models import AutomationLog
from inkwell.billing.services import cost_of
from inkwell.jobs.models import ACTIVE_JOB_STATUSES, Job
from inkwell.planner import services as planner
from inkwell.planner.models import Cluster, ClusterStatus, ContentIdea, IdeaStatus, Keyword, KeywordStatus
from inkwell.planner.serializers import DEFAULT_IDEAS_PER_CLUSTER
from inkwell.sitesettings.selectors import EffectiveSiteSettings, effective_settings
from inkwell.system.selectors import content_settings
from inkwell.tenancy.models import Account, Site, User
from inkwell.writer import selectors as writer_selectors
from inkwell.writer import services as writer
from inkwell.writer.models import Content, ContentStatus, Image, ImageStatus, Task, TaskStatus

# What the estimate assumes clustering makes of a batch of keywords: one cluster per this many.
# The real number is the provider's to decide (the local provider made one per 5.6 keywords of
# bench/automation.py's 500 in batches of 50, one per 10 of the tests' topical keywords); erring
# on more clusters keeps a run's budget from cutting it short. Everything after clustering is exact.
KEYWORDS_PER_CLUSTER = 5


@dataclass(frozen=True)
class Pipeline:
    """What the stages read of a site and its account, read once per stage or estimate."""

    site: Site
    account: Account
    settings: EffectiveSiteSettings
    article_length: int
    # Images an article gets: 0 when the account's articles get none (no prompts, no images).
    images_per_content: int
    ideas_per_cluster: int

    @classmethod
    def of(cls, site: Site) -> "Pipeline":
        account = site.account
        generation = content_settings(account, "content_generation")
        wanted = generation["include_images"] and generation["images_per_article"] > 0
        per_content = writer_selectors.image_count(account, None, None, max_images=writer_selectors.image_settings(account)["max_images"]) if wanted else 0
        return cls(
            site=site,
            account=account,
            settings=effective_settings(site=site),
            article_length=generation["default_article_length"],
            images_per_content=per_content,
            ideas_per_cluster=DEFAULT_IDEAS_PER_CLUSTER,
        )


@dataclass(frozen=True)
class StepOptions:
    """How the engine wants a batch processed: on whose behalf, with the testing model or not, and
    how many items stage 7 may still approve (None: no cap)."""

    user: User | None = None
    use_testing: bool = False
    approvals_left: int | None = None


@dataclass(frozen=True)
class Step:
    """Items processed together: by an inline job (``start`` returns it, not yet run) or at once
    (``apply``, which returns what became of them: stage 7's content status)."""

    items: list
    start: Callable[[], Job] | None = None
    apply: Callable[[], object] | None = None


@dataclass(frozen=True)
class Stage:
    number: int
    name: str
    item_type: str
    # What a processed item became, for its log line.
    outcome: str
    # The site's pending items, in processing order.
    pending: Callable[[Pipeline], QuerySet]
    # Credits a batch of pending items costs (what its jobs reserve).
    cost: Callable[[Pipeline, list], int]
    # The steps that process a batch.
    steps: Callable[[Pipeline, list, StepOptions], list[Step]]
    # The ids among these that reached the stage's result.
    done: Callable[[Pipeline, list[int]], set[int]]
    label: Callable[[object], str]
    # The reason logged for an item its step ended without processing, when the step gave none.
    unprocessed: str = "The step ended without processing it"


def _active_job_params(pipeline: Pipeline, kind: str) -> list[dict]:
    return list(
        Job.objects.for_account(pipeline.account).filter(site=pipeline.site, kind=kind, status__in=ACTIVE_JOB_STATUSES).values_list("params", flat=True)
    )


def _ids_in_active_jobs(pipeline: Pipeline, kind: str, key: str) -> set[int]:
    """Ids listed under ``key`` by the site's active jobs of ``kind`` (few: read in Python)."""
    return {pk for params in _active_job_params(pipeline, kind) for pk in params.get(key) or []}


def _content_in_image_jobs(pipeline: Pipeline) -> set[int]:
    return {params.get("content_id") for params in _active_job_params(pipeline, writer.GENERATE_IMAGES)}


def _present(queryset: QuerySet, ids: list[int]) -> set[int]:
    return set(queryset.filter(pk__in=ids).values_list("pk", flat=True))


# 1 keywords → clusters


def _keywords_pending(pipeline: Pipeline) -> QuerySet:
    keywords = Keyword.objects.for_account(pipeline.account).filter(site=pipeline.site, status=KeywordStatus.ACTIVE, cluster__isnull=True)
    return keywords.exclude(pk__in=_ids_in_active_jobs(pipeline, planner.AUTO_CLUSTER_JOB, "keyword_ids")).order_by("-volume", "id")


def _cluster_steps(pipeline, keywords, options):
    ids = [keyword.pk for keyword in keywords]
    return [
        Step(keywords, start=lambda: planner.start_auto_cluster(account=pipeline.account, user=options.user, site=pipeline.site, keyword_ids=ids, inline=True))
    ]


def _keywords_done(pipeline, ids):
    return _present(Keyword.objects.for_account(pipeline.account).filter(cluster__isnull=False), ids)


# 2 clusters → ideas


def _clusters_pending(pipeline: Pipeline) -> QuerySet:
    ideas = ContentIdea.objects.for_account(pipeline.account).filter(cluster=OuterRef("pk"))
    clusters = Cluster.objects.for_account(pipeline.account).filter(site=pipeline.site, status=ClusterStatus.ACTIVE).filter(~Exists(ideas))
    return clusters.exclude(pk__in=_ids_in_active_jobs(pipeline, planner.GENERATE_IDEAS_JOB, "cluster_ids")).order_by("id")


def _idea_steps(pipeline, clusters, options):
    ids = [cluster.pk for cluster in clusters]
    scoped = Cluster.objects.for_account(pipeline.account)
    return [
        Step(
            clusters,
            start=lambda: planner.start_generate_ideas(
                account=pipeline.account,
                user=options.user,
                clusters=scoped,
                cluster_ids=ids,
                ideas_per_cluster=pipeline.ideas_per_cluster,
                inline=True,
            ),
        )
    ]


def _clusters_done(pipeline, ids):
    return set(ContentIdea.objects.for_account(pipeline.account).filter(cluster_id__in=ids).values_list("cluster_id", flat=True).distinct())


# 3 ideas → tasks


def _ideas_pending(pipeline: Pipeline) -> QuerySet:
    return ContentIdea.objects.for_account(pipeline.account).filter(site=pipeline.site, status=IdeaStatus.NEW).order_by("id")


def _task_steps(pipeline, ideas, options):
    ids = [idea.pk for idea in ideas]
    scoped = ContentIdea.objects.for_account(pipeline.account)
    return [Step(ideas, apply=lambda: writer.create_tasks(account=pipeline.account, ideas=scoped, idea_ids=ids))]


def _ideas_done(pipeline, ids):
    return set(Task.objects.for_account(pipeline.account).filter(idea_id__in=ids).values_list("idea_id", flat=True))


# 4 tasks → content


def _tasks_pending(pipeline: Pipeline) -> QuerySet:
    return Task.objects.for_account(pipeline.account).filter(site=pipeline.site, status=TaskStatus.QUEUED).select_related("site").order_by("id")


def _content_steps(pipeline, tasks, options):
    def start(task):
        # A site that writes from briefs gets each task's brief first (and may stop there).
        writer.brief_for_automation(account=pipeline.account, task=task)
        return writer.start_content_generation(account=pipeline.account, task=task, user=options.user, inline=True)

    return [Step([task], start=lambda task=task: start(task)) for task in tasks]


def _tasks_done(pipeline, ids):
    return _present(Task.objects.for_account(pipeline.account).filter(status=TaskStatus.COMPLETED), ids)


# 5 content → image prompts


def _written_by_the_pipeline(pipeline: Pipeline, task_field: str) -> Exists:
    """Whether the content (its task at ``task_field``) is an article the pipeline wrote: stage 4 of a
    run of the site processed its task."""
    written = AutomationLog.objects.for_account(pipeline.account).filter(site=pipeline.site, stage=4, event="item_processed", item_id=OuterRef(task_field))
    return Exists(written)


def _drafts(pipeline: Pipeline) -> QuerySet:
    """The site's drafts that stages 5 to 7 may take: only the articles the pipeline wrote, unless the
    site opts into drafts made by hand (``include_manual_drafts``). Issue 30: a run moved a hand-made
    draft into review and made its images instead of the article it had just written."""
    drafts = Content.objects.for_account(pipeline.account).filter(site=pipeline.site, status=ContentStatus.DRAFT)
    if pipeline.settings.automation.include_manual_drafts:
        return drafts
    return drafts.filter(_written_by_the_pipeline(pipeline, "task_id"))


def _content_images(pipeline: Pipeline, **filters) -> Exists:
    return Exists(Image.objects.for_account(pipeline.account).filter(content=OuterRef("pk"), **filters))


def _contents_pending(pipeline: Pipeline) -> QuerySet:
    if not pipeline.images_per_content:
        return Content.objects.none()
    contents = _drafts(pipeline).filter(~_content_images(pipeline)).exclude(pk__in=_content_in_image_jobs(pipeline))
    return contents.select_related("site").order_by("id")


def _prompt_steps(pipeline, contents, options):
    return [
        Step(
            [content],
            start=lambda content=content: writer.start_image_generation(
                account=pipeline.account,
                content=content,
                user=options.user,
                phase=writer.Phase.PROMPTS,
                use_testing=options.use_testing,
                inline=True,
            ),
        )
        for content in contents
    ]


def _contents_prompted(pipeline, ids):
    return set(Image.objects.for_account(pipeline.account).filter(content_id__in=ids).exclude(prompt="").values_list("content_id", flat=True))


# 6 image prompts → images


def _images_pending(pipeline: Pipeline) -> QuerySet:
    images = Image.objects.for_account(pipeline.account).filter(site=pipeline.site, status=ImageStatus.PENDING).exclude(prompt="")
    images = images.exclude(content_id__in=_content_in_image_jobs(pipeline))
    if not pipeline.settings.automation.include_manual_drafts:
        images = images.filter(_written_by_the_pipeline(pipeline, "content__task_id"))
    return images.select_related("content__site").order_by("content_id", "position", "id")


def _by_content(images: list[Image]) -> list[list[Image]]:
    groups: dict[int, list[Image]] = {}
    for image in images:
        groups.setdefault(image.content_id, []).append(image)
    return list(groups.values())


def _image_steps(pipeline, images, options):
    return [
        Step(
            group,
            start=lambda group=group: writer.start_prompted_image_generation(
                account=pipeline.account,
                content=group[0].content,
                user=options.user,
                image_ids=[image.pk for image in group],
                use_testing=options.use_testing,
                inline=True,
            ),
        )
        for group in _by_content(images)
    ]


def _images_done(pipeline, ids):
    return _present(Image.objects.for_account(pipeline.account).filter(status=ImageStatus.GENERATED), ids)


# 7 review gate


def _reviewable(pipeline: Pipeline) -> QuerySet:
    """Drafts with no image left to make (a failed one counts as done: it can be regenerated in
    review); when articles get images, only drafts that have some."""
    drafts = _drafts(pipeline).filter(~_content_images(pipeline, status=ImageStatus.PENDING))
    if pipeline.images_per_content:
        drafts = drafts.filter(_content_images(pipeline))
    return drafts.order_by("id")


def _review_steps(pipeline, contents, options):
    """One step per content; with auto-approval on, the first ``approvals_left`` are approved,
    unless the site's approval rules ask for a person (four eyes, the client's approval first):
    then every item stops in review for people to approve (#36)."""
    auto_approval = pipeline.settings.publishing.auto_approval_enabled and not pipeline.settings.review.person_required
    return [
        _review_step(pipeline, content, options.user, approve=auto_approval and (options.approvals_left is None or index < options.approvals_left))
        for index, content in enumerate(contents)
    ]


def _review_step(pipeline: Pipeline, content: Content, user: User | None, *, approve: bool) -> Step:
    """Moves a draft to ``review``, and on to ``approved`` when ``approve`` and its quality report
    passes (the publishing receiver schedules approved content of an auto-publishing site); the
    status it ends in, and for a draft held in review the report's failing kinds."""

    def apply():
        reviewed = writer.content_auto_review(account=pipeline.account, content=content, user=user, approve=approve)
        if approve and reviewed.status != ContentStatus.APPROVED:
            failing = ", ".join(reviewed.quality_summary.get("failing", []))
            return {"status": reviewed.status, "note": f"held in review: the quality report does not pass ({failing})"}
        return reviewed.status

    return Step([content], apply=apply)


def _reviewed(pipeline, ids):
    return _present(Content.objects.for_account(pipeline.account).filter(status__in=(ContentStatus.REVIEW, ContentStatus.APPROVED)), ids)


def _free(pipeline, items) -> int:
    return 0


STAGES: dict[int, Stage] = {
    stage.number: stage
    for stage in (
        Stage(
            1, "Keywords → clusters", "keyword", "clustered", _keywords_pending,
            cost=lambda pipeline, keywords: cost_of(operation_type="clustering", units=len(keywords)),
            steps=_cluster_steps, done=_keywords_done, label=lambda keyword: keyword.keyword,
        ),
        Stage(
            2, "Clusters → ideas", "cluster", "ideas generated", _clusters_pending,
            cost=lambda pipeline, clusters: cost_of(operation_type="idea_generation", units=len(clusters)),
            steps=_idea_steps, done=_clusters_done, label=lambda cluster: cluster.name,
        ),
        Stage(3, "Ideas → tasks", "idea", "task created", _ideas_pending, cost=_free, steps=_task_steps, done=_ideas_done, label=lambda idea: idea.title),
        Stage(
            4, "Tasks → content", "task", "draft written", _tasks_pending,
            cost=lambda pipeline, tasks: sum(cost_of(operation_type="content_generation", units=task.word_count) for task in tasks),
            steps=_content_steps, done=_tasks_done, label=lambda task: task.title,
        ),
        Stage(
            5, "Content → image prompts", "content", "image prompts written", _contents_pending,
            cost=lambda pipeline, contents: len(contents) * cost_of(operation_type=writer_selectors.PROMPT_EXTRACTION, units=1),
            steps=_prompt_steps, done=_contents_prompted, label=lambda content: content.title,
        ),
        Stage(
            6, "Image prompts → images", "image", "image generated", _images_pending,
            cost=lambda pipeline, images: sum(cost_of(operation_type=writer_selectors.IMAGE_GENERATION, units=len(group)) for group in _by_content(images)),
            steps=_image_steps, done=_images_done, label=lambda image: f"{image.content.title} (image {image.position + 1})",
        ),
        Stage(
            7, "Review gate", "content", "moved to review", _reviewable,
            cost=_free, steps=_review_steps, done=_reviewed, label=lambda content: content.title,
        ),
    )
}
