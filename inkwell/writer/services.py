"""Writes of the writer domain: tasks, content and its workflow, schedules and taxonomies."""

import hashlib
import re
import secrets
from datetime import datetime, timedelta

from django.contrib.auth.hashers import make_password
from django.core import signing
from django.db import models, transaction
from django.db.models import Max, QuerySet
from django.utils import timezone
from django.utils.text import slugify
from rest_framework.exceptions import PermissionDenied, ValidationError

from inkwell.api.exceptions import BusinessRuleViolation, Conflict, StateConflict
from inkwell.billing.services import cost_of, reserve, reserve_for_job
from inkwell.jobs.models import Job
from inkwell.jobs.services import start_job
from inkwell.notifications import events
from inkwell.planner.models import ContentIdea, IdeaStatus
from inkwell.planner.services import INSERT_BATCH_SIZE, TaskSkipReason
from inkwell.sitesettings.selectors import effective_settings
from inkwell.system.selectors import content_settings
from inkwell.tenancy.models import CONTENT_WRITER_ROLES, MANAGER_ROLES, Account, Sector, Site, User, canonical_email
from inkwell.tenancy.serializers import REQUIRED, SECTOR_NOT_IN_SITE
from inkwell.webhooks import services as webhooks
from inkwell.webhooks.models import EventType
from inkwell.writer import quality, selectors
from inkwell.writer.models import (
    Brief,
    BriefStatus,
    CommentMention,
    CommentReadMarker,
    Content,
    ContentApproval,
    ContentComment,
    ContentRefresh,
    ContentRevision,
    ContentStatus,
    Image,
    ImageStatus,
    ImageType,
    RefreshSendStatus,
    ReviewDecision,
    ReviewLink,
    ReviewStep,
    SiteEditorial,
    SiteStatus,
    Task,
    TaskStatus,
    Taxonomy,
    TaxonomyType,
    VoiceProfile,
)
from inkwell.writer.overlaps import flag_new_tasks
from inkwell.writer.sanitize import article_text, clean_html, plain_text, visible_word_count
from inkwell.writer.selectors import AUTOSAVED_FIELDS, IMAGE_GENERATION, PROMPT_EXTRACTION, image_count, image_settings
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
AUTOSAVES_KEPT = 3
CONCURRENT_MODIFICATION_CODE = "concurrent_modification"
CONCURRENT_MODIFICATION = "This change was made from version {based_on}, but the content is at version {current} now: reload it and make the change again"
IDEA_TAKEN = "This idea already has a task"
IDEA_NOT_IN_SITE = "Idea must belong to the selected site"
TAXONOMY_NOT_IN_SITE = "Taxonomy must belong to the content's site"
BRIEF_NOT_APPROVED = "This site writes drafts from an approved brief: make the task's brief (POST brief/), then approve it (approve_brief/)"
BRIEF_EXISTS = "This task has a brief already: edit it (PATCH brief/)"
MAX_LINK_TARGETS = 5
QUALITY_NOT_PASSED = "The quality report does not pass ({failing}); a person must approve it"
QUALITY_OVERRIDE_NOTE = "Approved although the quality report does not pass ({failing})"
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
    ``ContentRevision`` and makes ``user`` the last editor; entering ``review`` raises
    ``content_ready_review``; a new body moves the comments anchored to its passages along
    (``reanchor_comments``). Entering ``approved`` follows the site's approval rules
    (``check_approval_rules``), takes the quality report and records the approval: a person
    (``automatic`` false) may approve a draft that does not pass, and that is recorded
    (``quality_override_by``, ``quality_override_at``, and the approval's note); automation
    approves only through ``content_auto_review``.
    ``version``, when given, is the version the change was made from: another one is a concurrent
    modification (409 ``concurrent_modification``), and nothing changes. Every update that changes
    something makes the content's version one more.
    """
    current = Content.objects.for_account(account).select_for_update().get(pk=content.pk)
    based_on = fields.pop("version", None)
    if based_on is not None and based_on != current.version:
        raise Conflict({"version": [CONCURRENT_MODIFICATION.format(based_on=based_on, current=current.version)]}, code=CONCURRENT_MODIFICATION_CODE)
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

    edited = any(name in fields and fields[name] != getattr(current, name) for name in REVISED_FIELDS)
    body_changed = "html" in fields and fields["html"] != current.html
    if edited:
        ContentRevision.objects.create(
            account=account,
            content=current,
            title=current.title,
            html=current.html,
            excerpt=current.excerpt,
            meta_title=current.meta_title,
            meta_description=current.meta_description,
            focus_keyword=current.focus_keyword,
            status=current.status,
            created_by=user,
        )
    entering_review = status == ContentStatus.REVIEW and current.status != ContentStatus.REVIEW
    entering_approved = status == ContentStatus.APPROVED and current.status != ContentStatus.APPROVED
    changed = sorted(name for name, value in fields.items() if getattr(current, name) != value)
    if status != current.status:
        changed.append("status")
    if taxonomies is not None and {taxonomy.pk for taxonomy in taxonomies} != set(current.taxonomies.values_list("pk", flat=True)):
        changed.append("taxonomies")
    for name, value in fields.items():
        setattr(current, name, value)
    if edited:
        current.last_edited_by, current.last_edited_at = user, timezone.now()
    if entering_approved:
        check_approval_rules(content=current, approver=user)
        report = quality.content_quality(content=current)
        if not report.passed and automatic:
            raise StateConflict({"status": [QUALITY_NOT_PASSED.format(failing=", ".join(report.scores["failing"]))]})
        ContentApproval.objects.create(
            account=account,
            content=current,
            step=ReviewStep.TEAM,
            decision=ReviewDecision.APPROVED,
            user=user,
            reviewer_name=display_name(user)[:REVIEWER_NAME_MAX_LENGTH],
            note="" if report.passed else QUALITY_OVERRIDE_NOTE.format(failing=", ".join(report.scores["failing"])),
        )
    current.status = status
    current.word_count = visible_word_count(current.html)
    if changed:
        current.version += 1
    current.save()
    if taxonomies is not None:
        current.taxonomies.set(taxonomies)
    if body_changed:
        reanchor_comments(content=current)
    if entering_approved:
        quality.record_gate(content=current, report=report, override_by=None if report.passed else user, override=not report.passed)
    if entering_review:
        _notify_ready_for_review(account, current)
    # Outbound webhooks: written to the outbox in this transaction, so only a committed change is sent.
    if changed:
        webhooks.enqueue_event(account_id=account.pk, type=EventType.CONTENT_UPDATED, data={**webhook_data(current), "changed": changed})
    if entering_approved:
        webhooks.enqueue_event(account_id=account.pk, type=EventType.CONTENT_APPROVED, data=webhook_data(current))
        content_approved.send(sender=Content, content=current)
    return current


def content_autosave(*, account: Account, content: Content, user: User, **fields) -> ContentRevision:
    """Keeps what ``user`` has typed in the editor and not saved (validated
    ``ContentAutosaveInputSerializer`` values) as a revision marked ``is_autosave``; the content
    itself does not change. A person's newest ``AUTOSAVES_KEPT`` autosaves of an article are
    kept and older ones deleted, so autosaves never crowd out the revisions that saves make."""
    # A title left empty is kept as typed: the person is still writing it.
    fields = {name: plain_text(value) if name in PLAIN_TEXT_FIELDS else value for name, value in fields.items() if name in AUTOSAVED_FIELDS}
    if "html" in fields:
        fields["html"] = clean_html(fields["html"])
    kept = {name: getattr(content, name) for name in AUTOSAVED_FIELDS}
    revision = ContentRevision.objects.create(
        account=account, content=content, status=content.status, is_autosave=True, created_by=user, **{**kept, **fields}
    )
    autosaves = ContentRevision.objects.for_account(account).filter(content=content, created_by=user, is_autosave=True)
    stale = list(autosaves.order_by("-created_at", "-id").values_list("pk", flat=True)[AUTOSAVES_KEPT:])
    if stale:
        ContentRevision.objects.for_account(account).filter(pk__in=stale).delete()
    return revision


def webhook_data(content: Content) -> dict:
    """What every ``content.*`` webhook event says of the content (docs/api.md, "Webhooks")."""
    return {
        "content_id": content.pk,
        "site_id": content.site_id,
        "title": content.title,
        "status": content.status,
        "site_status": content.site_status,
        "scheduled_publish_at": content.scheduled_publish_at,
        "published_at": content.published_at,
        "external_url": content.external_url,
    }


@transaction.atomic
def content_auto_review(*, account: Account, content: Content, user: User | None, approve: bool) -> Content:
    """Automation's review gate: the draft goes to ``review``; with ``approve`` (auto-approval on)
    it is approved only when its quality report passes, else it waits in review with the report's
    failing kinds and findings kept on it (``quality_summary``)."""
    reviewed = content_update(account=account, content=content, user=user, status=ContentStatus.REVIEW)
    report = quality.content_quality(content=reviewed)
    if approve and report.passed:
        # The automation approves, not the person who started the run: the approval is recorded as its own.
        return content_update(account=account, content=reviewed, user=None, status=ContentStatus.APPROVED, automatic=True)
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


# Refreshes of live articles (issue #37)

NOT_LIVE = "Only a live article (published on its site) can be refreshed"
REFRESH_OPEN = "This article already has a refresh in the works: edit that one"
REFRESH_LOCKED = "A refresh that is scheduled, being sent or sent cannot be changed: unschedule it first"
REFRESH_TRANSITIONS = TRANSITIONS


@transaction.atomic
def refresh_create(
    *,
    account: Account,
    content: Content,
    user: User | None,
    reason: str = "",
    title: str | None = None,
    html: str | None = None,
    meta_title: str | None = None,
    meta_description: str | None = None,
) -> ContentRefresh:
    """A draft refresh of a live article, starting from the article as it is (the fields given
    replace its own). The content's row and its post do not change. A second open refresh of the
    same article is a 409."""
    current = Content.objects.for_account(account).select_for_update().get(pk=content.pk)
    if current.site_status != SiteStatus.PUBLISHED or not current.external_id:
        raise StateConflict({"content": [NOT_LIVE]})
    if ContentRefresh.objects.for_account(account).filter(content=current).exclude(send_status=RefreshSendStatus.SENT).exists():
        raise StateConflict({"content": [REFRESH_OPEN]})
    texts = _plain_text_fields(
        {
            "title": current.title if title is None else title,
            "meta_title": current.meta_title if meta_title is None else meta_title,
            "meta_description": current.meta_description if meta_description is None else meta_description,
        }
    )
    return ContentRefresh.objects.create(
        account=account,
        site_id=current.site_id,
        content=current,
        title=texts["title"],
        html=clean_html(current.html if html is None else html),
        meta_title=texts["meta_title"][:60],
        meta_description=texts["meta_description"][:160],
        reason=plain_text(reason)[:500],
        created_by=user,
        last_edited_by=user,
        last_edited_at=timezone.now(),
    )


# Review together (#36): comments, mentions, approvals and review links.

COMMENT_MAX_LENGTH = 5000
REVIEWER_NAME_MAX_LENGTH = 100
REVIEW_LINK_DAYS = 14
REVIEW_LINK_MAX_DAYS = 90
REVIEW_LINK_SALT = selectors.REVIEW_LINK_SALT
# "@" then a teammate's e-mail address (@jane@example.com) or handle (@jane, see mention_handles).
MENTION = re.compile(r"(?<![\w.+-])@([\w+-][\w.+-]*(?:@[\w-]+(?:\.[\w-]+)+)?)")
MENTION_AMBIGUOUS = "@{handle} names more than one teammate: mention them by e-mail address"
QUOTE_NOT_FOUND = "This passage is not in the article; select it again"
FOUR_EYES = "This site's four-eyes rule: someone other than the article's last editor approves it"
FOUR_EYES_NEEDS_PERSON = "This site's four-eyes rule: a person approves the article"
CLIENT_APPROVAL_FIRST = "This site asks the client to approve first: through a review link, after the article's last edit"


def display_name(user: User | None) -> str:
    if user is None:
        return "Automation"
    return f"{user.first_name} {user.last_name}".strip() or user.email


def _normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def locate_quote(*, text: str, quote: str, near: int) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text``: its occurrence nearest to ``near``, as (start, end); None
    when the text no longer holds it. Runs of white space match any run of white space, since the
    article's lines and a browser's selection break differently."""
    words = [re.escape(word) for word in quote.split()]
    if not words:
        return None
    spans = [match.span() for match in re.finditer(r"\s+".join(words), text)]
    if not spans:
        return None
    return min(spans, key=lambda span: (abs(span[0] - near), span[0]))


def reanchor_comments(*, content: Content) -> None:
    """After the body changed: every anchored comment follows its passage to where it is now (the
    occurrence nearest to where it was), or is marked outdated, its quote kept. A passage that
    comes back (an edit undone, a revision restored) makes its comment current again."""
    text = article_text(content.html)
    for comment in ContentComment.objects.for_account(content.account_id).filter(content=content, parent__isnull=True).exclude(anchor_quote=""):
        span = locate_quote(text=text, quote=comment.anchor_quote, near=comment.anchor_start or 0)
        if span is None:
            changed = {"outdated": True}
        else:
            changed = {"outdated": False, "anchor_start": span[0], "anchor_end": span[1]}
        if any(getattr(comment, name) != value for name, value in changed.items()):
            ContentComment.objects.for_account(content.account_id).filter(pk=comment.pk).update(**changed)


def _mentioned_users(account: Account, content: Content, body: str, author: User | None) -> list[User]:
    """Teammates ``body`` names (``@email`` or ``@handle``) who may see the content's site (the
    author aside). Only this account's members are looked at, so a name never reaches, nor
    reveals, anyone else; a handle that names two of them is a 400 (say which by e-mail), one
    that names nobody is plain text."""
    tokens = [match.rstrip(".").lower() for match in MENTION.findall(body)]
    if not tokens:
        return []
    candidates = selectors.mentionable_users(account=account, site_id=content.site_id)
    by_email = {canonical_email(user.email): user for user in candidates}
    by_handle: dict[str, list[User]] = {}
    for user in candidates:
        for handle in selectors.mention_handles(user):
            by_handle.setdefault(handle, []).append(user)
    chosen: dict[int, User] = {}
    for token in dict.fromkeys(tokens):
        if "@" in token:
            matches = [by_email[email]] if (email := canonical_email(token)) in by_email else []
        else:
            matches = by_handle.get(token, [])
            if len(matches) > 1:
                raise ValidationError({"body": [MENTION_AMBIGUOUS.format(handle=token)]})
        chosen.update((user.pk, user) for user in matches)
    return [user for user in chosen.values() if author is None or user.pk != author.pk]


def _mention(account: Account, content: Content, comment: ContentComment, author: User | None, origin: str) -> None:
    """Tells the teammates ``comment`` mentions, each once: an edit tells only those it adds."""
    already = set(CommentMention.objects.for_account(account).filter(comment=comment).values_list("user_id", flat=True))
    for user in _mentioned_users(account, content, comment.body, author):
        if user.pk in already:
            continue
        delivery = events.mentioned_in_comment(
            account=account,
            site=content.site,
            user=user,
            content_id=content.pk,
            content_title=content.title,
            comment_id=comment.pk,
            author_name=comment.author_name,
            excerpt=comment.body[:300],
            origin=origin,
        )
        CommentMention.objects.create(account=account, comment=comment, user=user, notified_in_app=delivery.in_app, emailed=delivery.emailed)


@transaction.atomic
def comment_create(
    *,
    account: Account,
    content: Content,
    body: str,
    user: User | None = None,
    reviewer_name: str = "",
    review_link: ReviewLink | None = None,
    anchor: dict | None = None,
    parent: ContentComment | None = None,
    origin: str = "",
) -> ContentComment:
    """A comment on ``content`` by a team member (``user``) or through ``review_link`` under the
    name its writer gave (``reviewer_name``).

    ``anchor`` ``{quote, start, end}`` puts it on a passage: the quote must be in the article's
    visible text, and the comment is placed on its occurrence nearest to ``start`` (400 when it is
    nowhere). ``parent`` makes it a reply (a reply to a reply joins the same thread; a reply has
    no anchor of its own). A team member's ``@email`` mentions of teammates who may see the site
    notify them (``events.mentioned_in_comment``) and are recorded with how they were told.
    """
    body = (body or "").strip()
    if not body:
        raise ValidationError({"body": [REQUIRED]})
    if user is None and not (reviewer_name := plain_text(reviewer_name)[:REVIEWER_NAME_MAX_LENGTH]):
        raise ValidationError({"name": [REQUIRED]})
    if parent is not None:
        if parent.content_id != content.pk:
            raise ValidationError({"parent_id": ["The comment replied to must be on the same content"]})
        if anchor:
            raise ValidationError({"anchor": ["A reply is on its thread's passage; it has no anchor of its own"]})
        parent = parent.parent or parent
    fields = {}
    if anchor:
        quote = _normalized(anchor["quote"])
        span = locate_quote(text=article_text(content.html), quote=quote, near=anchor.get("start") or 0)
        if span is None:
            raise ValidationError({"anchor.quote": [QUOTE_NOT_FOUND]})
        fields = {"anchor_quote": quote, "anchor_start": span[0], "anchor_end": span[1]}
    comment = ContentComment.objects.create(
        account=account,
        content=content,
        parent=parent,
        body=body,
        author=user,
        author_name=display_name(user)[:REVIEWER_NAME_MAX_LENGTH] if user is not None else reviewer_name,
        review_link=review_link,
        **fields,
    )
    if user is not None:
        _mention(account, content, comment, user, origin)
    return comment


@transaction.atomic
def comment_update(
    *, account: Account, comment: ContentComment, user: User, body: str | None = None, resolved: bool | None = None, origin: str = ""
) -> ContentComment:
    """A team member edits a comment's text (only its author may: 403 otherwise) or resolves or
    reopens its thread (anyone who may comment). Resolving records who and when. A changed text
    records when (``edited_at``) and tells the teammates it newly mentions, as a new comment would;
    the text sent back unchanged is no edit, so anyone may resolve a comment as the list answered it."""
    edited = False
    if body is not None and body.strip() != comment.body:
        if comment.author_id != user.pk:
            raise PermissionDenied("Only the author of a comment may change its text")
        body = body.strip()
        if not body:
            raise ValidationError({"body": [REQUIRED]})
        if body != comment.body:
            comment.body, comment.edited_at, edited = body, timezone.now(), True
    if resolved is not None:
        if comment.parent_id is not None:
            raise ValidationError({"resolved": ["Resolve the thread: the first comment, not a reply"]})
        if resolved and comment.resolved_at is None:
            comment.resolved_at, comment.resolved_by, comment.resolved_by_name = timezone.now(), user, display_name(user)[:REVIEWER_NAME_MAX_LENGTH]
        elif not resolved:
            comment.resolved_at, comment.resolved_by, comment.resolved_by_name = None, None, ""
    comment.save()
    if edited:
        _mention(account, comment.content, comment, user, origin)
    return comment


def comment_delete(*, comment: ContentComment, user: User) -> None:
    """A comment is deleted by its author, or by an owner or admin (a thread goes with its first comment)."""
    if comment.author_id != user.pk and user.role_name not in MANAGER_ROLES:
        raise PermissionDenied("Only the author of a comment, an owner or an admin may delete it")
    comment.delete()


def comments_mark_read(*, account: Account, content: Content, user: User) -> None:
    """Everything on ``content`` so far is read by ``user``."""
    CommentReadMarker.objects.for_account(account).update_or_create(account=account, content=content, user=user, defaults={"read_at": timezone.now()})


# Approvals


def check_approval_rules(*, content: Content, approver: User | None) -> None:
    """The site's approval rules (``sitesettings`` ``review``), before the team approves: four eyes
    (the approver is a person other than the last editor) and the client's approval first (through
    a review link, newer than the last edit). 422 naming the rule otherwise."""
    rules = effective_settings(site=content.site).review
    if rules.four_eyes:
        if approver is None:
            raise BusinessRuleViolation({"status": [FOUR_EYES_NEEDS_PERSON]}, error=FOUR_EYES_NEEDS_PERSON, code="four_eyes")
        if content.last_edited_by_id == approver.pk:
            raise BusinessRuleViolation({"status": [FOUR_EYES]}, error=FOUR_EYES, code="four_eyes")
    if rules.client_approval:
        latest = ContentApproval.objects.for_account(content.account_id).filter(content=content, step=ReviewStep.CLIENT).order_by("-created_at", "-id").first()
        current = latest is not None and latest.decision == ReviewDecision.APPROVED and (content.last_edited_at is None or latest.created_at >= content.last_edited_at)
        if not current:
            raise BusinessRuleViolation({"status": [CLIENT_APPROVAL_FIRST]}, error=CLIENT_APPROVAL_FIRST, code="client_approval_required")


def content_approve(*, account: Account, content: Content, user: User | None) -> Content:
    """The team approves (review → approved), under the site's rules; recorded with who and when."""
    return content_update(account=account, content=content, user=user, status=ContentStatus.APPROVED)


@transaction.atomic
def content_request_changes(*, account: Account, content: Content, user: User, note: str = "") -> Content:
    """The team sends content in review back to draft, recorded with who, when and why."""
    content = content_update(account=account, content=content, user=user, status=ContentStatus.DRAFT)
    ContentApproval.objects.create(
        account=account, content=content, step=ReviewStep.TEAM, decision=ReviewDecision.CHANGES_REQUESTED, user=user, reviewer_name=display_name(user)[:100], note=note
    )
    return content


# Review links


def review_link_token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@transaction.atomic
def review_link_create(*, account: Account, content: Content, user: User | None, expires_at: datetime | None = None, passcode: str = "") -> ReviewLink:
    """A signed, expiring link to ``content`` alone (``REVIEW_LINK_DAYS`` unless ``expires_at``
    says otherwise, at most ``REVIEW_LINK_MAX_DAYS``), optionally behind a passcode."""
    now = timezone.now()
    expires_at = expires_at or now + timedelta(days=REVIEW_LINK_DAYS)
    if expires_at <= now:
        raise ValidationError({"expires_at": ["The expiry must be in the future"]})
    if expires_at > now + timedelta(days=REVIEW_LINK_MAX_DAYS):
        raise ValidationError({"expires_at": [f"A review link lasts at most {REVIEW_LINK_MAX_DAYS} days"]})
    secret = secrets.token_urlsafe(32)
    return ReviewLink.objects.create(
        account=account,
        content=content,
        token_hash=review_link_token_hash(secret),
        token=signing.Signer(salt=REVIEW_LINK_SALT, sep=".").sign(secret),
        passcode_hash=make_password(passcode) if passcode else "",
        expires_at=expires_at,
        created_by=user,
    )


@transaction.atomic
def refresh_update(*, account: Account, refresh: ContentRefresh, user: User | None, **fields) -> ContentRefresh:
    """Changes a refresh's text and moves it through review like a draft (``TRANSITIONS``; 409
    otherwise). A refresh on the schedule, being sent or sent is locked (409). Changing the text of
    an approved refresh sends it back to review: what was approved is what goes out."""
    current = ContentRefresh.objects.for_account(account).select_for_update().get(pk=refresh.pk)
    if current.send_status not in (RefreshSendStatus.NOT_SENT, RefreshSendStatus.FAILED):
        raise StateConflict({"send_status": [REFRESH_LOCKED]})
    status = fields.pop("status", current.status)
    if "html" in fields:
        fields["html"] = clean_html(fields["html"])
    fields = _plain_text_fields(fields)
    changed = any(name in fields and fields[name] != getattr(current, name) for name in REVISED_FIELDS)
    if changed and current.status == ContentStatus.APPROVED and status == ContentStatus.APPROVED:
        status = ContentStatus.REVIEW
    elif status != current.status and status not in REFRESH_TRANSITIONS.get(current.status, frozenset()):
        raise StateConflict({"status": [f"A refresh cannot move from {current.status} to {status}"]})
    entering_review = status == ContentStatus.REVIEW and current.status != ContentStatus.REVIEW
    for name, value in fields.items():
        setattr(current, name, value)
    if changed:
        current.last_edited_by, current.last_edited_at = user, timezone.now()
    if status == ContentStatus.APPROVED and current.status != ContentStatus.APPROVED:
        check_refresh_approval_rules(refresh=current, approver=user)
    current.status = status
    current.save()
    if entering_review:
        events.content_ready_for_review(account=account, site=current.site, content_id=current.content_id, content_title=f"Refresh: {current.title}")
    return current


NOT_IN_REVIEW = "Only a refresh in review can be approved or sent back; this one is {status}"


def _refresh_decision(*, account: Account, refresh: ContentRefresh, user: User, status: str) -> ContentRefresh:
    current = ContentRefresh.objects.for_account(account).get(pk=refresh.pk)
    if current.status != ContentStatus.REVIEW:
        raise StateConflict({"status": [NOT_IN_REVIEW.format(status=current.status)]})
    return refresh_update(account=account, refresh=current, user=user, status=status)


# What a reviewer may do with a refresh: decide on one in review, as on an article.
REFRESH_REVIEWER_DECISIONS = frozenset({(ContentStatus.REVIEW, ContentStatus.APPROVED), (ContentStatus.REVIEW, ContentStatus.DRAFT)})


def refresh_move(*, account: Account, refresh: ContentRefresh, user: User, status: str) -> ContentRefresh:
    """Moves a refresh to ``status`` as ``user``'s role allows: the writers any move of review
    (``refresh_update``), a reviewer only a decision on one in review (403 otherwise)."""
    if user.role_name in CONTENT_WRITER_ROLES:
        return refresh_update(account=account, refresh=refresh, user=user, status=status)
    if (refresh.status, status) not in REFRESH_REVIEWER_DECISIONS:
        raise PermissionDenied()
    return _refresh_decision(account=account, refresh=refresh, user=user, status=status)


def refresh_approve(*, account: Account, refresh: ContentRefresh, user: User) -> ContentRefresh:
    """A refresh in review is approved (409 otherwise), under the site's four-eyes rule: what
    owners, admins, editors and reviewers may do, as for an article."""
    return _refresh_decision(account=account, refresh=refresh, user=user, status=ContentStatus.APPROVED)


def refresh_request_changes(*, account: Account, refresh: ContentRefresh, user: User) -> ContentRefresh:
    """A refresh in review goes back to draft (409 otherwise), as reviewers may send an article back."""
    return _refresh_decision(account=account, refresh=refresh, user=user, status=ContentStatus.DRAFT)


def check_refresh_approval_rules(*, refresh: ContentRefresh, approver: User | None) -> None:
    """The site's four-eyes rule for a refresh, as for an article: a person other than its last
    editor approves it (422 naming the rule). The client's step is an article's: a review link
    shows the article, not a refresh of it."""
    if not effective_settings(site=refresh.site).review.four_eyes:
        return
    if approver is None:
        raise BusinessRuleViolation({"status": [FOUR_EYES_NEEDS_PERSON]}, error=FOUR_EYES_NEEDS_PERSON, code="four_eyes")
    if refresh.last_edited_by_id == approver.pk:
        raise BusinessRuleViolation({"status": [FOUR_EYES]}, error=FOUR_EYES, code="four_eyes")


def check_refresh_sendable(*, refresh: ContentRefresh) -> None:
    """The editorial gate for refreshes: only an approved refresh goes to the CMS."""
    if refresh.status != ContentStatus.APPROVED:
        raise StateConflict({"status": [f"Only an approved refresh can be sent or scheduled; this one is {refresh.status}: approve it first"]})


def review_link_revoke(*, link: ReviewLink) -> ReviewLink:
    """The link stops working now (its address answers 410); revoking twice changes nothing."""
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
    return link


@transaction.atomic
def review_link_decide(*, link: ReviewLink, reviewer_name: str, decision: str, note: str = "") -> ContentApproval:
    """Someone who opened ``link`` approves its content or requests changes, under the name they
    gave. Recorded as the client's step (the content's status is the team's to move), and the
    team is told (``review_decision``)."""
    reviewer_name = plain_text(reviewer_name)[:REVIEWER_NAME_MAX_LENGTH]
    if not reviewer_name:
        raise ValidationError({"name": [REQUIRED]})
    if decision not in ReviewDecision.values:
        raise ValidationError({"decision": ["Invalid decision"]})
    content = link.content
    approval = ContentApproval.objects.create(
        account_id=link.account_id,
        content=content,
        step=ReviewStep.CLIENT,
        decision=decision,
        reviewer_name=reviewer_name,
        review_link=link,
        note=(note or "").strip()[:COMMENT_MAX_LENGTH],
    )
    events.review_decided(
        account=content.account, site=content.site, content_id=content.pk, content_title=content.title, reviewer_name=reviewer_name, decision=decision, note=approval.note[:300]
    )
    return approval
