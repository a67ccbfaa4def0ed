"""Query-string filters of the integration list."""

from django_filters import rest_framework as filters

from inkwell.api.filters import BooleanFilter, IdFilter
from inkwell.integration.models import ConnectionStatus, Platform, SiteIntegration


class IntegrationFilter(filters.FilterSet):
    site_id = IdFilter(field_name="site_id")
    platform = filters.ChoiceFilter(choices=Platform.choices, error_messages={"invalid_choice": "Invalid platform"})
    connection_status = filters.ChoiceFilter(choices=ConnectionStatus.choices, error_messages={"invalid_choice": "Invalid status value"})
    is_active = BooleanFilter()

    class Meta:
        model = SiteIntegration
        fields = ["site_id", "platform", "connection_status", "is_active"]
