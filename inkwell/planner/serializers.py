"""Input and output shapes of the planner's keyword, cluster and idea endpoints."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inkwell.ai.types import STRUCTURES
from inkwell.api.filters import MAX_ID
from inkwell.keywords.models import DIFFICULTY_LABELS, SeedKeyword
from inkwell.planner.models import Cluster, ClusterStatus, ContentIdea, IdeaStatus, Keyword, KeywordStatus
from inkwell.planner.selectors import SkipReason
from inkwell.planner.services import CONTENT_TYPES, MAX_BULK_IDS, MAX_CLUSTER_KEYWORDS, MAX_IDEA_CLUSTERS, TaskSkipReason
from inkwell.tenancy.serializers import AccountSectorField, AccountSiteField, SiteSectorPayloadMixin

# The spec's field messages (Errors / Field-level messages, Planner rows), word for word.
REQUIRED = "This field is required"
INVALID_SEED_KEYWORD = "Invalid seed keyword"
INVALID_STATUS = "Invalid status value"
SEED_NOT_IN_SECTOR = "Seed keyword must belong to the selected sector's industry"
INVALID_CLUSTER = "Cluster must belong to your account"
CLUSTER_NOT_IN_SITE = "Cluster must belong to the same site"

MAX_LIST_ITEMS = 50
IDEAS_PER_CLUSTER_RANGE = (1, 10)
DEFAULT_IDEAS_PER_CLUSTER = 3


def status_field(choices, **kwargs) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=choices, error_messages={"invalid_choice": INVALID_STATUS, "null": INVALID_STATUS}, **kwargs)


def id_list(*, max_length: int = MAX_BULK_IDS, **kwargs) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        allow_empty=False,
        max_length=max_length,
        error_messages={"empty": "Send at least one id", "null": REQUIRED},
        **kwargs,
    )


def text_list(max_item_length: int, **kwargs) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(max_length=max_item_length), max_length=MAX_LIST_ITEMS, required=False, **kwargs)


# Cannibalization guard (#19, inkwell.planner.overlaps)


class OverlapPieceSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The idea's, task's or content's id.")
    kind = serializers.CharField(help_text="`idea`, `task` or `content` (posts synced from the CMS are contents).")
    title = serializers.CharField()


class OverlapSerializer(OverlapPieceSerializer):
    similarity = serializers.FloatField(help_text="Cosine similarity of the two pieces' meaning (title and target keywords), 0 to 1.")


class OverlapPairSerializer(serializers.Serializer):
    site_id = serializers.IntegerField()
    similarity = serializers.FloatField(help_text="Cosine similarity of the two pieces' meaning, 0 to 1; closest pairs first.")
    first = OverlapPieceSerializer()
    second = OverlapPieceSerializer()


OVERLAPS_HELP = (
    "The site's ideas, tasks and contents this one competed with for the same search intent when it was created "
    "(similarity at least AI_OVERLAP_SIMILARITY), closest first, at most 10. Informational: nothing is blocked."
)
OVERLAP_FLAGGED_HELP = "True when `overlaps` was not empty at creation."


@extend_schema_field(OpenApiTypes.INT)
class SeedKeywordField(serializers.PrimaryKeyRelatedField):
    default_error_messages = {"does_not_exist": INVALID_SEED_KEYWORD, "incorrect_type": INVALID_SEED_KEYWORD}

    def get_queryset(self):
        return SeedKeyword.objects.all()


@extend_schema_field(OpenApiTypes.INT)
class AccountClusterField(serializers.PrimaryKeyRelatedField):
    """A ``cluster_id`` in a payload: one of the caller's account's clusters."""

    default_error_messages = {"does_not_exist": INVALID_CLUSTER, "incorrect_type": INVALID_CLUSTER}

    def get_queryset(self):
        return Cluster.objects.for_account(self.context["request"].account)


# Keywords


class KeywordSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    sector_id = serializers.IntegerField(read_only=True)
    seed_keyword_id = serializers.IntegerField(read_only=True)
    cluster_id = serializers.IntegerField(read_only=True, allow_null=True)
    cluster_name = serializers.CharField(source="cluster.name", read_only=True, allow_null=True, default=None)
    difficulty = serializers.IntegerField(read_only=True, help_text="0..100, copied from the library.")
    difficulty_band = serializers.SerializerMethodField(help_text="`easy`, `medium`, `hard` or `very_hard`, as in the library.")
    status = serializers.ChoiceField(
        choices=KeywordStatus.choices, read_only=True, help_text="`active` (default), `paused` (kept out of clustering) or `archived`."
    )
    credits_paid = serializers.IntegerField(read_only=True, help_text="What adding the keyword cost (its library `credit_cost`).")

    class Meta:
        model = Keyword
        fields = [
            "id",
            "site_id",
            "sector_id",
            "seed_keyword_id",
            "cluster_id",
            "cluster_name",
            "keyword",
            "volume",
            "difficulty",
            "difficulty_band",
            "country",
            "status",
            "credits_paid",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_difficulty_band(self, keyword: Keyword) -> str:
        return DIFFICULTY_LABELS[min(keyword.difficulty, 100)]


class KeywordCreateInputSerializer(SiteSectorPayloadMixin, serializers.Serializer):
    seed_keyword_id = SeedKeywordField(source="seed_keyword")
    site_id = AccountSiteField(source="site")
    sector_id = AccountSectorField(source="sector")
    status = status_field(KeywordStatus.choices, required=False, default=KeywordStatus.ACTIVE)

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if attrs["seed_keyword"].industry_sector_id != attrs["sector"].industry_sector_id:
            raise serializers.ValidationError({"seed_keyword_id": [SEED_NOT_IN_SECTOR]})
        return attrs


class KeywordUpdateInputSerializer(serializers.Serializer):
    """Fields left out keep their value; ``cluster_id`` null takes the keyword out of its cluster."""

    status = status_field(KeywordStatus.choices, required=False)
    cluster_id = AccountClusterField(source="cluster", required=False, allow_null=True)


class BulkIdsInputSerializer(serializers.Serializer):
    ids = id_list(help_text=f"Up to {MAX_BULK_IDS} keyword ids.")


class BulkStatusInputSerializer(BulkIdsInputSerializer):
    status = status_field(KeywordStatus.choices, help_text="`active`, `paused` or `archived`.")


class BulkDeleteResultSerializer(serializers.Serializer):
    deleted = serializers.IntegerField(help_text="How many keywords were deleted.")
    not_found = serializers.ListField(child=serializers.IntegerField(), help_text="Ids that name none of the caller's keywords.")


class BulkStatusResultSerializer(serializers.Serializer):
    updated = serializers.IntegerField(help_text="How many keywords now have the status.")
    not_found = serializers.ListField(child=serializers.IntegerField(), help_text="Ids that name none of the caller's keywords.")


class AddToWorkflowInputSerializer(SiteSectorPayloadMixin, serializers.Serializer):
    seed_keyword_ids = id_list(help_text=f"Library keyword ids, up to {MAX_BULK_IDS}; only the sector's industry sector's keywords are added.")
    site_id = AccountSiteField(source="site")
    sector_id = AccountSectorField(source="sector")


class SkippedSeedKeywordSerializer(serializers.Serializer):
    seed_keyword_id = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=SkipReason.choices,
        help_text="`already_added`: the site has it; `not_in_sector`: another industry sector's keyword; `not_found`: no such library keyword.",
    )


class AddToWorkflowResultSerializer(serializers.Serializer):
    added = serializers.IntegerField(help_text="How many keywords were added to the site.")
    skipped = SkippedSeedKeywordSerializer(many=True)
    credits_used = serializers.IntegerField(help_text="What the paid keywords among them cost, charged at once.")


# Clusters


class ClusterSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    sector_id = serializers.IntegerField(read_only=True, allow_null=True)
    status = serializers.ChoiceField(choices=ClusterStatus.choices, read_only=True, help_text="`active` or `archived`.")
    keyword_count = serializers.IntegerField(read_only=True)
    total_volume = serializers.IntegerField(read_only=True, help_text="The sum of its keywords' volumes.")

    class Meta:
        model = Cluster
        fields = ["id", "site_id", "sector_id", "name", "description", "status", "keyword_count", "total_volume", "created_at", "updated_at"]
        read_only_fields = fields


class ClusterCreateInputSerializer(SiteSectorPayloadMixin, serializers.Serializer):
    name = serializers.CharField(max_length=200, error_messages={"blank": REQUIRED, "null": REQUIRED})
    site_id = AccountSiteField(source="site")
    sector_id = AccountSectorField(source="sector", required=False, allow_null=True, default=None)
    description = serializers.CharField(max_length=5000, required=False, allow_blank=True, default="")
    status = status_field(ClusterStatus.choices, required=False, default=ClusterStatus.ACTIVE)


class ClusterUpdateInputSerializer(serializers.Serializer):
    """Fields left out keep their value; the site of a cluster does not change."""

    name = serializers.CharField(max_length=200, required=False, error_messages={"blank": REQUIRED, "null": REQUIRED})
    description = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    status = status_field(ClusterStatus.choices, required=False)
    sector_id = AccountSectorField(source="sector", required=False, allow_null=True)


class AutoClusterInputSerializer(SiteSectorPayloadMixin, serializers.Serializer):
    site_id = AccountSiteField(source="site")
    sector_id = AccountSectorField(source="sector", required=False, allow_null=True, default=None)
    keyword_ids = id_list(
        max_length=MAX_CLUSTER_KEYWORDS,
        required=False,
        help_text=(
            f"The keywords to cluster (up to {MAX_CLUSTER_KEYWORDS}), any status, clustered or not. Left out: the site's "
            f"(or sector's) unclustered active keywords, the {MAX_CLUSTER_KEYWORDS} with the highest volume first."
        ),
    )


class GenerateIdeasInputSerializer(serializers.Serializer):
    cluster_ids = id_list(max_length=MAX_IDEA_CLUSTERS, help_text=f"Up to {MAX_IDEA_CLUSTERS} clusters of one site.")
    ideas_per_cluster = serializers.IntegerField(
        min_value=IDEAS_PER_CLUSTER_RANGE[0], max_value=IDEAS_PER_CLUSTER_RANGE[1], required=False, default=DEFAULT_IDEAS_PER_CLUSTER
    )


# Ideas


class IdeaSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    sector_id = serializers.IntegerField(read_only=True, allow_null=True)
    cluster_id = serializers.IntegerField(read_only=True, allow_null=True)
    target_keywords = serializers.ListField(child=serializers.CharField(), read_only=True)
    outline = serializers.ListField(child=serializers.CharField(), read_only=True)
    status = serializers.ChoiceField(
        choices=IdeaStatus.choices, read_only=True, help_text="`new`, `converted` (a writer task was made from it) or `archived`."
    )
    overlaps = OverlapSerializer(many=True, read_only=True, help_text=OVERLAPS_HELP)
    overlap_flagged = serializers.BooleanField(read_only=True, help_text=OVERLAP_FLAGGED_HELP)

    class Meta:
        model = ContentIdea
        fields = [
            "id",
            "site_id",
            "sector_id",
            "cluster_id",
            "title",
            "description",
            "content_type",
            "content_structure",
            "target_keywords",
            "outline",
            "status",
            "overlaps",
            "overlap_flagged",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class OverlapListQuerySerializer(serializers.Serializer):
    site_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="The site whose competing pairs to list.")


class IdeaFieldsMixin(serializers.Serializer):
    description = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    content_type = serializers.ChoiceField(choices=CONTENT_TYPES, required=False, error_messages={"invalid_choice": "Invalid content type"})
    content_structure = serializers.ChoiceField(choices=STRUCTURES, required=False, error_messages={"invalid_choice": "Invalid content structure"})
    target_keywords = text_list(255, help_text="The keywords the article targets; the first is the focus keyword.")
    outline = text_list(300, help_text="Section headings.")


class IdeaCreateInputSerializer(SiteSectorPayloadMixin, IdeaFieldsMixin):
    title = serializers.CharField(max_length=300, error_messages={"blank": REQUIRED, "null": REQUIRED})
    site_id = AccountSiteField(source="site")
    sector_id = AccountSectorField(source="sector", required=False, allow_null=True, default=None)
    cluster_id = AccountClusterField(source="cluster", required=False, allow_null=True, default=None)
    status = status_field(IdeaStatus.choices, required=False, default=IdeaStatus.NEW)

    def validate(self, attrs):
        attrs = super().validate(attrs)
        cluster = attrs.get("cluster")
        if cluster is not None and cluster.site_id != attrs["site"].pk:
            raise serializers.ValidationError({"cluster_id": [CLUSTER_NOT_IN_SITE]})
        return attrs


class IdeaUpdateInputSerializer(IdeaFieldsMixin):
    """Fields left out keep their value; the site of an idea does not change."""

    title = serializers.CharField(max_length=300, required=False, error_messages={"blank": REQUIRED, "null": REQUIRED})
    sector_id = AccountSectorField(source="sector", required=False, allow_null=True)
    cluster_id = AccountClusterField(source="cluster", required=False, allow_null=True)
    status = status_field(IdeaStatus.choices, required=False)


class CreateTasksInputSerializer(serializers.Serializer):
    idea_ids = id_list(max_length=MAX_BULK_IDS, help_text="The ideas to turn into writer tasks.")


class SkippedIdeaSerializer(serializers.Serializer):
    idea_id = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=TaskSkipReason.choices,
        help_text="`already_converted`: it has a task (`task_id`); `not_found`: none of the caller's ideas; `no_sector`: its site has no sector.",
    )
    task_id = serializers.IntegerField(allow_null=True, help_text="The task the idea already became.")


class CreateTasksResultSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="How many tasks were created.")
    task_ids = serializers.ListField(child=serializers.IntegerField(), help_text="The new tasks, in the order of `idea_ids`.")
    skipped = SkippedIdeaSerializer(many=True)
