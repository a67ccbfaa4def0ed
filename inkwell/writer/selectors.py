"""Reads of the writer that more than one interface asks for."""

import difflib
import hashlib
import re
from collections import Counter

from django.contrib.auth.hashers import check_password
from django.core import signing
from django.db.models import BooleanField, Case, F, Prefetch, Q, QuerySet, Subquery, Value, When
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from inkwell.ai.types import ArticleDraft
from inkwell.billing.services import cost_of
from inkwell.system.selectors import content_settings, integration_settings
from inkwell.tenancy.models import MANAGER_ROLES, Account, SiteUserAccess, User
from inkwell.writer.models import Brief, CommentMention, CommentReadMarker, Content, ContentApproval, ContentComment, ContentRevision, ImageType, ReviewLink, Task

# The salt of review links' signatures (``services.review_link_create`` signs with it).
REVIEW_LINK_SALT = "inkwell.writer.review-link"

DIFFED_FIELDS = ("title", "meta_title", "meta_description", "html")
# What an autosave keeps: every field of the editor's form.
AUTOSAVED_FIELDS = ("title", "html", "excerpt", "meta_title", "meta_description", "focus_keyword")


def revisions_of(account: Account, content: Content) -> QuerySet:
    """The content's earlier versions, newest first."""
    return ContentRevision.objects.for_account(account).filter(content=content)


def autosaves_of(account: Account, content: Content, *, user) -> QuerySet:
    """``user``'s autosaves of the content (what they typed in the editor and did not save), newest first."""
    return ContentRevision.objects.for_account(account).filter(content=content, created_by=user, is_autosave=True).order_by("-created_at", "-id")


def unsaved_autosave(account: Account, content: Content, *, user) -> ContentRevision | None:
    """``user``'s newest autosave of the content when it is newer than the content's last edit and
    differs from it: work the editor offers back. None otherwise."""
    autosave = autosaves_of(account, content, user=user).only("id", "created_at", *AUTOSAVED_FIELDS).first()
    if autosave is None or (content.last_edited_at is not None and autosave.created_at <= content.last_edited_at):
        return None
    if all(getattr(autosave, name) == getattr(content, name) for name in AUTOSAVED_FIELDS):
        return None
    return autosave


def _lines(text: str) -> list[str]:
    # Block tags end lines, so that a change shows as the paragraph it is in rather than one long line.
    for tag in ("</p>", "</h2>", "</h3>", "</h4>", "</li>", "</blockquote>", "<br>"):
        text = text.replace(tag, tag + "\n")
    return [line for line in text.splitlines() if line.strip()]


def version_diff(old, new) -> list[dict]:
    """Per field that differs between two versions (revisions or the content itself): the changed
    lines as ``[(op, text)]`` with op ``-``, ``+`` or `` `` (context)."""
    fields = []
    for name in DIFFED_FIELDS:
        before, after = getattr(old, name) or "", getattr(new, name) or ""
        if before == after:
            continue
        lines = []
        for line in difflib.unified_diff(_lines(before), _lines(after), lineterm="", n=1):
            if line.startswith(("---", "+++", "@@")):
                continue
            lines.append((line[:1], line[1:]))
        fields.append({"field": name, "lines": lines})
    return fields


def idea_task_ids(*, account: Account, idea_ids) -> dict[int, int]:
    """``{idea_id: task_id}`` of the ideas that already became a writer task."""
    return dict(Task.objects.for_account(account).filter(idea_id__in=list(idea_ids)).values_list("idea_id", "id"))


# Images


PROMPT_EXTRACTION = "image_prompt_extraction"


IMAGE_GENERATION = "image_generation"


def image_settings(account: Account) -> dict:
    """The account's effective image size, style and max_images."""
    values = integration_settings(account, "image_generation")
    return {"size": values["size"], "style": values["style"], "max_images": values["max_images"]}


def image_count(account: Account, image_type: str | None, count: int | None, *, max_images: int) -> int:
    """How many images a request makes: ``count``, at most the account's ``max_images``; by default
    one featured image, or the account's ``images_per_article`` (at least one, at most ``max_images``)."""
    if count is not None:
        if count > max_images:
            raise ValidationError({"count": [f"Ensure this value is less than or equal to {max_images} (image settings max_images)."]})
        return count
    if image_type == ImageType.FEATURED:
        return 1
    per_article = content_settings(account, "content_generation")["images_per_article"]
    return max(1, min(per_article, max_images))


def generation_cost(account: Account, *, image_type: str | None = None, count: int | None = None) -> int:
    """What ``start_image_generation`` (phase ``all``) holds for these arguments: the prompts, then the images."""
    count = image_count(account, image_type, count, max_images=image_settings(account)["max_images"])
    return cost_of(operation_type=PROMPT_EXTRACTION, units=1) + cost_of(operation_type=IMAGE_GENERATION, units=count)


def article_of(content: Content) -> ArticleDraft:
    """The content as the AI engine reads an article (its headings come from the HTML)."""
    return ArticleDraft(
        title=content.title,
        meta_title=content.meta_title,
        meta_description=content.meta_description,
        focus_keyword=content.focus_keyword,
        outline=[],
        html=content.html,
        word_count=content.word_count,
    )


# Review together (#36)


def comments_of(*, account: Account, content: Content, reader: User | None = None) -> QuerySet:
    """The content's comments in the order they were written, with their mentions and, for
    ``reader``, ``unread``: written by someone else after the reader last read them."""
    comments = (
        ContentComment.objects.for_account(account)
        .filter(content=content)
        .select_related("author")
        .prefetch_related(Prefetch("mentions", queryset=CommentMention.objects.for_account(account).select_related("user")))
        .order_by("created_at", "id")
    )
    if reader is None:
        return comments.annotate(unread=Value(False))
    read_at = CommentReadMarker.objects.for_account(account).filter(content=content, user=reader).values("read_at")[:1]
    return comments.annotate(
        reader_read_at=Subquery(read_at),
        unread=Case(
            When(author_id=reader.pk, then=Value(False)),
            When(reader_read_at__isnull=True, then=Value(True)),
            When(created_at__gt=F("reader_read_at"), then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        ),
    )


def review_links_of(*, account: Account, content: Content) -> QuerySet:
    return ReviewLink.objects.for_account(account).filter(content=content).order_by("-created_at", "-id")


def approvals_of(*, account: Account, content: Content) -> QuerySet:
    return ContentApproval.objects.for_account(account).filter(content=content).order_by("-created_at", "-id")


class ReviewLinkUnknown(Exception):
    """No link has this token (never made, or tampered with): the page is not found."""


class ReviewLinkEnded(Exception):
    """The link was revoked or has expired: the page is gone."""


def review_link_for_token(*, token: str) -> ReviewLink:
    """The link a review URL's token names, with its content and site. A token whose signature
    does not hold is unknown without a query; a revoked or expired link has ended."""
    try:
        secret = signing.Signer(salt=REVIEW_LINK_SALT, sep=".").unsign(token)
    except signing.BadSignature:
        raise ReviewLinkUnknown() from None
    token_hash = hashlib.sha256(secret.encode()).hexdigest()
    # A public address: no account to scope by until the link is found by its secret.
    link = ReviewLink.dangerously_unscoped.filter(token_hash=token_hash).select_related("content__site", "content__account").first()
    if link is None:
        raise ReviewLinkUnknown()
    if link.revoked_at is not None or link.expires_at <= timezone.now():
        raise ReviewLinkEnded()
    return link


def review_link_passcode_holds(*, link: ReviewLink, passcode: str) -> bool:
    return bool(link.passcode_hash) and check_password(passcode, link.passcode_hash)
def brief_of(*, account: Account, task: Task) -> Brief:
    """The task's brief; 404 when it has none."""
    from django.http import Http404

    brief = Brief.objects.for_account(account).filter(task=task).first()
    if brief is None:
        raise Http404("This task has no brief")
    return brief


# Mentions (#36)


def mention_handles(user: User) -> set[str]:
    """What ``@`` may be followed by to name ``user`` besides their e-mail address, lower case: the
    e-mail's part before the ``@``, the first name, and first and last name joined by a dot
    (spaces inside a name become dots too: ``@mary.ann.lee``)."""
    first, last = (re.sub(r"\s+", ".", name.strip().lower()) for name in (user.first_name, user.last_name))
    handles = {user.email.split("@", 1)[0].lower(), first, f"{first}.{last}" if first and last else ""}
    return {handle for handle in handles if handle}


def mentionable_users(*, account: Account, site_id: int) -> list[User]:
    """The account's active members who may see the site: whom a comment on its content may mention."""
    users = User.objects.for_account(account).filter(is_active=True, role__isnull=False).select_related("role").order_by("id")
    granted = SiteUserAccess.objects.for_account(account).filter(site_id=site_id).values_list("user_id", flat=True)
    return list(users.filter(Q(role__name__in=MANAGER_ROLES) | Q(pk__in=granted)))


def mention_suggestions(*, account: Account, site_id: int, reader: User) -> list[dict]:
    """Teammates the reader may mention on the site's content, for completing ``@`` as they type:
    the name shown, the e-mail, and what to insert (the e-mail's first part when it names only
    this teammate, else the e-mail address)."""
    everyone = mentionable_users(account=account, site_id=site_id)
    named = Counter(handle for user in everyone for handle in mention_handles(user))
    suggestions = []
    for user in (user for user in everyone if user.pk != reader.pk):
        handle = user.email.split("@", 1)[0].lower()
        unique = named[handle] == 1
        name = f"{user.first_name} {user.last_name}".strip()
        suggestions.append({"name": name or user.email, "email": user.email, "insert": handle if unique else user.email})
    return suggestions
