"""The list filters of the jobs endpoints."""

from django_filters import rest_framework as filters

from inkwell.api.filters import IdFilter
from inkwell.jobs.models import Job, JobStatus


class JobFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=JobStatus.choices)
    kind = filters.CharFilter(max_length=60)
    site_id = IdFilter(field_name="site_id")

    class Meta:
        model = Job
        fields = ["status", "kind", "site_id"]
