"""Input and output shapes of review together (#36): comments, review links, approvals
(contract section 12)."""

from django.utils import timezone
from rest_framework import serializers

from inkwell.api.serializers import RejectUnknownFieldsMixin
from inkwell.writer.models import CommentMention, ContentApproval, ContentComment, ReviewLink
from inkwell.writer.services import COMMENT_MAX_LENGTH

REQUIRED = "This field is required"


class AnchorSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    quote = serializers.CharField(max_length=2000, trim_whitespace=False, error_messages={"blank": REQUIRED})
    start = serializers.IntegerField(min_value=0, max_value=10_000_000, help_text="Where the passage starts in the article's visible text (a hint: the nearest occurrence of the quote is used).")
    end = serializers.IntegerField(min_value=0, max_value=10_000_000)

    def validate(self, attrs):
        if attrs["end"] < attrs["start"]:
            raise serializers.ValidationError({"end": ["end must be greater than or equal to start"]})
        return attrs


class CommentCreateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    body = serializers.CharField(max_length=COMMENT_MAX_LENGTH, error_messages={"blank": REQUIRED, "null": REQUIRED})
    anchor = AnchorSerializer(required=False, allow_null=True)
    parent_id = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**31 - 1)


class MentionSerializer(serializers.ModelSerializer):
    user_id = serializers.IntegerField(read_only=True)
    email = serializers.EmailField(source="user.email", read_only=True)

    class Meta:
        model = CommentMention
        fields = ["user_id", "email", "notified_in_app", "emailed"]


class CommentAnchorOutSerializer(serializers.Serializer):
    quote = serializers.CharField(source="anchor_quote")
    start = serializers.IntegerField(source="anchor_start")
    end = serializers.IntegerField(source="anchor_end")
    outdated = serializers.BooleanField()


class CommentSerializer(serializers.ModelSerializer):
    content_id = serializers.IntegerField(read_only=True)
    parent_id = serializers.IntegerField(read_only=True, allow_null=True)
    author_id = serializers.IntegerField(read_only=True, allow_null=True, help_text="The team member who wrote it; null for a comment made through a review link.")
    author_name = serializers.CharField(read_only=True, help_text="The member's name, or the name given on the review link.")
    review_link_id = serializers.IntegerField(read_only=True, allow_null=True)
    anchor = serializers.SerializerMethodField()
    resolved = serializers.SerializerMethodField()
    resolved_by_id = serializers.IntegerField(read_only=True, allow_null=True)
    unread = serializers.BooleanField(read_only=True, default=False, help_text="Written by someone else since the caller last marked the comments read.")
    mentions = MentionSerializer(many=True, read_only=True, help_text="Who was mentioned, and how each was told.")
    edited_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When its author last changed the text; null if never.")

    class Meta:
        model = ContentComment
        fields = [
            "id",
            "content_id",
            "parent_id",
            "body",
            "anchor",
            "author_id",
            "author_name",
            "review_link_id",
            "resolved",
            "resolved_at",
            "resolved_by_id",
            "resolved_by_name",
            "unread",
            "mentions",
            "edited_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_anchor(self, comment) -> CommentAnchorOutSerializer(allow_null=True):  # type: ignore[valid-type]
        return CommentAnchorOutSerializer(comment).data if comment.anchor_quote else None

    def get_resolved(self, comment) -> bool:
        return comment.resolved_at is not None


class CommentUpdateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A comment as the list answers it goes back as it is: its read-only fields are ignored."""

    echoes = CommentSerializer
    body = serializers.CharField(max_length=COMMENT_MAX_LENGTH, required=False, error_messages={"blank": REQUIRED, "null": REQUIRED})
    resolved = serializers.BooleanField(required=False)


class ReviewLinkCreateInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    expires_at = serializers.DateTimeField(required=False, allow_null=True, help_text="Default: in 14 days; at most 90 days ahead.")
    passcode = serializers.CharField(required=False, allow_blank=True, min_length=4, max_length=128, trim_whitespace=False)


class ReviewLinkSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField(help_text="Absolute; opens the preview and comments without signing in.")
    has_passcode = serializers.BooleanField(read_only=True)
    revoked_at = serializers.DateTimeField(read_only=True, allow_null=True)
    active = serializers.SerializerMethodField()

    class Meta:
        model = ReviewLink
        fields = ["id", "url", "expires_at", "created_at", "has_passcode", "revoked_at", "active"]

    def get_url(self, link) -> str:
        return self.context["link_url"](link)

    def get_active(self, link) -> bool:
        return link.revoked_at is None and link.expires_at > timezone.now()


class ApprovalSerializer(serializers.ModelSerializer):
    user_id = serializers.IntegerField(read_only=True, allow_null=True)
    review_link_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = ContentApproval
        fields = ["id", "step", "decision", "user_id", "reviewer_name", "review_link_id", "note", "created_at"]


class RequestChangesInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=COMMENT_MAX_LENGTH)
