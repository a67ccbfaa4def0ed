from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from rest_framework import pagination
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from inkwell.api.envelope import Enveloped
from inkwell.api.sql import LARGEST_SQL_INTEGER

MAX_PAGE_SIZE = 100


def _positive_int(request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: ["A valid integer is required"]}) from None
    if value < 1:
        raise ValidationError({name: ["Ensure this value is greater than or equal to 1"]})
    return value


class RowsFirstPaginator(Paginator):
    """Reads the page before the count, and counts only when the page cannot tell the total.

    A page with some rows but fewer than ``per_page`` is the last one, so the total is its offset
    plus its rows; an empty first page means none at all. Most lists fit in one page, and their
    count query (built, compiled and run) cost as much as the page itself. A full page, an empty
    page past the first and ``page=last`` count as before.
    """

    def page(self, number):
        number = self.validate_page_number(number)
        bottom = (number - 1) * self.per_page
        # An offset past SQL's 64-bit integers is past any last page; the database would refuse it.
        rows = list(self.object_list[bottom : bottom + self.per_page]) if bottom + self.per_page <= LARGEST_SQL_INTEGER else []
        if len(rows) == self.per_page or (number > 1 and not rows):
            self.validate_number(number)  # counts: 404 past the last page, as before
        else:
            self.count = bottom + len(rows)  # sets the cached_property: the count query never runs
        return self._get_page(rows, number, self)

    def validate_page_number(self, number) -> int:
        """Django's ``validate_number`` without its upper bound, which needs the count."""
        try:
            if isinstance(number, float) and not number.is_integer():
                raise ValueError
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger(self.error_messages["invalid_page"]) from None
        if number < 1:
            raise EmptyPage(self.error_messages["min_page"])
        return number


class PageNumberPagination(pagination.PageNumberPagination):
    """``page`` (1-based) and ``page_size`` (default 20, larger values clamped to 100)."""

    django_paginator_class = RowsFirstPaginator
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request) -> int:
        requested = _positive_int(request, self.page_size_query_param)
        return self.page_size if requested is None else min(requested, self.max_page_size)

    def paginate_queryset(self, queryset, request, view=None):
        _positive_int(request, self.page_query_param)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:  # both are refused below 1 (_positive_int)
            parameter["schema"]["minimum"] = 1
        return parameters

    def get_paginated_response(self, data) -> Response:
        return Response(
            Enveloped(
                success=True,
                count=self.page.paginator.count,
                next=self.get_next_link(),
                previous=self.get_previous_link(),
                results=data,
            )
        )

    def get_paginated_response_schema(self, schema: dict) -> dict:
        base = super().get_paginated_response_schema(schema)
        base["properties"] = {"success": {"type": "boolean", "enum": [True]}, **base["properties"]}
        base["required"] = ["success", "count", "next", "previous", "results"]
        return base
