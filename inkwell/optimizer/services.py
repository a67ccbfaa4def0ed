"""Writes of the optimizer: AI optimization of articles, one (``optimizer.optimize``) or many
(``optimizer.batch_optimize``), as jobs.

Credits: ``optimization`` per article, all of them reserved when the job starts (402 at once, and
no job, when the balance cannot cover them). When the job ends only the articles whose
optimization was saved are charged; the rest of the reservation is freed, so an article the AI
could not improve, that failed, or that was edited meanwhile costs nothing.

For each article: the analysis (``selectors``) finds what to improve; the account's AI provider
rewrites the article with the optimization prompt and those suggestions
(``inkwell.ai.optimization``); the proposal is analysed the same way; it is saved through the
writer's ``content_update`` (a new revision, the body sanitised) only when it scores at least as
high as the article and changed something, and only when nobody changed the article while the
provider worked on it. The title stays the author's; the body, meta title and meta description
change, and the focus keyword when the article had none.
"""

from dataclasses import dataclass

from django.db import models

from inkwell.ai.analysis import blocks
from inkwell.ai.client import AIClient
from inkwell.ai.optimization import optimize_with_suggestions
from inkwell.ai.types import ArticleDraft, TokenUsage
from inkwell.api.exceptions import StateConflict
from inkwell.api.text import counted
from inkwell.billing.services import cost_of, reserve_for_job
from inkwell.jobs.models import Job
from inkwell.jobs.services import start_job
from inkwell.linker.services import content_of_one_site
from inkwell.optimizer.selectors import Report, SiteContext, content_report, site_context
from inkwell.sitesettings.selectors import effective_settings
from inkwell.system.selectors import ai_client, content_settings
from inkwell.tenancy.models import Account, Site, User
from inkwell.writer.quality import site_voice
from inkwell.writer.models import Content, ContentRefresh, ContentStatus, RefreshSendStatus
from inkwell.writer.sanitize import clean_html, plain_text
from inkwell.writer.services import content_update, refresh_update

OPTIMIZE = "optimizer.optimize"
REFRESH_WITH_AI = "optimizer.refresh_with_ai"
BATCH_OPTIMIZE = "optimizer.batch_optimize"
OPERATION = "optimization"
MAX_BATCH_CONTENT = 50
META_TITLE_MAX = Content._meta.get_field("meta_title").max_length
META_DESCRIPTION_MAX = Content._meta.get_field("meta_description").max_length
FOCUS_KEYWORD_MAX = Content._meta.get_field("focus_keyword").max_length
# The fields an optimization reads and may change; a change of any while the provider works voids it.
WATCHED_FIELDS = ("title", "html", "meta_title", "meta_description", "focus_keyword")


class Outcome(models.TextChoices):
    OPTIMIZED = "optimized", "Saved as a new revision"
    NOT_IMPROVED = "not_improved", "The proposal scored lower or changed nothing; not saved"
    CONTENT_CHANGED = "content_changed", "The content was edited while it was optimized; not saved"
    NOT_FOUND = "not_found", "The content was deleted while it was optimized"


def start_optimization(*, account: Account, user: User, content: Content) -> Job:
    """Starts ``optimizer.optimize`` for the content, holding one ``optimization`` (402 when short)."""
    return start_job(
        account=account,
        kind=OPTIMIZE,
        params={"content_id": content.pk},
        site=content.site,
        user=user,
        prepare=reserve_for_job(operation_type=OPERATION, amount=cost_of(operation_type=OPERATION, units=1), description=f"Optimization: {content.title}"[:255]),
    )


def start_batch_optimization(*, account: Account, user: User, contents: models.QuerySet, content_ids: list[int]) -> Job:
    """Starts ``optimizer.batch_optimize`` over the caller's content among ``content_ids`` (``contents``
    is the caller's scoped queryset; the others are reported as ``not_found``), holding one
    ``optimization`` per article found, all up front (402 when short)."""
    found, not_found, site = content_of_one_site(account=account, contents=contents, content_ids=content_ids)
    return start_job(
        account=account,
        kind=BATCH_OPTIMIZE,
        params={"content_ids": found, "not_found": not_found},
        site=site,
        user=user,
        prepare=reserve_for_job(operation_type=OPERATION, amount=cost_of(operation_type=OPERATION, units=len(found)), description=f"Optimization of {counted(len(found), 'article')}"),
    )


def optimizer_client(*, account: Account, site: Site | None = None) -> AIClient:
    """The account's AI client, on the testing model when its content settings ask for it (as the
    writer's), with the models ``site`` chooses (issue 30: a site's choice was never used)."""
    testing = content_settings(account, "content_generation")["use_testing_model"]
    return ai_client(account, live=False if testing else None, site=site)


@dataclass(frozen=True)
class Proposal:
    """What the provider made of one article, and what the article was when it was asked."""

    content_id: int
    snapshot: tuple
    context: SiteContext
    before: Report
    article: ArticleDraft
    changes: list[str]
    usage: TokenUsage


def _snapshot(content: Content) -> tuple:
    return tuple(getattr(content, name) for name in WATCHED_FIELDS)


def propose(*, client: AIClient, account: Account, content: Content) -> Proposal:
    """Asks the provider to improve ``content`` against its analysis' suggestions; saves nothing.
    AI errors propagate."""
    context = site_context(account, content)
    before = content_report(content, context)
    article = ArticleDraft(
        title=content.title,
        meta_title=content.meta_title,
        meta_description=content.meta_description,
        focus_keyword=content.focus_keyword,
        outline=[block.text for block in blocks(content.html) if block.tag == "h2"],
        html=content.html,
        word_count=before.metrics["word_count"],
    )
    answer = optimize_with_suggestions(client, article, before.suggestions, voice=site_voice(site=content.site))
    return Proposal(content.pk, _snapshot(content), context, before, answer.value.article, list(answer.value.changes), answer.usage)


def apply_proposal(*, account: Account, proposal: Proposal, user: User | None) -> dict:
    """Saves the proposal as a new revision when it is worth it (see the module docstring); the
    item's result. Runs inside the caller's transaction, with the article locked."""
    current = Content.objects.for_account(account).select_for_update().filter(pk=proposal.content_id).first()
    result = {"content_id": proposal.content_id, "score_before": proposal.before.score, "changes": [], "suggestions": proposal.before.suggestions}
    if current is None:
        return {**result, "outcome": Outcome.NOT_FOUND, "score_after": proposal.before.score}
    if _snapshot(current) != proposal.snapshot:
        return {**result, "outcome": Outcome.CONTENT_CHANGED, "score_after": content_report(current, proposal.context).score}
    improved = proposal.article
    fields = {
        "html": clean_html(improved.html),
        "meta_title": plain_text(improved.meta_title)[:META_TITLE_MAX],
        "meta_description": plain_text(improved.meta_description)[:META_DESCRIPTION_MAX],
    }
    if not current.focus_keyword.strip() and improved.focus_keyword.strip():
        fields["focus_keyword"] = improved.focus_keyword.strip()[:FOCUS_KEYWORD_MAX]
    after = content_report(current, proposal.context, **fields)
    changed = any(value != getattr(current, name) for name, value in fields.items())
    if not changed or after.score < proposal.before.score:
        return {**result, "outcome": Outcome.NOT_IMPROVED, "score_after": after.score}
    content_update(account=account, content=current, user=user, **fields)
    return {**result, "outcome": Outcome.OPTIMIZED, "score_after": after.score, "changes": proposal.changes}


# A refresh written with AI (issue #37)

REFRESH_NOT_DRAFT = "Only a refresh in draft can be written with AI: move it back to draft first"


def start_refresh_writing(*, account: Account, user: User, refresh: ContentRefresh) -> Job:
    """Starts ``optimizer.refresh_with_ai``: the provider rewrites the draft refresh for what its
    opportunity asks (its ``reason``) and the analysis' suggestions, holding one ``optimization``
    (402 when short). A refresh that is not a draft, or not editable, is a 409."""
    if refresh.status != ContentStatus.DRAFT or refresh.send_status not in (RefreshSendStatus.NOT_SENT, RefreshSendStatus.FAILED):
        raise StateConflict({"status": [REFRESH_NOT_DRAFT]})
    return start_job(
        account=account,
        kind=REFRESH_WITH_AI,
        params={"refresh_id": refresh.pk},
        site=refresh.site,
        user=user,
        prepare=reserve_for_job(operation_type=OPERATION, amount=cost_of(operation_type=OPERATION, units=1), description=f"Refresh: {refresh.title}"[:255]),
    )


def refresh_proposal(*, client: AIClient, account: Account, refresh: ContentRefresh) -> tuple[ArticleDraft, list[str], TokenUsage]:
    """The provider's rewrite of the refresh: the live article's analysis, with the refresh's text,
    and what the opportunity asks first among the suggestions; saves nothing."""
    content = refresh.content
    draft_content = Content(
        pk=content.pk, account_id=content.account_id, site_id=content.site_id, title=refresh.title, html=refresh.html,
        meta_title=refresh.meta_title, meta_description=refresh.meta_description, focus_keyword=content.focus_keyword,
        keywords=content.keywords, task_id=content.task_id,
    )
    context = site_context(account, draft_content)
    before = content_report(draft_content, context)
    article = ArticleDraft(
        title=refresh.title,
        meta_title=refresh.meta_title,
        meta_description=refresh.meta_description,
        focus_keyword=content.focus_keyword,
        outline=[block.text for block in blocks(refresh.html) if block.tag == "h2"],
        html=refresh.html,
        word_count=before.metrics["word_count"],
    )
    suggestions = ([refresh.reason] if refresh.reason else []) + list(before.suggestions)
    answer = optimize_with_suggestions(client, article, suggestions)
    return answer.value.article, list(answer.value.changes), answer.usage


def apply_refresh_proposal(*, account: Account, refresh_id: int, snapshot: tuple, article: ArticleDraft, user: User | None) -> bool:
    """Saves the rewrite into the refresh unless somebody changed the refresh while the provider
    worked; True when saved. Then automation's review gate, as for an article it generated: where
    the site approves generated content automatically and no approval rule asks for a person, the
    refresh is approved (by the automation, not by ``user``); else it stays a draft for a person
    to review. It is never sent by itself: sending a live post's update stays a person's act."""
    current = ContentRefresh.objects.for_account(account).select_for_update().select_related("site").filter(pk=refresh_id).first()
    if current is None or (current.title, current.html, current.meta_title, current.meta_description, current.status) != snapshot:
        return False
    saved = refresh_update(
        account=account,
        refresh=current,
        user=user,
        html=article.html,
        meta_title=plain_text(article.meta_title)[:META_TITLE_MAX],
        meta_description=plain_text(article.meta_description)[:META_DESCRIPTION_MAX],
    )
    settings = effective_settings(site=current.site)
    if settings.publishing.auto_approval_enabled and not settings.review.person_required:
        reviewed = refresh_update(account=account, refresh=saved, user=None, status=ContentStatus.REVIEW)
        refresh_update(account=account, refresh=reviewed, user=None, status=ContentStatus.APPROVED)
    return True
