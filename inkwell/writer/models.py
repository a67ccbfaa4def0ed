"""Writer: tasks (briefs), the content written from them with its revisions, images and taxonomies."""

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.text import slugify

from inkwell.crypto import EncryptedTextField
from inkwell.planner.models import Cluster, ContentIdea
from inkwell.tenancy.models import AccountOwnedModel, Sector, Site


class TaskStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    GENERATING = "generating", "Generating"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"


class ContentStatus(models.TextChoices):
    """The workflow: draft → review → approved → published."""

    DRAFT = "draft", "Draft"
    REVIEW = "review", "Review"
    APPROVED = "approved", "Approved"
    PUBLISHED = "published", "Published"


class SiteStatus(models.TextChoices):
    """Where the content stands on the CMS."""

    NOT_PUBLISHED = "not_published", "Not published"
    SCHEDULED = "scheduled", "Scheduled"
    PUBLISHING = "publishing", "Publishing"
    PUBLISHED = "published", "Published"
    FAILED = "failed", "Failed"


class ImageType(models.TextChoices):
    FEATURED = "featured", "Featured"
    IN_ARTICLE = "in_article", "In article"


class ImageStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    GENERATED = "generated", "Generated"
    FAILED = "failed", "Failed"


class TaxonomyType(models.TextChoices):
    CATEGORY = "category", "Category"
    TAG = "tag", "Tag"


class Task(AccountOwnedModel):
    """A writing brief: what to write, for which site and sector, how long and in which tone."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    sector = models.ForeignKey(Sector, on_delete=models.CASCADE, related_name="+")
    idea = models.ForeignKey(ContentIdea, null=True, blank=True, on_delete=models.SET_NULL, related_name="tasks")
    cluster = models.ForeignKey(Cluster, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    title = models.CharField(max_length=300)
    description = models.TextField(blank=True)
    keywords = models.JSONField(default=list, blank=True)
    outline = models.JSONField(default=list, blank=True)
    content_type = models.CharField(max_length=20, default="post")
    content_structure = models.CharField(max_length=20, default="guide")
    word_count = models.PositiveIntegerField(default=1500)
    tone = models.CharField(max_length=20, default="professional")
    status = models.CharField(max_length=12, choices=TaskStatus.choices, default=TaskStatus.QUEUED)
    # Cannibalization guard (#19, inkwell.writer.overlaps): the site's pieces this task competed
    # with when it was created ({id, kind, title, similarity}), and whether there were any.
    overlaps = models.JSONField(default=list, blank=True)
    overlap_flagged = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # An idea becomes one task: converting it again reports the task it already has.
            models.UniqueConstraint(fields=["idea"], condition=Q(idea__isnull=False), name="writer_task_once_per_idea"),
        ]
        indexes = [
            models.Index(fields=["account", "site", "-created_at"], name="task_site_recent"),
            models.Index(fields=["site", "status"], name="task_site_status"),
        ]

    def __str__(self):
        return self.title


def cms_slug(*, slug: str, title: str, content_id: int) -> str:
    """The slug an article goes to its CMS with (and so its path there): its own, else one made
    from its title, else its id. The publisher sends it and the linker links to it."""
    return (slug or slugify(title) or slugify(title, allow_unicode=True) or str(content_id))[:200]


class Content(AccountOwnedModel):
    """An article: the body as HTML, its SEO fields, its workflow and publishing state."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    sector = models.ForeignKey(Sector, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    task = models.ForeignKey(Task, null=True, blank=True, on_delete=models.SET_NULL, related_name="contents")
    title = models.CharField(max_length=300)
    slug = models.SlugField(max_length=200, blank=True, allow_unicode=True, help_text="The post's slug on the CMS; made from the title when empty.")
    excerpt = models.TextField(blank=True)
    html = models.TextField(blank=True)
    meta_title = models.CharField(max_length=60, blank=True)
    meta_description = models.CharField(max_length=160, blank=True)
    taxonomies = models.ManyToManyField("Taxonomy", blank=True, related_name="contents")
    focus_keyword = models.CharField(max_length=255, blank=True)
    keywords = models.JSONField(default=list, blank=True)
    word_count = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=ContentStatus.choices, default=ContentStatus.DRAFT)
    site_status = models.CharField(max_length=14, choices=SiteStatus.choices, default=SiteStatus.NOT_PUBLISHED)
    scheduled_publish_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    external_id = models.CharField(max_length=100, blank=True)
    external_url = models.URLField(max_length=500, blank=True)
    # Who last changed the title, body or meta fields, and when (None: written by the AI, or
    # never changed by a person). The four-eyes rule compares an approver with this person, and
    # a client's approval counts only when it is newer than the last edit.
    last_edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    last_edited_at = models.DateTimeField(null=True, blank=True)
    # The quality gate (issue 35): the outcome of the last report taken at a review step
    # (None: never gated), its failing kinds and findings, and who approved it anyway.
    quality_passed = models.BooleanField(null=True, blank=True)
    quality_summary = models.JSONField(default=dict, blank=True)
    quality_override_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    quality_override_at = models.DateTimeField(null=True, blank=True)
    # One more with every change an update makes: a save based on an older version is refused
    # (409 ``concurrent_modification``), so two people editing one article never overwrite each other.
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "quality_passed", "-created_at"], name="content_account_quality"),
            models.Index(fields=["account", "site", "-created_at"], name="content_site_recent"),
            models.Index(fields=["account", "status", "-created_at"], name="content_account_status"),
            models.Index(fields=["account", "site_status", "-created_at"], name="content_account_site_status"),
            # The publisher's periodic job finds due content through this one.
            models.Index(fields=["site_status", "scheduled_publish_at"], name="content_due"),
            models.Index(fields=["site", "-updated_at"], name="content_site_updated"),
            # The slot planner's taken times of a site.
            models.Index(fields=["site", "site_status", "scheduled_publish_at"], name="content_site_schedule"),
            models.Index(fields=["site", "published_at"], name="content_site_published"),
        ]

    def __str__(self):
        return self.title


class ContentRevision(AccountOwnedModel):
    """The content as it was before a change of its body or SEO fields; or, marked
    ``is_autosave``, what a person had typed in the editor and not saved (kept by the editor's
    autosave, and when a save of theirs was refused as a concurrent modification)."""

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="revisions")
    title = models.CharField(max_length=300)
    html = models.TextField(blank=True)
    excerpt = models.TextField(blank=True)
    meta_title = models.CharField(max_length=60, blank=True)
    meta_description = models.CharField(max_length=160, blank=True)
    focus_keyword = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=10, choices=ContentStatus.choices)
    is_autosave = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = "content__site"

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["content", "-created_at"], name="revision_content_recent"),
            # A person's autosaves of an article, newest first: offered back, and pruned.
            models.Index(fields=["content", "created_by", "-created_at"], condition=models.Q(is_autosave=True), name="revision_autosaves"),
        ]


def image_upload_to(image: "Image", filename: str) -> str:
    return f"images/{image.account_id}/{image.site_id}/{filename}"


class Image(AccountOwnedModel):
    """An image of a content: its prompt, and the file once generated (stored through Django's storage)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="images")
    image_type = models.CharField(max_length=12, choices=ImageType.choices, default=ImageType.IN_ARTICLE)
    position = models.PositiveSmallIntegerField(default=0)
    prompt = models.TextField()
    alt_text = models.CharField(max_length=300, blank=True)
    file = models.FileField(upload_to=image_upload_to, max_length=300, blank=True)
    mime_type = models.CharField(max_length=40, blank=True)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=ImageStatus.choices, default=ImageStatus.PENDING)
    external_id = models.CharField(max_length=100, blank=True, help_text="The media id on the site's CMS once published there.")
    external_url = models.URLField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["content_id", "position", "id"]
        indexes = [
            models.Index(fields=["account", "site", "-created_at"], name="image_site_recent"),
            models.Index(fields=["content", "position"], name="image_content_position"),
        ]


class Taxonomy(AccountOwnedModel):
    """A category or tag of a site: created here, or brought in by a CMS sync (``external_id``)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    taxonomy_type = models.CharField(max_length=10, choices=TaxonomyType.choices)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")
    external_id = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["taxonomy_type", "name", "id"]
        constraints = [models.UniqueConstraint(fields=["site", "taxonomy_type", "slug"], name="taxonomy_slug_per_site")]
        indexes = [models.Index(fields=["account", "site", "taxonomy_type"], name="taxonomy_site_type")]

    def __str__(self):
        return self.name


class RefreshSendStatus(models.TextChoices):
    """Where a refresh stands on the CMS: the live post changes only when it is ``sent``."""

    NOT_SENT = "not_sent", "Not sent"
    SCHEDULED = "scheduled", "Scheduled"
    SENDING = "sending", "Sending"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"


class ContentRefresh(AccountOwnedModel):
    """A new revision of a live article (issue #37): written by hand or from an opportunity, it goes
    through review and approval like a draft (``status``: draft → review → approved) while the live
    post and the content's row stay as they are, until publishing sends it as an update of the post,
    now or at ``scheduled_at`` (``send_status``). Sent, its fields become the content's."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="refreshes")
    title = models.CharField(max_length=300)
    html = models.TextField(blank=True)
    meta_title = models.CharField(max_length=60, blank=True)
    meta_description = models.CharField(max_length=160, blank=True)
    reason = models.CharField(max_length=500, blank=True, help_text="Why the refresh: the opportunity it came from, or a note.")
    status = models.CharField(max_length=10, choices=ContentStatus.choices, default=ContentStatus.DRAFT)
    send_status = models.CharField(max_length=10, choices=RefreshSendStatus.choices, default=RefreshSendStatus.NOT_SENT)
    scheduled_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Who last changed its text (the site's four-eyes rule: someone else approves it).
    last_edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    last_edited_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One refresh of an article in the works at a time: a second would overwrite the first.
            models.UniqueConstraint(
                fields=["content"], condition=~Q(send_status="sent"), name="writer_one_open_refresh_per_content"
            ),
        ]
        indexes = [
            models.Index(fields=["account", "site", "-created_at"], name="refresh_site_recent"),
            models.Index(fields=["content", "-created_at"], name="refresh_content_recent"),
            # The publisher's periodic job finds due refreshes through this one.
            models.Index(fields=["send_status", "scheduled_at"], name="refresh_due"),
        ]

    def __str__(self):
        return self.title
# Review together (#36): comments, review links for people without an account, approvals.


class ReviewLink(AccountOwnedModel):
    """A link that opens one content's preview and comments without signing in.

    The URL carries a random secret, signed. A link is found by the secret's SHA-256
    (``token_hash``); the token itself is kept encrypted (``token``), so that the editor can copy
    the link again and a copy of the database alone opens nothing. It expires at ``expires_at``
    and stops at ``revoked_at``; a passcode, when set, is kept as a password hash.
    """

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="review_links")
    token_hash = models.CharField(max_length=64, unique=True)
    token = EncryptedTextField()
    passcode_hash = models.CharField(max_length=200, blank=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = "content__site"

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["content", "-created_at"], name="review_link_content_recent")]

    @property
    def has_passcode(self) -> bool:
        return bool(self.passcode_hash)


class ContentComment(AccountOwnedModel):
    """A comment on a content: on the whole article, or on a passage (``anchor_quote`` at
    ``anchor_start``..``anchor_end`` of the article's visible text). A reply names its ``parent``
    (a thread is one level deep: a reply to a reply joins its parent's thread).

    ``author`` is the team member who wrote it; a comment made through a review link has no
    author but the ``author_name`` its writer gave and the ``review_link``. ``outdated``: the
    passage it was on is gone from the article (the quote is kept).
    """

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies")
    body = models.TextField()
    anchor_quote = models.TextField(blank=True)
    anchor_start = models.PositiveIntegerField(null=True, blank=True)
    anchor_end = models.PositiveIntegerField(null=True, blank=True)
    outdated = models.BooleanField(default=False)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    author_name = models.CharField(max_length=100)
    review_link = models.ForeignKey(ReviewLink, null=True, blank=True, on_delete=models.SET_NULL, related_name="comments")
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    resolved_by_name = models.CharField(max_length=100, blank=True)
    # When its author last changed the text (resolving changes ``updated_at`` too, not this).
    edited_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    site_field: ClassVar[str | None] = "content__site"

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["content", "created_at"], name="comment_content_created")]

    @property
    def anchored(self) -> bool:
        return bool(self.anchor_quote)


class CommentMention(AccountOwnedModel):
    """A teammate @mentioned in a comment, and how they were told (per their preferences)."""

    comment = models.ForeignKey(ContentComment, on_delete=models.CASCADE, related_name="mentions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    notified_in_app = models.BooleanField(default=False)
    emailed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = "comment__content__site"

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["comment", "user"], name="mention_once_per_comment")]


class CommentReadMarker(AccountOwnedModel):
    """Until when one person has read a content's comments: newer comments by others are unread to them."""

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    read_at = models.DateTimeField()

    site_field: ClassVar[str | None] = "content__site"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "content"], name="comment_read_once_per_person")]


class ReviewStep(models.TextChoices):
    TEAM = "team", "Team"
    CLIENT = "client", "Client (review link)"


class ReviewDecision(models.TextChoices):
    APPROVED = "approved", "Approved"
    CHANGES_REQUESTED = "changes_requested", "Changes requested"


class ContentApproval(AccountOwnedModel):
    """One decision on a content: who (a team member, or the name given on a review link), when,
    at which step, and what they decided."""

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="approvals")
    step = models.CharField(max_length=10, choices=ReviewStep.choices)
    decision = models.CharField(max_length=20, choices=ReviewDecision.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reviewer_name = models.CharField(max_length=100)
    review_link = models.ForeignKey(ReviewLink, null=True, blank=True, on_delete=models.SET_NULL, related_name="approvals")
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = "content__site"

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["content", "step", "-created_at"], name="approval_content_step_recent")]

class ContentFingerprint(AccountOwnedModel):
    """What originality keeps of an article of the site, published and synced ones included: its
    MinHash signature and a sample of its shingle hashes (``inkwell.ai.quality.fingerprint``),
    never its text. ``source_updated_at`` is the content's ``updated_at`` it was taken from; an
    older one is taken again before a report reads it."""

    content = models.OneToOneField(Content, on_delete=models.CASCADE, related_name="fingerprint")
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    signature = models.BinaryField()
    sample = models.BinaryField(blank=True, default=b"")
    source_updated_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["site", "content"], name="fingerprint_site")]


class SiteEditorial(AccountOwnedModel):
    """A site's editorial rules: whether drafts are written from an approved brief, and the
    quality report's thresholds (``inkwell.ai.quality.Thresholds`` fields; missing ones take the
    defaults). A site without a row (made through the API, or before briefs existed) needs no
    brief; a site made in the console gets a row that asks for one."""

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="+")
    brief_required = models.BooleanField(default=True)
    stop_at_brief = models.BooleanField(default=False, help_text="Automation stops at a ready brief and waits for a person to approve it.")
    thresholds = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)


class BriefStatus(models.TextChoices):
    READY = "ready", "Ready for review"
    APPROVED = "approved", "Approved"


class Brief(AccountOwnedModel):
    """What a draft is written from (issue 35): made from the task (and its idea), edited and
    approved by the editor. ``outline`` is ``[{level: 2|3, text}]``; ``keywords`` have the primary
    first; ``internal_links`` are ``[{content_id, title, url}]`` among the site's live articles;
    ``sources`` are ``[{url, note}]`` the writer must use (either may be empty, not both)."""

    task = models.OneToOneField(Task, on_delete=models.CASCADE, related_name="brief")
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="+")
    title = models.CharField(max_length=300)
    angle = models.TextField(blank=True)
    reader = models.TextField(blank=True)
    outline = models.JSONField(default=list, blank=True)
    keywords = models.JSONField(default=list, blank=True)
    target_length = models.PositiveIntegerField(default=1500)
    questions = models.JSONField(default=list, blank=True)
    internal_links = models.JSONField(default=list, blank=True)
    sources = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=BriefStatus.choices, default=BriefStatus.READY)
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["account", "site", "status"], name="brief_site_status")]


class VoiceProfile(AccountOwnedModel):
    """A site's voice (issue 35): proposed from its published posts (measured), edited by the team;
    every writing, optimizing and rewriting prompt carries it."""

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="+")
    tone = models.CharField(max_length=20, default="professional")
    person = models.CharField(max_length=6, default="second", help_text="first, second or third")
    reading_grade = models.FloatField(default=8.0, help_text="Target Flesch-Kincaid grade.")
    sentence_words = models.PositiveSmallIntegerField(default=18, help_text="Target average sentence length in words.")
    words_to_use = models.JSONField(default=list, blank=True)
    words_to_avoid = models.JSONField(default=list, blank=True)
    examples = models.JSONField(default=list, blank=True)
    measured_posts = models.PositiveIntegerField(default=0, help_text="How many published posts the last proposal measured.")
    updated_at = models.DateTimeField(auto_now=True)
