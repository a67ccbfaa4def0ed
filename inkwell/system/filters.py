"""The list filters of system's endpoints."""

from django_filters import rest_framework as filters

from inkwell.api.filters import BooleanFilter
from inkwell.system.models import AIModel, AIModelKind


class AIModelFilter(filters.FilterSet):
    kind = filters.ChoiceFilter(choices=AIModelKind.choices)
    is_active = BooleanFilter()

    class Meta:
        model = AIModel
        fields = ["kind", "is_active"]
