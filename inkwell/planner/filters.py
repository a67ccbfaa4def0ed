"""Query-string filters of the planner's lists: keywords, clusters and ideas (the API's lists and
the console's pages alike)."""

from django.db.models import QuerySet

from inkwell.api.filters import ChoiceFilter, FilterSet, IntegerFilter, RangeCheckedForm, TextFilter, row_id_filter
from inkwell.keywords.models import MAX_VOLUME
from inkwell.planner.models import Cluster, ClusterStatus, ContentIdea, IdeaStatus, Keyword, KeywordStatus
from inkwell.planner.selectors import DEFAULT_KEYWORD_ORDERING, KeywordListFilters
from inkwell.planner.serializers import INVALID_STATUS

MAX_SEARCH_LENGTH = 100


def _listed(names: tuple[str, ...]) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}"


def ordered_stably(queryset: QuerySet, name: str, value: str) -> QuerySet:
    """The requested order with id in the same direction as the tie-breaker, so pages are stable."""
    return queryset.order_by(value, "-id" if value.startswith("-") else "id")


def ordering_filter(*fields: str) -> ChoiceFilter:
    """``?ordering=`` one of ``fields``, a leading ``-`` for descending; left out, the model's
    order (newest first)."""
    values = [prefix + field for field in fields for prefix in ("", "-")]
    return ChoiceFilter(
        choices=[(value, value) for value in values],
        method=ordered_stably,
        help_text=f"{_listed(fields)}; a leading - for descending. Newest first by default.",
        error_messages={"invalid_choice": f"Invalid ordering: use {_listed(fields)}, with a leading - for descending"},
    )


def status_filter(choices, help_text: str) -> ChoiceFilter:
    return ChoiceFilter(choices=choices, help_text=help_text, error_messages={"invalid_choice": INVALID_STATUS})


def search_filter(field_name: str, help_text: str) -> TextFilter:
    return TextFilter(field_name=field_name, lookup_expr="icontains", max_length=MAX_SEARCH_LENGTH, help_text=help_text)


class KeywordFilterForm(RangeCheckedForm):
    RANGES = (("difficulty_min", "difficulty_max"), ("volume_min", "volume_max"))


class KeywordFilter(FilterSet):
    site_id = row_id_filter("Only this site's keywords.")
    sector_id = row_id_filter("Only this sector's keywords.")
    cluster_id = row_id_filter("Only this cluster's keywords.")
    status = status_filter(KeywordStatus.choices, "`active`, `paused` or `archived`.")
    difficulty_min = IntegerFilter(field_name="difficulty", lookup_expr="gte", min_value=0, max_value=100, help_text="Only keywords this difficult or more.")
    difficulty_max = IntegerFilter(field_name="difficulty", lookup_expr="lte", min_value=0, max_value=100, help_text="Only keywords this difficult or less.")
    volume_min = IntegerFilter(field_name="volume", lookup_expr="gte", min_value=0, max_value=MAX_VOLUME, help_text="Only keywords with this volume or more.")
    volume_max = IntegerFilter(field_name="volume", lookup_expr="lte", min_value=0, max_value=MAX_VOLUME, help_text="Only keywords with this volume or less.")
    search = search_filter("keyword", "Part of the keyword, any case.")
    ordering = ordering_filter("keyword", "volume", "difficulty", "created_at")

    class Meta:
        model = Keyword
        form = KeywordFilterForm
        fields = ["site_id", "sector_id", "cluster_id", "status"]


def keyword_list_filters(query: dict, *, account_id: int, site_ids: frozenset[int] | None) -> KeywordListFilters:
    """The selectors' filters from a ``KeywordFilter`` query's cleaned data, for the caller who may
    see ``site_ids`` of the account (None: every site). A value the FilterSet leaves off (empty) is
    no filter here either."""
    return KeywordListFilters(
        account_id=account_id,
        site_ids=site_ids,
        site_id=query.get("site_id"),
        sector_id=query.get("sector_id"),
        cluster_id=query.get("cluster_id"),
        status=query.get("status") or "",
        difficulty_min=query.get("difficulty_min"),
        difficulty_max=query.get("difficulty_max"),
        volume_min=query.get("volume_min"),
        volume_max=query.get("volume_max"),
        search=query.get("search") or "",
        ordering=query.get("ordering") or DEFAULT_KEYWORD_ORDERING,
    )


class ClusterFilter(FilterSet):
    """Filters clusters that carry their totals (``selectors.with_cluster_totals``), which
    ``keyword_count`` and ``total_volume`` order by."""

    site_id = row_id_filter("Only this site's clusters.")
    sector_id = row_id_filter("Only this sector's clusters.")
    status = status_filter(ClusterStatus.choices, "`active` or `archived`.")
    search = search_filter("name", "Part of the name, any case.")
    ordering = ordering_filter("name", "keyword_count", "total_volume", "created_at")

    class Meta:
        model = Cluster
        fields = ["site_id", "sector_id", "status"]


class IdeaFilter(FilterSet):
    site_id = row_id_filter("Only this site's ideas.")
    sector_id = row_id_filter("Only this sector's ideas.")
    cluster_id = row_id_filter("Only this cluster's ideas.")
    status = status_filter(IdeaStatus.choices, "`new`, `converted` or `archived`.")
    search = search_filter("title", "Part of the title, any case.")
    ordering = ordering_filter("title", "created_at")

    class Meta:
        model = ContentIdea
        fields = ["site_id", "sector_id", "cluster_id", "status"]
