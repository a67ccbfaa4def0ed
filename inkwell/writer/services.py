"""Writes of the writer domain: tasks, content and its workflow, schedules and taxonomies."""

from django.db import models, transaction
from django.db.models import Max, QuerySet
from django.utils import timezone
from django.utils.text import slugify
from rest_framework.exceptions import ValidationError

from inkwell.api.exceptions import Conflict, StateConflict
from inkwell.billing.services import cost_of, reserve, reserve_for_job
from inkwell.jobs.models import Job
from inkwell.jobs.services import start_job
from inkwell.notifications import events
from inkwell.planner.models import ContentIdea, IdeaStatus
from inkwell.planner.services import INSERT_BATCH_SIZE, TaskSkipReason
from inkwell.system.selectors import content_settings
from inkwell.tenancy.models import Account, Sector, Site, User
from inkwell.tenancy.serializers import REQUIRED, SECTOR_NOT_IN_SITE
from inkwell.writer import quality, selectors
from inkwell.writer.models import Brief, BriefStatus, Content, ContentRevision, ContentStatus, Image, SiteEditorial, SiteStatus, VoiceProfile, ImageStatus, ImageType, Task, TaskStatus, Taxonomy, TaxonomyType
from inkwell.writer.overlaps import flag_new_tasks
from inkwell.writer.sanitize import clean_html, plain_text, visible_word_count
from inkwell.writer.selectors import IMAGE_GENERATION, PROMPT_EXTRACTION, image_count, image_settings
from inkwell.writer.signals import content_approved

GENERATE_CONTENT = "writer.generate_content"
# Task fields that, left out on creation, take the account's content generation settings.
TASK_SETTING_DEFAULTS = {"word_count": "default_article_length", "tone": "default_tone", "content_structure": "default_structure"}
# The workflow a person moves content through; `published` is the publisher's to set.
TRANSITIONS = {
    ContentStatus.DRAFT: frozenset({ContentStatus.REVIEW}),
    ContentStatus.REVIEW: frozenset({ContentStatus.APPROVED, ContentStatus.DRAFT}),
    ContentStatus.APPROVED: frozenset({ContentStatus.REVIEW}),
}
# The workflow statuses a CMS may receive content in (the editorial gate).
PUBLISHABLE_STATUSES = frozenset({ContentStatus.APPROVED, ContentStatus.PUBLISHED})
# A change of any of these keeps the previous version as a revision.
REVISED_FIELDS = ("title", "html", "meta_title", "meta_description")
IDEA_TAKEN = "This idea already has a task"
IDEA_NOT_IN_SITE = "Idea must belong to the selected site"
TAXONOMY_NOT_IN_SITE = "Taxonomy must belong to the content's site"
BRIEF_NOT_APPROVED = "This site writes drafts from an approved brief: make the task's brief (POST brief/), then approve it (approve_brief/)"
BRIEF_EXISTS = "This task has a brief already: edit it (PATCH brief/)"
MAX_LINK_TARGETS = 5
QUALITY_NOT_PASSED = "The quality report does not pass ({failing}); a person must approve it"
NOT_APPROVED = "Only approved content can be published or scheduled; this content is {status}: move it to approved first (update_content with status approved)"


# Tasks


def _task_defaults(account: Account) -> dict:
    settings = content_settings(account, "content_generation")
    return {field: settings[key] for field, key in TASK_SETTING_DEFAULTS.items()}


def _check_ideas_free(account: Account, idea_ids: list[int | None], error_key, *, exclude_task: Task | None = None) -> None:
    """Each idea becomes one task: an idea that has one already, or is named twice, is a 409 on its item."""
    wanted = [idea_id for idea_id in idea_ids if idea_id]
    if not wanted:
        return
    others = Task.objects.for_account(account).filter(idea_id__in=wanted)
    if exclude_task is not None:
        others = others.exclude(pk=exclude_task.pk)
    taken = set(others.values_list("idea_id", flat=True))
    errors, seen = {}, set()
    for index, idea_id in enumerate(idea_ids):
        if idea_id and (idea_id in taken or idea_id in seen):
            errors[error_key(index)] = [IDEA_TAKEN]
        seen.add(idea_id)
    if errors:
        raise Conflict(errors)


def _mark_ideas_converted(account: Account, idea_ids: list[int]) -> None:
    idea_ids = [idea_id for idea_id in idea_ids if idea_id]
    if idea_ids:
        ContentIdea.objects.for_account(account).filter(pk__in=idea_ids).update(status=IdeaStatus.CONVERTED, updated_at=timezone.now())


def _new_task(account: Account, defaults: dict, fields: dict) -> Task:
    idea = fields.get("idea")
    return Task(account=account, cluster_id=idea.cluster_id if idea else None, **{**defaults, **fields})


def _idea_id(fields: dict) -> int | None:
    return fields["idea"].pk if fields.get("idea") is not None else None


@transaction.atomic
def tasks_bulk_create(*, account: Account, items: list[dict]) -> list[Task]:
    """Creates every task or none, in one INSERT; ideas the items name are marked converted.

    ``items`` are validated ``TaskInputSerializer`` values; an idea that has a task already is a
    409 naming ``tasks.N.idea_id``.
    """
    idea_ids = [_idea_id(item) for item in items]
    _check_ideas_free(account, idea_ids, lambda index: f"tasks.{index}.idea_id")
    defaults = _task_defaults(account)
    tasks = [_new_task(account, defaults, item) for item in items]
    flag_new_tasks(account=account, tasks=tasks)
    tasks = Task.objects.bulk_create(tasks)
    _mark_ideas_converted(account, idea_ids)
    return tasks


@transaction.atomic
def task_create(*, account: Account, **fields) -> Task:
    _check_ideas_free(account, [_idea_id(fields)], lambda index: "idea_id")
    task = _new_task(account, _task_defaults(account), fields)
    flag_new_tasks(account=account, tasks=[task])
    task.save()
    _mark_ideas_converted(account, [task.idea_id])
    return task


@transaction.atomic
def task_update(*, task: Task, **fields) -> Task:
    """Changes the fields given; the sector and the idea must stay on the task's (new) site. A task
    whose content is being generated keeps the brief it was charged for (409)."""
    if task.status == TaskStatus.GENERATING:
        raise StateConflict({"status": ["A task whose content is being generated cannot be changed"]})
    site = fields.get("site", task.site)
    sector = fields.get("sector", task.sector)
    if sector.site_id != site.pk:
        raise ValidationError({"sector_id": [SECTOR_NOT_IN_SITE]})
    idea = fields["idea"] if "idea" in fields else task.idea
    if idea is not None and idea.site_id != site.pk:
        raise ValidationError({"idea_id": [IDEA_NOT_IN_SITE]})
    if "idea" in fields:
        _check_ideas_free(task.account_id, [_idea_id(fields)], lambda index: "idea_id", exclude_task=task)
        task.cluster_id = idea.cluster_id if idea else None
    for name, value in fields.items():
        setattr(task, name, value)
    task.save()
    if "idea" in fields:
        _mark_ideas_converted(task.account_id, [task.idea_id])
    return task


def task_delete(*, task: Task) -> None:
    deleted, _ = Task.objects.for_account(task.account_id).filter(pk=task.pk).exclude(status=TaskStatus.GENERATING).delete()
    if not deleted:
        raise StateConflict({"status": ["A task whose content is being generated cannot be deleted"]})


def start_content_generation(*, account: Account, task: Task, user: User | None, inline: bool = False) -> Job:
    """Starts the ``writer.generate_content`` job for the task, holding its cost
    (``content_generation`` per requested word): 402 when the balance cannot cover it, 409 when
    the task is generating already; either way nothing changes. ``inline``: the caller runs the
    job itself (``jobs.services.start_job``)."""
    amount = cost_of(operation_type="content_generation", units=task.word_count)
    if quality.site_editorial(site=task.site).brief_required and not Brief.objects.for_account(account).filter(task=task, status=BriefStatus.APPROVED).exists():
        raise StateConflict({"brief": [BRIEF_NOT_APPROVED]})
    with transaction.atomic():
        claimed = (
            Task.objects.for_account(account)
            .filter(pk=task.pk)
            .exclude(status=TaskStatus.GENERATING)
            .update(status=TaskStatus.GENERATING, updated_at=timezone.now())
        )
        if not claimed:
            raise StateConflict({"status": ["Content for this task is being generated already"]})
        return start_job(
            account=account,
            kind=GENERATE_CONTENT,
            params={"task_id": task.pk},
            site=task.site,
            user=user,
            prepare=reserve_for_job(operation_type="content_generation", amount=amount, description=f"Content: {task.title}"[:255]),
            inline=inline,
        )


# Content


# Stored as plain text (markup removed on write): publishing sends them escaped.
PLAIN_TEXT_FIELDS = ("title", "excerpt", "meta_title", "meta_description")


def _plain_text_fields(fields: dict) -> dict:
    """``fields`` with the plain-text ones cleaned; a title left empty is a 400."""
    cleaned = {name: plain_text(value) if name in PLAIN_TEXT_FIELDS else value for name, value in fields.items()}
    if "title" in cleaned and not cleaned["title"]:
        raise ValidationError({"title": [REQUIRED]})
    return cleaned


def content_create(
    *,
    account: Account,
    site: Site,
    title: str,
    sector: Sector | None = None,
    task: Task | None = None,
    html: str = "",
    meta_title: str = "",
    meta_description: str = "",
    focus_keyword: str = "",
    keywords: list[str] | None = None,
    slug: str = "",
    excerpt: str = "",
    taxonomies: list[Taxonomy] | None = None,
) -> Content:
    """A new content in ``draft``, its body sanitised, its title, excerpt and meta fields plain
    text, and its words counted."""
    _check_taxonomies_of_site(taxonomies, site.pk)
    html = clean_html(html)
    texts = _plain_text_fields({"title": title, "excerpt": excerpt, "meta_title": meta_title, "meta_description": meta_description})
    title, excerpt, meta_title, meta_description = texts["title"], texts["excerpt"], texts["meta_title"], texts["meta_description"]
    content = Content.objects.create(
        account=account,
        site=site,
        sector=sector,
        task=task,
        title=title,
        slug=slug,
        excerpt=excerpt,
        html=html,
        meta_title=meta_title,
        meta_description=meta_description,
        focus_keyword=focus_keyword,
        keywords=keywords or [],
        word_count=visible_word_count(html),
        status=ContentStatus.DRAFT,
    )
    if taxonomies:
        content.taxonomies.set(taxonomies)
    return content


def _check_taxonomies_of_site(taxonomies: list[Taxonomy] | None, site_id: int) -> None:
    if any(taxonomy.site_id != site_id for taxonomy in taxonomies or ()):
        raise ValidationError({"taxonomy_ids": [TAXONOMY_NOT_IN_SITE]})


def _notify_ready_for_review(account: Account, content: Content) -> None:
    events.content_ready_for_review(account=account, site=content.site, content_id=content.pk, content_title=content.title)


@transaction.atomic
def content_update(*, account: Account, content: Content, user: User | None, automatic: bool = False, **fields) -> Content:
    """Changes the fields given (validated ``ContentUpdateInputSerializer`` values).

    The body is sanitised and its words counted again; ``status`` may only follow ``TRANSITIONS``
    (409 otherwise); a change of the title, body or meta fields keeps the previous version as a
    ``ContentRevision``; entering ``review`` raises ``content_ready_review``. Entering
    ``approved`` takes the quality report: a person (``automatic`` false) may approve a draft that
    does not pass, and that is recorded (``quality_override_by``, ``quality_override_at``);
    automation approves only through ``content_auto_review``.
    """
    current = Content.objects.for_account(account).select_for_update().get(pk=content.pk)
    sector = fields.get("sector")
    if sector is not None and sector.site_id != current.site_id:
        raise ValidationError({"sector_id": [SECTOR_NOT_IN_SITE]})
    status = fields.pop("status", current.status)
    if status != current.status and status not in TRANSITIONS.get(current.status, frozenset()):
        raise StateConflict({"status": [f"Content cannot move from {current.status} to {status}"]})
    if "html" in fields:
        fields["html"] = clean_html(fields["html"])
    fields = _plain_text_fields(fields)
    taxonomies = fields.pop("taxonomies", None)
    _check_taxonomies_of_site(taxonomies, current.site_id)

    if any(name in fields and fields[name] != getattr(current, name) for name in REVISED_FIELDS):
        ContentRevision.objects.create(
            account=account,
            content=current,
            title=current.title,
            html=current.html,
            meta_title=current.meta_title,
            meta_description=current.meta_description,
            status=current.status,
            created_by=user,
        )
    entering_review = status == ContentStatus.REVIEW and current.status != ContentStatus.REVIEW
    entering_approved = status == ContentStatus.APPROVED and current.status != ContentStatus.APPROVED
    for name, value in fields.items():
        setattr(current, name, value)
    current.status = status
    current.word_count = visible_word_count(current.html)
    current.save()
    if taxonomies is not None:
        current.taxonomies.set(taxonomies)
    if entering_approved:
        report = quality.content_quality(content=current)
        if not report.passed and automatic:
            raise StateConflict({"status": [QUALITY_NOT_PASSED.format(failing=", ".join(report.scores["failing"]))]})
        quality.record_gate(content=current, report=report, override_by=None if report.passed else user, override=not report.passed)
    if entering_review:
        _notify_ready_for_review(account, current)
    if entering_approved:
        content_approved.send(sender=Content, content=current)
    return current


@transaction.atomic
def content_auto_review(*, account: Account, content: Content, user: User | None, approve: bool) -> Content:
    """Automation's review gate: the draft goes to ``review``; with ``approve`` (auto-approval on)
    it is approved only when its quality report passes, else it waits in review with the report's
    failing kinds and findings kept on it (``quality_summary``)."""
    reviewed = content_update(account=account, content=content, user=user, status=ContentStatus.REVIEW)
    report = quality.content_quality(content=reviewed)
    if approve and report.passed:
        return content_update(account=account, content=reviewed, user=user, status=ContentStatus.APPROVED, automatic=True)
    quality.record_gate(content=reviewed, report=report)
    return reviewed


@transaction.atomic
def site_editorial_update(*, site: Site, **fields) -> SiteEditorial:
    """Changes a site's editorial rules (``brief_required``, ``stop_at_brief``, ``thresholds``,
    the last replacing the saved thresholds). A site without a row gets one that keeps what it had
    (no brief asked) for the fields not given."""
    row, _created = SiteEditorial.objects.for_account(site.account_id).select_for_update().get_or_create(site=site, defaults={"account_id": site.account_id, "brief_required": False})
    for name in ("brief_required", "stop_at_brief", "thresholds"):
        if name in fields:
            setattr(row, name, fields[name])
    row.save()
    return row


# Briefs (issue 35)


def _link_targets(task: Task) -> list[dict]:
    """The site's live articles that share a content word with the task's title or keywords,
    most shared first: the brief's internal link targets."""
    words = {word for text in [task.title, *task.keywords] for word in quality.content_words(text)}
    live = Content.objects.for_account(task.account_id).filter(site_id=task.site_id, site_status=SiteStatus.PUBLISHED).only("id", "title", "focus_keyword", "external_url", "slug")
    scored = []
    for content in live.order_by("-published_at", "-id")[:500]:
        shared = len(words & set(quality.content_words(f"{content.title} {content.focus_keyword}")))
        if shared:
            scored.append((-shared, content.pk, content))
    return [quality.link_of(content) for _shared, _pk, content in sorted(scored)[:MAX_LINK_TARGETS]]


@transaction.atomic
def brief_propose(*, account: Account, task: Task) -> Brief:
    """A brief for the task, from the task and its idea: title, angle (the description), outline
    (the task's H2s), keywords (primary first), target length, the questions its keywords ask,
    internal link targets among the site's live articles; sources are the editor's to add. 409
    when the task has one."""
    if Brief.objects.for_account(account).filter(task=task).exists():
        raise StateConflict({"brief": [BRIEF_EXISTS]})
    keywords = [keyword for keyword in task.keywords if isinstance(keyword, str) and keyword.strip()]
    questions = [keyword[:1].upper() + keyword[1:].rstrip("?") + "?" for keyword in keywords if keyword.split()[0].lower() in quality.QUESTION_WORDS]
    return Brief.objects.create(
        account=account,
        task=task,
        site_id=task.site_id,
        title=task.title,
        angle=task.description,
        outline=[{"level": 2, "text": heading} for heading in task.outline if isinstance(heading, str) and heading.strip()],
        keywords=keywords,
        target_length=task.word_count,
        questions=questions,
        internal_links=_link_targets(task),
    )


@transaction.atomic
def brief_update(*, account: Account, brief: Brief, **fields) -> Brief:
    """Changes the fields given; an approved brief that changes is ready for approval again.
    ``internal_links`` name contents of the brief's site (``content_id``; title and URL are read)."""
    current = Brief.objects.for_account(account).select_for_update().get(pk=brief.pk)
    if "internal_links" in fields:
        ids = [link["content_id"] for link in fields["internal_links"]]
        found = {content.pk: content for content in Content.objects.for_account(account).filter(site_id=current.site_id, pk__in=ids)}
        missing = [content_id for content_id in ids if content_id not in found]
        if missing:
            raise ValidationError({"internal_links": [f"Content {content_id} is not an article of this site" for content_id in missing]})
        fields["internal_links"] = [quality.link_of(found[content_id]) for content_id in dict.fromkeys(ids)]
    changed = False
    for name, value in fields.items():
        if getattr(current, name) != value:
            setattr(current, name, value)
            changed = True
    if changed and current.status == BriefStatus.APPROVED:
        current.status, current.approved_by, current.approved_at = BriefStatus.READY, None, None
    current.save()
    return current


@transaction.atomic
def brief_approve(*, account: Account, brief: Brief, user: User | None) -> Brief:
    """The editor approves the brief: drafts of its task are written from it."""
    current = Brief.objects.for_account(account).select_for_update().get(pk=brief.pk)
    if current.status != BriefStatus.APPROVED:
        current.status, current.approved_by, current.approved_at = BriefStatus.APPROVED, user, timezone.now()
        current.save()
    return current


@transaction.atomic
def voice_update(*, site: Site, **fields) -> VoiceProfile:
    """The team edits the site's voice (made with the defaults on first change)."""
    voice, _created = VoiceProfile.objects.for_account(site.account_id).select_for_update().get_or_create(site=site, defaults={"account_id": site.account_id})
    for name, value in fields.items():
        setattr(voice, name, value)
    voice.save()
    return voice


@transaction.atomic
def voice_propose(*, site: Site) -> VoiceProfile:
    """Proposes the site's voice from its published posts (``quality.voice_measured``): the
    measured fields are replaced, tone and words to avoid are kept. 409 when nothing is published."""
    measured = quality.voice_measured(site=site)
    if not measured["measured_posts"]:
        raise StateConflict({"site_id": ["The site has no published post to measure its voice from"]})
    return voice_update(site=site, **measured)


BRIEF_WAITING = "Brief ready: the site asks a person to approve it before the draft is written"


def brief_for_automation(*, account: Account, task: Task) -> None:
    """Automation's brief before the draft: on a site that requires one, the task gets its brief;
    when the site stops at "brief ready" an unapproved brief is a 409 (the task waits, and the
    run's log says why), else automation approves it (``approved_by`` empty) and writes from it."""
    editorial = quality.site_editorial(site=task.site)
    if not editorial.brief_required:
        return
    brief = Brief.objects.for_account(account).filter(task=task).first() or brief_propose(account=account, task=task)
    if brief.status == BriefStatus.APPROVED:
        return
    if editorial.stop_at_brief:
        raise StateConflict({"brief": [BRIEF_WAITING]})
    brief_approve(account=account, brief=brief, user=None)


def check_publishable(*, content: Content) -> None:
    """The editorial gate: only approved content may go to a CMS (409 saying what to do).
    Content published before was approved then: publishing it again updates its post."""
    if content.status not in PUBLISHABLE_STATUSES:
        raise StateConflict({"status": [NOT_APPROVED.format(status=content.status)]})


# Tasks made from ideas


@transaction.atomic
def create_tasks(*, account: Account, ideas: QuerySet, idea_ids: list[int]) -> dict:
    """Turns ideas (of ``ideas``, the caller's scoped queryset) into writer tasks, once each.

    An idea that already has a task is reported in ``skipped`` with that task's id, not converted
    again; the ideas' rows are locked first, so concurrent calls for one idea make one task (the
    ``writer_task_once_per_idea`` constraint backs this up). A task's sector is the idea's, else
    the first sector of its site. Length and tone come from the account's content settings.
    """
    wanted = list(dict.fromkeys(idea_ids))
    found = {idea.pk: idea for idea in ideas.filter(pk__in=wanted).select_for_update(of=("self",)).order_by("pk")}
    existing = selectors.idea_task_ids(account=account, idea_ids=found)
    first_sectors: dict[int, int] = {}
    site_sectors = Sector.objects.for_account(account).filter(site_id__in={idea.site_id for idea in found.values()}).order_by("site_id", "id")
    for site_id, sector_id in site_sectors.values_list("site_id", "id"):
        first_sectors.setdefault(site_id, sector_id)
    defaults = content_settings(account, "content_generation")
    tasks, skipped = [], []
    for idea_id in wanted:
        idea = found.get(idea_id)
        sector_id = None if idea is None else idea.sector_id or first_sectors.get(idea.site_id)
        if idea is None:
            skipped.append({"idea_id": idea_id, "reason": TaskSkipReason.NOT_FOUND, "task_id": None})
        elif idea_id in existing:
            skipped.append({"idea_id": idea_id, "reason": TaskSkipReason.ALREADY_CONVERTED, "task_id": existing[idea_id]})
        elif sector_id is None:
            skipped.append({"idea_id": idea_id, "reason": TaskSkipReason.NO_SECTOR, "task_id": None})
        else:
            tasks.append(
                Task(
                    account=account,
                    site_id=idea.site_id,
                    sector_id=sector_id,
                    idea=idea,
                    cluster_id=idea.cluster_id,
                    title=idea.title,
                    description=idea.description,
                    keywords=idea.target_keywords,
                    outline=idea.outline,
                    content_type=idea.content_type,
                    content_structure=idea.content_structure,
                    word_count=defaults["default_article_length"],
                    tone=defaults["default_tone"],
                )
            )
    flag_new_tasks(account=account, tasks=tasks)
    Task.objects.bulk_create(tasks, batch_size=INSERT_BATCH_SIZE)
    converted = [task.idea_id for task in tasks] + list(existing)
    if converted:
        ContentIdea.objects.for_account(account).filter(pk__in=converted).exclude(status=IdeaStatus.CONVERTED).update(
            status=IdeaStatus.CONVERTED, updated_at=timezone.now()
        )
    return {"created": len(tasks), "task_ids": [task.pk for task in tasks], "skipped": skipped}


# Taxonomies


@transaction.atomic
def taxonomy_create(*, account: Account, site: Site, taxonomy_type: str, name: str, slug: str = "", parent: Taxonomy | None = None) -> Taxonomy:
    """A category or tag of the site, its name plain text; the slug is made from the name when
    not given, and is unique per site and type (409)."""
    name = plain_text(name)
    if not name:
        raise ValidationError({"name": [REQUIRED]})
    slug = slug or slugify(name) or slugify(name, allow_unicode=True)
    if not slug:
        raise ValidationError({"name": ["Enter a name with letters or digits"]})
    if Taxonomy.objects.for_account(account).filter(site=site, taxonomy_type=taxonomy_type, slug=slug).exists():
        label = TaxonomyType(taxonomy_type).label.lower()
        raise Conflict({"slug": [f"A {label} with this slug already exists on this site"]})
    return Taxonomy.objects.create(account=account, site=site, taxonomy_type=taxonomy_type, name=name, slug=slug, parent=parent)


# Images


GENERATE_IMAGES = "writer.generate_images"


REGENERATE_IMAGE = "writer.regenerate_image"


# Every image of one request is one provider call; the settings cap images per article at 8 too.
MAX_IMAGES_PER_REQUEST = 8


IMAGE_PENDING = "This image is still being generated"


class Phase(models.TextChoices):
    ALL = "all", "Prompts, then images"
    PROMPTS = "prompts", "Prompts only"
    IMAGES = "images", "Images of prompted pending images"


@transaction.atomic
def image_alt_text_update(*, image: Image, alt_text: str) -> Image:
    """A person's alt text for the image (what screen readers say, and what the CMS receives)."""
    image.alt_text = alt_text
    image.save(update_fields=["alt_text", "updated_at"])
    return image


def start_image_generation(
    *,
    account: Account,
    content: Content,
    user: User | None,
    image_type: str | None = None,
    count: int | None = None,
    phase: str = Phase.ALL,
    use_testing: bool = False,
    inline: bool = False,
) -> Job:
    """Starts ``writer.generate_images`` for ``content``: reserves its credits (402 when short,
    and then nothing is created) and creates its images as ``pending`` rows.

    ``phase``: ``all`` (prompts, then images) or ``prompts`` (the rows and their prompts only).
    ``use_testing``: the prompts are written with the testing model. ``inline``: the caller runs
    the job itself (``jobs.services.start_job``)."""
    if phase not in (Phase.ALL, Phase.PROMPTS):
        raise ValueError(f"start_image_generation runs phase all or prompts, not {phase!r}")
    max_images = image_settings(account)["max_images"]
    count = image_count(account, image_type, count, max_images=max_images)
    images = Image.objects.for_account(account).filter(content=content)
    if image_type is None:
        has_featured = images.filter(image_type=ImageType.FEATURED).exclude(status=ImageStatus.FAILED).exists()
        first_type = ImageType.IN_ARTICLE if has_featured else ImageType.FEATURED
    else:
        first_type = image_type
    last_position = images.aggregate(last=Max("position"))["last"]
    first_position = 0 if last_position is None else last_position + 1

    def prepare(job: Job) -> None:
        held = {"job": job, "site": content.site, "related": ("content", content.pk)}
        reserve(account=account, operation_type=PROMPT_EXTRACTION, amount=cost_of(operation_type=PROMPT_EXTRACTION, units=1), description=f"Image prompts: {content.title}"[:255], **held)
        if phase == Phase.ALL:
            reserve(account=account, operation_type=IMAGE_GENERATION, amount=cost_of(operation_type=IMAGE_GENERATION, units=count), description=f"Images: {content.title}"[:255], **held)
        created = Image.objects.bulk_create(
            Image(
                account=account,
                site_id=content.site_id,
                content=content,
                image_type=first_type if index == 0 else ImageType.IN_ARTICLE,
                position=first_position + index,
                prompt="",
            )
            for index in range(count)
        )
        job.params = {**job.params, "image_ids": [image.pk for image in created]}
        job.save(update_fields=["params"])

    return start_job(
        account=account,
        kind=GENERATE_IMAGES,
        params={"content_id": content.pk, "image_type": image_type, "count": count, "phase": phase, "use_testing": use_testing},
        site=content.site,
        user=user,
        prepare=prepare,
        inline=inline,
    )


def start_prompted_image_generation(
    *, account: Account, content: Content, user: User | None, image_ids: list[int], use_testing: bool = False, inline: bool = False
) -> Job:
    """Starts ``writer.generate_images`` in phase ``images`` for pending images of ``content`` that
    have a prompt (those of ``image_ids``); reserves their credits (402 when short)."""
    images = list(
        Image.objects.for_account(account).filter(content=content, pk__in=image_ids, status=ImageStatus.PENDING).exclude(prompt="").values_list("pk", flat=True)
    )
    if not images:
        raise ValidationError({"image_ids": ["No pending image of this content has a prompt"]})

    def prepare(job: Job) -> None:
        reserve(
            account=account,
            operation_type=IMAGE_GENERATION,
            amount=cost_of(operation_type=IMAGE_GENERATION, units=len(images)),
            job=job,
            site=content.site,
            related=("content", content.pk),
            description=f"Images: {content.title}"[:255],
        )

    return start_job(
        account=account,
        kind=GENERATE_IMAGES,
        params={"content_id": content.pk, "image_ids": images, "count": len(images), "phase": Phase.IMAGES, "use_testing": use_testing},
        site=content.site,
        user=user,
        prepare=prepare,
        inline=inline,
    )


def start_image_regeneration(*, account: Account, image: Image, user: User | None, prompt: str | None = None) -> Job:
    """Starts ``writer.regenerate_image``: one new file for ``image`` (with ``prompt``, which
    replaces the image's own once the new file is saved). 409 while the image is being generated."""
    if image.status == ImageStatus.PENDING:
        raise StateConflict({"image_id": [IMAGE_PENDING]})
    prompt = (prompt or "").strip() or image.prompt
    if not prompt:
        raise ValidationError({"prompt": ["This field is required"]})

    def prepare(job: Job) -> None:
        cost = cost_of(operation_type=IMAGE_GENERATION, units=1)
        reserve(
            account=account, operation_type=IMAGE_GENERATION, amount=cost, job=job, site=image.site, related=("image", image.pk), description=f"Image regenerated: #{image.pk}"
        )

    return start_job(
        account=account,
        kind=REGENERATE_IMAGE,
        params={"image_id": image.pk, "content_id": image.content_id, "prompt": prompt},
        site=image.site,
        user=user,
        prepare=prepare,
    )
