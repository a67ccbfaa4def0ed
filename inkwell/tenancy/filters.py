"""The list filters of tenancy's endpoints."""

from django_filters import rest_framework as filters

from inkwell.api.filters import BooleanFilter, IdFilter
from inkwell.tenancy.models import Sector, Site, SiteUserAccess, User


class UserFilter(filters.FilterSet):
    role = filters.CharFilter(field_name="role__name")
    is_active = BooleanFilter()

    class Meta:
        model = User
        fields = ["role", "is_active"]


class SiteFilter(filters.FilterSet):
    is_active = BooleanFilter()

    class Meta:
        model = Site
        fields = ["is_active"]


class SectorFilter(filters.FilterSet):
    site_id = IdFilter(field_name="site_id")
    industry_sector_id = IdFilter(field_name="industry_sector_id")

    class Meta:
        model = Sector
        fields = ["site_id", "industry_sector_id"]


class SiteAccessFilter(filters.FilterSet):
    user_id = IdFilter(field_name="user_id")
    site_id = IdFilter(field_name="site_id")

    class Meta:
        model = SiteUserAccess
        fields = ["user_id", "site_id"]
