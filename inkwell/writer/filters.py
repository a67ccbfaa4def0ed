"""Query-string filters of the writer's lists."""

from django.db.models import Q
from django_filters import rest_framework as filters

from inkwell.api.filters import ChoiceFilter, IdFilter
from inkwell.writer.image_serializers import (
    INVALID_IMAGE_TYPE,
)
from inkwell.writer.models import Content, ContentRefresh, ContentStatus, Image, RefreshSendStatus, ImageStatus, ImageType, SiteStatus, Task, TaskStatus, Taxonomy, TaxonomyType
from inkwell.writer.serializers import INVALID_STATUS

MAX_SEARCH_LENGTH = 200


class StableOrderingFilter(filters.OrderingFilter):
    """The requested order, then the id (newest first), so that pages never repeat or skip rows on ties."""

    def filter(self, qs, value):
        ordered = super().filter(qs, value)
        return ordered if ordered is qs else ordered.order_by(*ordered.query.order_by, "-id")


class ChoiceInFilter(filters.BaseInFilter, filters.ChoiceFilter):
    """Comma-separated values, each one of the choices."""


def _search_field(*fields: str) -> filters.CharFilter:
    def search(queryset, name, value):
        condition = Q()
        for field in fields:
            condition |= Q(**{f"{field}__icontains": value})
        return queryset.filter(condition)

    return filters.CharFilter(method=search, max_length=MAX_SEARCH_LENGTH, help_text=f"Text to find in {', '.join(fields)}.")


class TaskFilter(filters.FilterSet):
    site_id = IdFilter(field_name="site_id")
    sector_id = IdFilter(field_name="sector_id")
    status = ChoiceFilter(choices=TaskStatus.choices, error_messages={"invalid_choice": INVALID_STATUS})
    search = _search_field("title")
    ordering = StableOrderingFilter(fields=("created_at", "updated_at", "title", "word_count", "status"))

    class Meta:
        model = Task
        fields = ["site_id", "sector_id", "status"]


class ContentFilter(filters.FilterSet):
    status__in = ChoiceInFilter(
        field_name="status", lookup_expr="in", choices=ContentStatus.choices, error_messages={"invalid_choice": INVALID_STATUS},
        help_text="Comma-separated workflow statuses, e.g. draft,review.",
    )
    status = ChoiceFilter(choices=ContentStatus.choices, error_messages={"invalid_choice": INVALID_STATUS})
    site_status = ChoiceFilter(choices=SiteStatus.choices, error_messages={"invalid_choice": "Invalid site status value"})
    site_id = IdFilter(field_name="site_id")
    sector_id = IdFilter(field_name="sector_id")
    task_id = IdFilter(field_name="task_id")
    search = _search_field("title", "focus_keyword")
    ordering = StableOrderingFilter(fields=("created_at", "updated_at", "title", "word_count", "status", "scheduled_publish_at", "published_at"))

    class Meta:
        model = Content
        fields = ["status__in", "status", "site_status", "site_id", "sector_id", "task_id"]


class TaxonomyFilter(filters.FilterSet):
    site_id = IdFilter(field_name="site_id")
    taxonomy_type = ChoiceFilter(choices=TaxonomyType.choices, error_messages={"invalid_choice": "Invalid taxonomy type"})
    parent_id = IdFilter(field_name="parent_id")
    search = _search_field("name", "slug")

    class Meta:
        model = Taxonomy
        fields = ["site_id", "taxonomy_type", "parent_id"]


class ImageFilter(filters.FilterSet):
    content_id = IdFilter(field_name="content_id")
    site_id = IdFilter(field_name="site_id")
    image_type = ChoiceFilter(choices=ImageType.choices, error_messages={"invalid_choice": INVALID_IMAGE_TYPE})
    status = ChoiceFilter(choices=ImageStatus.choices, error_messages={"invalid_choice": INVALID_STATUS})

    class Meta:
        model = Image
        fields = ["content_id", "site_id", "image_type", "status"]


class RefreshFilter(filters.FilterSet):
    site_id = IdFilter(field_name="site_id")
    content_id = IdFilter(field_name="content_id")
    status = ChoiceFilter(choices=ContentStatus.choices, error_messages={"invalid_choice": INVALID_STATUS})
    send_status = ChoiceFilter(choices=RefreshSendStatus.choices, error_messages={"invalid_choice": "Invalid send status value"})

    class Meta:
        model = ContentRefresh
        fields = ["site_id", "content_id", "status", "send_status"]
