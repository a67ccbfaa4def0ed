"""The list filters of billing's endpoints."""

from datetime import timedelta

from django_filters import rest_framework as filters

from inkwell.api.fields import DateFilter
from inkwell.billing import serializers as s
from inkwell.billing.models import CreditTransaction, CreditUsage, OperationType, TransactionType


class DateRangeFilterSet(filters.FilterSet):
    """``start_date`` / ``end_date``: whole UTC days, both included."""

    start_date = DateFilter(method="filter_start_date")
    end_date = DateFilter(method="filter_end_date")

    def filter_start_date(self, queryset, name, value):
        return queryset.filter(created_at__gte=s.start_of_day(value))

    def filter_end_date(self, queryset, name, value):
        return queryset.filter(created_at__lt=s.start_of_day(value + timedelta(days=1)))


class UsageFilter(DateRangeFilterSet):
    operation_type = filters.ChoiceFilter(choices=OperationType.choices)

    class Meta:
        model = CreditUsage
        fields = ["operation_type"]


class TransactionFilter(DateRangeFilterSet):
    transaction_type = filters.ChoiceFilter(choices=TransactionType.choices)

    class Meta:
        model = CreditTransaction
        fields = ["transaction_type"]
