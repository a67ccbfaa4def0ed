"""Input and output shapes of the writer's task, content and taxonomy endpoints."""

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inkwell.ai.types import STRUCTURES, TONES
from inkwell.api import fields
from inkwell.api.filters import MAX_ID
from inkwell.api.serializers import RejectUnknownFieldsMixin
from inkwell.planner.models import ContentIdea
from inkwell.planner.serializers import OVERLAP_FLAGGED_HELP, OVERLAPS_HELP, OverlapSerializer
from inkwell.tenancy.serializers import AccountSectorField, AccountSiteField, SiteSectorPayloadMixin
from inkwell.writer.models import Content, ContentRevision, ContentStatus, SiteStatus, Task, Taxonomy, TaxonomyType

# The spec's field messages (Errors / Field-level messages, Writer rows), word for word.
REQUIRED = "This field is required"
INVALID_STATUS = "Invalid status value"
PAST_PUBLISH_TIME = "The publish time must be in the future"
TAXONOMY_NOT_IN_ACCOUNT = "Taxonomy must belong to your account"

WORD_COUNT_RANGE = (100, 10_000)
WORD_COUNT_MESSAGE = f"Word count must be between {WORD_COUNT_RANGE[0]} and {WORD_COUNT_RANGE[1]}"
CONTENT_TYPES = ("post", "page")
META_TITLE_MAX = Content._meta.get_field("meta_title").max_length
META_DESCRIPTION_MAX = Content._meta.get_field("meta_description").max_length
MAX_BULK_TASKS = 500
MAX_LIST_ITEMS = 50
MAX_HTML_LENGTH = 500_000


class MemoizedLookupMixin:
    """A bulk payload names the same site and sector in every item: each id is looked up once per request."""

    def to_internal_value(self, data):
        memo = self.context.setdefault(f"lookups:{type(self).__name__}", {})
        key = repr(data)
        if key not in memo:
            memo[key] = super().to_internal_value(data)
        return memo[key]


class WriterSiteField(MemoizedLookupMixin, AccountSiteField):
    pass


class WriterSectorField(MemoizedLookupMixin, AccountSectorField):
    pass


@extend_schema_field(OpenApiTypes.INT)
class AccountIdeaField(serializers.PrimaryKeyRelatedField):
    default_error_messages = {"does_not_exist": "Idea must belong to your account", "incorrect_type": "Idea must belong to your account"}

    def get_queryset(self):
        return ContentIdea.objects.for_account(self.context["request"].account)


@extend_schema_field(OpenApiTypes.INT)
class AccountTaskField(serializers.PrimaryKeyRelatedField):
    default_error_messages = {"does_not_exist": "Task must belong to your account", "incorrect_type": "Task must belong to your account"}

    def get_queryset(self):
        return Task.objects.for_account(self.context["request"].account)


@extend_schema_field(OpenApiTypes.INT)
class AccountTaxonomyField(serializers.PrimaryKeyRelatedField):
    default_error_messages = {"does_not_exist": "Parent must belong to your account", "incorrect_type": "Parent must belong to your account"}

    def get_queryset(self):
        return Taxonomy.objects.for_account(self.context["request"].account)


def required_text(max_length: int, **kwargs) -> serializers.CharField:
    return serializers.CharField(max_length=max_length, error_messages={"blank": REQUIRED, "null": REQUIRED}, **kwargs)


def text_list(max_item_length: int, **kwargs) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.CharField(max_length=max_item_length), max_length=MAX_LIST_ITEMS, required=False, **kwargs
    )


# Tasks


class TaskSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    sector_id = serializers.IntegerField(read_only=True)
    idea_id = serializers.IntegerField(read_only=True, allow_null=True)
    cluster_id = serializers.IntegerField(read_only=True, allow_null=True)
    content_id = serializers.IntegerField(read_only=True, allow_null=True, help_text="The newest content written from this task.")
    keywords = serializers.ListField(child=serializers.CharField(), read_only=True)
    outline = serializers.ListField(child=serializers.CharField(), read_only=True)
    overlaps = OverlapSerializer(many=True, read_only=True, help_text=OVERLAPS_HELP)
    overlap_flagged = serializers.BooleanField(read_only=True, help_text=OVERLAP_FLAGGED_HELP)

    class Meta:
        model = Task
        fields = [
            "id",
            "site_id",
            "sector_id",
            "idea_id",
            "cluster_id",
            "title",
            "description",
            "keywords",
            "outline",
            "content_type",
            "content_structure",
            "word_count",
            "tone",
            "status",
            "content_id",
            "overlaps",
            "overlap_flagged",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class TaskInputSerializer(SiteSectorPayloadMixin, serializers.Serializer):
    """A task to create or change. Left out on creation, ``word_count``, ``tone`` and
    ``content_structure`` come from the account's content generation settings."""

    title = required_text(300)
    site_id = WriterSiteField(source="site")
    sector_id = WriterSectorField(source="sector")
    description = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    keywords = text_list(255, help_text="Target keywords; the first is the focus keyword.")
    outline = text_list(300, help_text="Section headings the article should follow.")
    content_type = serializers.ChoiceField(choices=CONTENT_TYPES, required=False, error_messages={"invalid_choice": "Invalid content type"})
    content_structure = serializers.ChoiceField(choices=STRUCTURES, required=False, error_messages={"invalid_choice": "Invalid content structure"})
    word_count = serializers.IntegerField(
        min_value=WORD_COUNT_RANGE[0],
        max_value=WORD_COUNT_RANGE[1],
        required=False,
        error_messages={"min_value": WORD_COUNT_MESSAGE, "max_value": WORD_COUNT_MESSAGE},
    )
    tone = serializers.ChoiceField(choices=TONES, required=False, error_messages={"invalid_choice": "Invalid tone"})
    idea_id = AccountIdeaField(source="idea", required=False, allow_null=True)

    def validate(self, attrs):
        attrs = super().validate(attrs)
        idea, site = attrs.get("idea"), attrs.get("site")
        if idea is not None and site is not None and idea.site_id != site.pk:
            raise serializers.ValidationError({"idea_id": ["Idea must belong to the selected site"]})
        return attrs


class BoundedListField(serializers.ListField):
    """Checks the length before validating the items, so an oversized payload is refused at once."""

    def to_internal_value(self, data):
        if isinstance(data, list) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class TaskBulkCreateInputSerializer(serializers.Serializer):
    tasks = BoundedListField(
        child=TaskInputSerializer(),
        allow_empty=False,
        max_length=MAX_BULK_TASKS,
        error_messages={"empty": "Give at least one task", "max_length": f"At most {MAX_BULK_TASKS} tasks in one request"},
    )


class TaskBulkCreateResultSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="How many tasks were created.")
    task_ids = serializers.ListField(child=serializers.IntegerField(), help_text="Their ids, in the order given.")


# Content


class ContentListItemSerializer(serializers.ModelSerializer):
    """A content in lists: everything but the body, which ``GET /writer/content/{id}/`` returns."""

    site_id = serializers.IntegerField(read_only=True)
    sector_id = serializers.IntegerField(read_only=True, allow_null=True)
    task_id = serializers.IntegerField(read_only=True, allow_null=True)
    keywords = serializers.ListField(child=serializers.CharField(), read_only=True)
    # Plain strings in the schema, without the model fields' URL and slug formats: both may be empty.
    slug = serializers.CharField(read_only=True, help_text="The post's slug on the CMS; made from the title when empty.")
    external_url = serializers.CharField(read_only=True, help_text="The post's URL on the CMS; empty until it is published.")

    class Meta:
        model = Content
        fields = [
            "id",
            "site_id",
            "sector_id",
            "task_id",
            "title",
            "slug",
            "excerpt",
            "meta_title",
            "meta_description",
            "focus_keyword",
            "keywords",
            "word_count",
            "status",
            "site_status",
            "scheduled_publish_at",
            "published_at",
            "external_id",
            "external_url",
            "created_at",
            "updated_at",
            "version",
        ]
        read_only_fields = fields
        extra_kwargs = {"version": {"help_text": "One more with every change: send it back with an update to refuse a concurrent modification (409)."}}


class ContentSerializer(ContentListItemSerializer):
    taxonomy_ids = serializers.SerializerMethodField(help_text="The site's categories and tags the content is filed under.")
    quality_passed = serializers.BooleanField(
        allow_null=True, read_only=True, help_text="Whether the quality report passed when the content was last gated (review or approval); null: never gated."
    )
    quality_summary = serializers.JSONField(read_only=True, help_text="That report's failing kinds, counts per kind and first findings.")
    quality_override_by_id = serializers.IntegerField(allow_null=True, read_only=True, help_text="The person who approved it although the report did not pass.")
    quality_override_at = serializers.DateTimeField(allow_null=True, read_only=True)

    class Meta(ContentListItemSerializer.Meta):
        fields = [
            *ContentListItemSerializer.Meta.fields[:7],
            "html",
            *ContentListItemSerializer.Meta.fields[7:],
            "taxonomy_ids",
            "quality_passed",
            "quality_summary",
            "quality_override_by_id",
            "quality_override_at",
        ]
        read_only_fields = fields

    def get_taxonomy_ids(self, content) -> list[int]:
        return sorted(taxonomy.pk for taxonomy in content.taxonomies.all())


class ContentCreatedSerializer(ContentSerializer):
    overlaps = OverlapSerializer(
        many=True,
        read_only=True,
        help_text="The site's ideas, tasks and contents this content competes with for the same search intent "
        "(similarity at least AI_OVERLAP_SIMILARITY), closest first, at most 10; in this answer only. Nothing is blocked.",
    )

    class Meta(ContentSerializer.Meta):
        fields = [*ContentSerializer.Meta.fields, "overlaps"]
        read_only_fields = fields


class ContentFieldsMixin(serializers.Serializer):
    """The fields a person edits; the body is sanitised by the service, the meta lengths checked here."""

    html = serializers.CharField(max_length=MAX_HTML_LENGTH, required=False, allow_blank=True, trim_whitespace=False)
    meta_title = serializers.CharField(
        max_length=META_TITLE_MAX,
        required=False,
        allow_blank=True,
        error_messages={"max_length": f"Meta title must be at most {META_TITLE_MAX} characters"},
    )
    meta_description = serializers.CharField(
        max_length=META_DESCRIPTION_MAX,
        required=False,
        allow_blank=True,
        error_messages={"max_length": f"Meta description must be at most {META_DESCRIPTION_MAX} characters"},
    )
    focus_keyword = serializers.CharField(max_length=255, required=False, allow_blank=True)
    keywords = text_list(255)
    slug = serializers.SlugField(max_length=200, allow_unicode=True, required=False, allow_blank=True, help_text="The post's slug on the CMS; made from the title when empty.")
    excerpt = serializers.CharField(max_length=1000, required=False, allow_blank=True)
    taxonomy_ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        max_length=MAX_LIST_ITEMS,
        required=False,
        source="taxonomies",
        help_text="Categories and tags of the content's site.",
    )

    def validate_taxonomy_ids(self, ids: list[int]) -> list[Taxonomy]:
        found = {taxonomy.pk: taxonomy for taxonomy in Taxonomy.objects.for_account(self.context["request"].account).filter(pk__in=ids)}
        if len(found) != len(set(ids)):
            raise serializers.ValidationError(TAXONOMY_NOT_IN_ACCOUNT)
        return list(found.values())


class ContentCreateInputSerializer(SiteSectorPayloadMixin, ContentFieldsMixin):
    title = required_text(300)
    site_id = WriterSiteField(source="site")
    sector_id = WriterSectorField(source="sector", required=False, allow_null=True)
    task_id = AccountTaskField(source="task", required=False, allow_null=True)

    def validate(self, attrs):
        attrs = super().validate(attrs)
        task, site = attrs.get("task"), attrs.get("site")
        if task is not None and site is not None and task.site_id != site.pk:
            raise serializers.ValidationError({"task_id": ["Task must belong to the selected site"]})
        return attrs


class ContentUpdateInputSerializer(ContentFieldsMixin):
    """``status`` moves the workflow: draft → review, review → approved or back to draft, approved → review."""

    title = required_text(300)
    sector_id = WriterSectorField(source="sector", required=False, allow_null=True)
    status = serializers.ChoiceField(choices=ContentStatus.choices, required=False, error_messages={"invalid_choice": INVALID_STATUS})
    version = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        help_text="The content's `version` the change was made from. When the content is at another version "
        "(someone else changed it since), nothing changes and the answer is 409 `concurrent_modification`. "
        "Without it, the change applies to whatever the content is now.",
    )


class ContentAutosaveInputSerializer(ContentFieldsMixin):
    """What the editor keeps of unsaved typing: the title may be empty while it is being written."""

    title = serializers.CharField(max_length=300, required=False, allow_blank=True)


class ContentRevisionSerializer(serializers.ModelSerializer):
    content_id = serializers.IntegerField(read_only=True)
    created_by_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = ContentRevision
        fields = [
            "id",
            "content_id",
            "title",
            "html",
            "excerpt",
            "meta_title",
            "meta_description",
            "focus_keyword",
            "status",
            "is_autosave",
            "created_by_id",
            "created_at",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "is_autosave": {"help_text": "What a person typed in the console's editor and did not save (its autosave); not a version the content had."},
        }


class ScheduleInputSerializer(serializers.Serializer):
    scheduled_publish_at = fields.DateTimeField(help_text="When to publish: a timestamp in the future.")
    override_rules = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Schedule it even outside the site's publishing days, time slots or limits (else 409 outside_publishing_rules); the override is recorded on the content.",
    )

    def validate_scheduled_publish_at(self, value):
        if value <= timezone.now():
            raise serializers.ValidationError(PAST_PUBLISH_TIME)
        return value


class ScheduleResultSerializer(serializers.Serializer):
    """The spec's schedule result."""

    content_id = serializers.IntegerField()
    site_status = serializers.ChoiceField(choices=SiteStatus.choices)
    scheduled_publish_at = serializers.DateTimeField(allow_null=True)


class ScheduledResultSerializer(ScheduleResultSerializer):
    """What ``schedule`` answers: the schedule result and the rule an override set aside."""

    overridden_rule = serializers.CharField(
        allow_null=True, help_text="The publishing rule override_rules set aside, recorded on the content; null when none was."
    )


# Taxonomies


class TaxonomySerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    parent_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = Taxonomy
        fields = ["id", "site_id", "taxonomy_type", "name", "slug", "parent_id", "external_id", "created_at"]
        read_only_fields = fields


class TaxonomyInputSerializer(serializers.Serializer):
    site_id = WriterSiteField(source="site")
    taxonomy_type = serializers.ChoiceField(choices=TaxonomyType.choices, error_messages={"invalid_choice": "Invalid taxonomy type"})
    name = required_text(200)
    slug = serializers.SlugField(max_length=200, allow_unicode=True, required=False, allow_blank=True, help_text="Made from the name when left out.")
    parent_id = AccountTaxonomyField(source="parent", required=False, allow_null=True, help_text="A category of the same site (categories only).")

    def validate(self, attrs):
        parent, site, taxonomy_type = attrs.get("parent"), attrs.get("site"), attrs.get("taxonomy_type")
        if parent is not None:
            if taxonomy_type != TaxonomyType.CATEGORY:
                raise serializers.ValidationError({"parent_id": ["Only categories have a parent"]})
            if parent.site_id != site.pk or parent.taxonomy_type != TaxonomyType.CATEGORY:
                raise serializers.ValidationError({"parent_id": ["Parent must be a category of the selected site"]})
        return attrs


# The quality report (issue 35; contract section 12)

QUALITY_KINDS = ("unsupported_claim", "repetition", "duplicate", "readability", "structure", "keyword")


class QualityFindingSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=QUALITY_KINDS)
    message = serializers.CharField()
    excerpt = serializers.CharField(allow_blank=True, help_text="The passage the finding is about (shortened past 160 characters).")
    start = serializers.IntegerField(help_text="Offset of the passage in `text` (or in the meta field `field` names); start == end: the article as a whole.")
    end = serializers.IntegerField()
    suggestion = serializers.CharField(allow_blank=True, help_text="A suggested fix.")
    field = serializers.ChoiceField(choices=("body", "meta_title", "meta_description"), help_text="What the offsets index: the body's `text` or a meta field.")


class QualityReportSerializer(serializers.Serializer):
    passed = serializers.BooleanField(help_text="Whether the report passes the site's thresholds: with auto-approval on, only such content is approved without a person.")
    findings = QualityFindingSerializer(many=True)
    scores = serializers.DictField(help_text="reading_ease, grade, word_count, headings, keyword_coverage (0-4), repeated_sentences, repeated_phrases, closest_overlap and closest_id, unsupported_claims, findings (counts per kind), failing (the kinds over their allowance).")
    text = serializers.CharField(allow_blank=True, help_text="The article's visible text, its blocks joined by a blank line: what `start` and `end` index.")


class QualityAllowedSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """How many findings of each kind a passing draft may still have."""

    unsupported_claim = serializers.IntegerField(min_value=0, max_value=1000, required=False)
    repetition = serializers.IntegerField(min_value=0, max_value=1000, required=False)
    duplicate = serializers.IntegerField(min_value=0, max_value=1000, required=False)
    readability = serializers.IntegerField(min_value=0, max_value=1000, required=False)
    structure = serializers.IntegerField(min_value=0, max_value=1000, required=False)
    keyword = serializers.IntegerField(min_value=0, max_value=1000, required=False)


class QualityThresholdsSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    min_reading_ease = serializers.FloatField(min_value=-100, max_value=121, required=False, help_text="Flesch reading ease of the body, at least.")
    max_grade = serializers.FloatField(min_value=0, max_value=30, required=False, help_text="Flesch-Kincaid grade, at most (default: the voice's grade + 2, else 12).")
    max_sentence_words = serializers.IntegerField(min_value=5, max_value=200, required=False)
    max_paragraph_words = serializers.IntegerField(min_value=20, max_value=2000, required=False)
    words_per_heading = serializers.IntegerField(min_value=50, max_value=10000, required=False, help_text="At least one H2/H3 per this many words.")
    duplicate_overlap = serializers.FloatField(min_value=0.05, max_value=1, required=False, help_text="Estimated overlap (Jaccard of 5-word shingles) from which another page is a near-duplicate.")
    allowed = QualityAllowedSerializer(required=False)


class SiteEditorialSerializer(serializers.Serializer):
    site_id = serializers.IntegerField(read_only=True)
    brief_required = serializers.BooleanField(help_text="Drafts are written from an approved brief (on for sites made in the console; off for sites made through the API until switched on).")
    stop_at_brief = serializers.BooleanField(help_text="Automation stops at a brief that is ready and waits for a person to approve it.")
    thresholds = serializers.DictField(help_text="The thresholds saved for the site (the rest take the defaults).")
    effective_thresholds = serializers.DictField(read_only=True, help_text="Every threshold the quality report applies to the site's drafts.")


class SiteEditorialInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    echoes = SiteEditorialSerializer

    brief_required = serializers.BooleanField(required=False)
    stop_at_brief = serializers.BooleanField(required=False)
    thresholds = QualityThresholdsSerializer(required=False, help_text="Replaces the saved thresholds; fields left out take the defaults.")


# Briefs (issue 35)


class BriefOutlineItemSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    level = serializers.ChoiceField(choices=(2, 3), help_text="2 for an H2, 3 for an H3 under the H2 before it.")
    text = serializers.CharField(max_length=200)


class BriefSourceSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    url = fields.WebURLField(max_length=500, required=False, allow_blank=True)
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True)

    def validate(self, attrs):
        if not (attrs.get("url") or attrs.get("note", "").strip()):
            raise serializers.ValidationError("Give a URL or a note")
        return {"url": attrs.get("url", ""), "note": attrs.get("note", "")}


class BriefLinkSerializer(serializers.Serializer):
    content_id = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    title = serializers.CharField(read_only=True)
    url = serializers.CharField(read_only=True)


class BriefSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    task_id = serializers.IntegerField(read_only=True)
    site_id = serializers.IntegerField(read_only=True)
    title = serializers.CharField()
    angle = serializers.CharField(allow_blank=True)
    reader = serializers.CharField(allow_blank=True)
    outline = BriefOutlineItemSerializer(many=True)
    keywords = serializers.ListField(child=serializers.CharField(), help_text="The primary keyword first.")
    target_length = serializers.IntegerField()
    questions = serializers.ListField(child=serializers.CharField())
    internal_links = BriefLinkSerializer(many=True, help_text="Live articles of the site to link to.")
    sources = BriefSourceSerializer(many=True, help_text="URLs or notes the writer must use; a claim a note contains counts as backed.")
    status = serializers.ChoiceField(choices=("ready", "approved"), read_only=True)
    approved_by_id = serializers.IntegerField(allow_null=True, read_only=True)
    approved_at = serializers.DateTimeField(allow_null=True, read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)


class BriefInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    echoes = BriefSerializer

    title = serializers.CharField(max_length=300, required=False)
    angle = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    reader = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    outline = BriefOutlineItemSerializer(many=True, required=False, max_length=40)
    keywords = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=20, help_text="The primary keyword first.")
    target_length = serializers.IntegerField(min_value=100, max_value=10000, required=False)
    questions = serializers.ListField(child=serializers.CharField(max_length=300), required=False, max_length=15)
    internal_links = BriefLinkSerializer(many=True, required=False, max_length=20)
    sources = BriefSourceSerializer(many=True, required=False, max_length=30)


# The site's voice (issue 35)


class VoiceSerializer(serializers.Serializer):
    site_id = serializers.IntegerField(read_only=True)
    tone = serializers.CharField()
    person = serializers.ChoiceField(choices=("first", "second", "third"))
    reading_grade = serializers.FloatField()
    sentence_words = serializers.IntegerField()
    words_to_use = serializers.ListField(child=serializers.CharField())
    words_to_avoid = serializers.ListField(child=serializers.CharField())
    examples = serializers.ListField(child=serializers.CharField())
    measured_posts = serializers.IntegerField(read_only=True, help_text="How many published posts the last proposal measured (0: set by hand).")


class VoiceInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    echoes = VoiceSerializer

    tone = serializers.ChoiceField(choices=TONES, required=False)
    person = serializers.ChoiceField(choices=("first", "second", "third"), required=False)
    reading_grade = serializers.FloatField(min_value=1, max_value=20, required=False)
    sentence_words = serializers.IntegerField(min_value=5, max_value=60, required=False)
    words_to_use = serializers.ListField(child=serializers.CharField(max_length=60), max_length=50, required=False)
    words_to_avoid = serializers.ListField(child=serializers.CharField(max_length=60), max_length=50, required=False)
    examples = serializers.ListField(child=serializers.CharField(max_length=2000), max_length=2, required=False, help_text="One or two example paragraphs.")
