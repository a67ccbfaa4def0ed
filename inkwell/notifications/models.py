"""In-app notifications (spec: Notification resource and Events)."""

from typing import ClassVar

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from inkwell.tenancy.models import AccountOwnedModel, Site, User

TITLE_MAX_LENGTH = 200
ACTION_LABEL_MAX_LENGTH = 80
ACTION_URL_MAX_LENGTH = 500


class NotificationType(models.TextChoices):
    """The event names of the spec's Events table; ``notification_type`` holds one of them."""

    AI_CLUSTER_COMPLETE = "ai_cluster_complete", "Clustering complete"
    AI_CLUSTER_FAILED = "ai_cluster_failed", "Clustering failed"
    AI_IDEAS_COMPLETE = "ai_ideas_complete", "Idea generation complete"
    AI_IDEAS_FAILED = "ai_ideas_failed", "Idea generation failed"
    AI_CONTENT_COMPLETE = "ai_content_complete", "Content generation complete"
    AI_CONTENT_FAILED = "ai_content_failed", "Content generation failed"
    AI_IMAGES_COMPLETE = "ai_images_complete", "Image generation complete"
    AI_IMAGES_FAILED = "ai_images_failed", "Image generation failed"
    AI_PROMPTS_COMPLETE = "ai_prompts_complete", "Image prompt generation complete"
    AI_PROMPTS_FAILED = "ai_prompts_failed", "Image prompt generation failed"
    CONTENT_READY_REVIEW = "content_ready_review", "Content ready for review"
    CONTENT_PUBLISHED = "content_published", "Content published"
    CONTENT_PUBLISH_FAILED = "content_publish_failed", "Content publishing failed"
    CMS_SYNC_SUCCESS = "cms_sync_success", "CMS sync succeeded"
    CMS_SYNC_FAILED = "cms_sync_failed", "CMS sync failed"
    CREDITS_LOW = "credits_low", "Credits running low"
    CREDITS_DEPLETED = "credits_depleted", "Credits depleted"
    SITE_SETUP_COMPLETE = "site_setup_complete", "Site setup complete"
    KEYWORDS_IMPORTED = "keywords_imported", "Keywords imported"
    SYSTEM_INFO = "system_info", "Announcement"
    # Not in the spec's Events table: added by contract section 11.
    AUTOMATION_RUN_COMPLETED = "automation_run_completed", "Automation run completed"
    AUTOMATION_RUN_FAILED = "automation_run_failed", "Automation run failed"
    AUTOMATION_RUN_CANCELLED = "automation_run_cancelled", "Automation run cancelled"
    # Outbound webhooks (inkwell.webhooks): an endpoint failing for days was switched off.
    WEBHOOK_ENDPOINT_DISABLED = "webhook_endpoint_disabled", "Webhook endpoint switched off"
    # Review together (#36).
    COMMENT_MENTION = "comment_mention", "Mentioned in a comment"
    REVIEW_DECISION = "review_decision", "Review decision"


class NotificationCategory(models.TextChoices):
    """The groups the list filter accepts besides the event names (spec: Notifications list parameters)."""

    AI_TASK = "ai_task", "AI tasks"
    SYSTEM = "system", "System"
    CREDIT = "credit", "Credits"
    BILLING = "billing", "Billing"
    INTEGRATION = "integration", "Integration"
    CONTENT = "content", "Content"
    INFO = "info", "Information"
    AUTOMATION = "automation", "Automation"


_T = NotificationType
# The events of each category, the one table the list filter and the admin
# read. `billing` holds plan and payment events, none of which exists yet: a new event joins here.
TYPES_BY_CATEGORY: dict[str, tuple[str, ...]] = {
    NotificationCategory.AI_TASK: (
        _T.AI_CLUSTER_COMPLETE, _T.AI_CLUSTER_FAILED, _T.AI_IDEAS_COMPLETE, _T.AI_IDEAS_FAILED,
        _T.AI_CONTENT_COMPLETE, _T.AI_CONTENT_FAILED, _T.AI_IMAGES_COMPLETE, _T.AI_IMAGES_FAILED,
        _T.AI_PROMPTS_COMPLETE, _T.AI_PROMPTS_FAILED,
    ),
    NotificationCategory.CONTENT: (_T.CONTENT_READY_REVIEW, _T.CONTENT_PUBLISHED, _T.CONTENT_PUBLISH_FAILED, _T.COMMENT_MENTION, _T.REVIEW_DECISION),
    NotificationCategory.INTEGRATION: (_T.CMS_SYNC_SUCCESS, _T.CMS_SYNC_FAILED, _T.WEBHOOK_ENDPOINT_DISABLED),
    NotificationCategory.CREDIT: (_T.CREDITS_LOW, _T.CREDITS_DEPLETED),
    NotificationCategory.BILLING: (),
    NotificationCategory.SYSTEM: (_T.SYSTEM_INFO,),
    NotificationCategory.INFO: (_T.SITE_SETUP_COMPLETE, _T.KEYWORDS_IMPORTED),
    NotificationCategory.AUTOMATION: (_T.AUTOMATION_RUN_COMPLETED, _T.AUTOMATION_RUN_FAILED, _T.AUTOMATION_RUN_CANCELLED),
}
CATEGORY_BY_TYPE: dict[str, str] = {event: category for category, events in TYPES_BY_CATEGORY.items() for event in events}


class Severity(models.TextChoices):
    INFO = "info", "Info"
    SUCCESS = "success", "Success"
    WARNING = "warning", "Warning"
    ERROR = "error", "Error"


ACTION_URL_MESSAGE = "Enter a path inside the application, starting with a single /"


def validate_action_url(value: str) -> None:
    """An application-relative path: ``/writer/content/7`` yes; ``//evil.example``, ``https://...``, ``x`` no."""
    unsafe_character = any(ch.isspace() or not ch.isprintable() or ch == "\\" for ch in value)
    if value and (not value.startswith("/") or value.startswith("//") or unsafe_character):
        raise ValidationError(ACTION_URL_MESSAGE, code="invalid_action_url")


class Notification(AccountOwnedModel):
    """One notification of an account.

    ``user`` None addresses every member of the account, otherwise that user alone. ``site`` gives
    context: editors and viewers do not see notifications of sites they cannot access. The row is
    account-wide for tenancy (``site_field`` None), so notifications without a site reach everyone.
    Whether a member has read or deleted it is theirs alone: a ``NotificationReceipt``.
    """

    site = models.ForeignKey(Site, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(User, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    notification_type = models.CharField(max_length=40, choices=NotificationType.choices)
    severity = models.CharField(max_length=10, choices=Severity.choices, default=Severity.INFO)
    title = models.CharField(max_length=TITLE_MAX_LENGTH)
    message = models.TextField()
    action_label = models.CharField(max_length=ACTION_LABEL_MAX_LENGTH, blank=True)
    action_url = models.CharField(max_length=ACTION_URL_MAX_LENGTH, blank=True, validators=[validate_action_url])
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "-created_at"], name="notification_account_newest"),
            models.Index(fields=["account", "notification_type"], name="notification_account_type"),
        ]

    def __str__(self):
        return f"{self.notification_type}: {self.title}"

    @property
    def category(self) -> str:
        return CATEGORY_BY_TYPE[self.notification_type]


class NotificationReceipt(AccountOwnedModel):
    """One member's state of one notification: when they read it, when they deleted it from their
    inbox. No receipt means unread and kept; members never share one."""

    # No single-column indexes: the unique constraint leads with notification, the index below with user.
    notification = models.ForeignKey(Notification, on_delete=models.CASCADE, related_name="receipts", db_index=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+", db_index=False)
    read_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        constraints = [
            # Its index also answers "the caller's receipt of this notification", the inbox's correlated lookup.
            models.UniqueConstraint(fields=["notification", "user"], name="notification_receipt_one_per_user"),
        ]
        indexes = [
            # Read-all: the caller's receipts, narrowed to the notifications it marks.
            models.Index(fields=["user", "notification"], name="notification_receipt_user"),
        ]

    def __str__(self):
        return f"{self.user_id} on {self.notification_id}"


class Channel(models.TextChoices):
    IN_APP = "in_app", "In the app"
    EMAIL = "email", "E-mail"


# What a person gets of an event addressed to them when they chose nothing (#36): mentions come in
# the app and by e-mail.
DEFAULT_CHANNELS: dict[str, frozenset[str]] = {NotificationType.COMMENT_MENTION: frozenset({Channel.IN_APP, Channel.EMAIL})}
# The events a person may choose channels for.
PERSONAL_EVENTS = tuple(DEFAULT_CHANNELS)


class NotificationPreference(AccountOwnedModel):
    """How one person wants one kind of event addressed to them: in the app, by e-mail, both or
    neither. No row means ``DEFAULT_CHANNELS``."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+", db_index=False)
    notification_type = models.CharField(max_length=40, choices=NotificationType.choices)
    in_app = models.BooleanField(default=True)
    email = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "notification_type"], name="notification_preference_once")]
