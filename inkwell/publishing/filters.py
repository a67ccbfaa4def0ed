"""Query-string filters of the publisher's lists."""

from django_filters import rest_framework as filters

from inkwell.api.filters import IdFilter
from inkwell.publishing.models import Deployment, PublishingRecord, PublishStatus, PublishTrigger
from inkwell.writer.serializers import INVALID_STATUS


class PublishingRecordFilter(filters.FilterSet):
    site_id = IdFilter(field_name="site_id")
    content_id = IdFilter(field_name="content_id")
    status = filters.ChoiceFilter(choices=PublishStatus.choices, error_messages={"invalid_choice": INVALID_STATUS})
    trigger = filters.ChoiceFilter(choices=PublishTrigger.choices)

    class Meta:
        model = PublishingRecord
        fields = ["site_id", "content_id", "status", "trigger"]


class DeploymentFilter(filters.FilterSet):
    site_id = IdFilter(field_name="site_id")

    class Meta:
        model = Deployment
        fields = ["site_id"]
