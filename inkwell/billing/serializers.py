from datetime import UTC, date, datetime, time, timedelta

from rest_framework import serializers

from inkwell.api import fields
from inkwell.api.filters import MAX_ID
from inkwell.billing.models import CreditTransaction, CreditUsage, OperationType

AMOUNT_POSITIVE = "Amount must be positive"
MAX_GRANT = 10_000_000


def start_of_day(day: date) -> datetime:
    """Midnight UTC of ``day``: date filters are whole UTC days."""
    return datetime.combine(day, time.min, tzinfo=UTC)


class BalanceSerializer(serializers.Serializer):
    balance = serializers.IntegerField(help_text="Credits the account holds")
    reserved = serializers.IntegerField(help_text="Credits held by AI work still running")
    available = serializers.IntegerField(help_text="Credits new work may spend: balance minus reserved")
    monthly_credits = serializers.IntegerField()
    used_this_period = serializers.IntegerField()
    period_start = serializers.DateTimeField()
    period_end = serializers.DateTimeField(allow_null=True)
    plan = serializers.CharField()


class UsageSerializer(serializers.ModelSerializer):
    class Meta:
        model = CreditUsage
        fields = [
            "id",
            "operation_type",
            "credits_used",
            "site",
            "job",
            "related_object_type",
            "related_object_id",
            "model",
            "prompt_tokens",
            "completion_tokens",
            "description",
            "refunded_at",
            "created_at",
        ]
        read_only_fields = fields


class TransactionSerializer(serializers.ModelSerializer):
    class Meta:
        model = CreditTransaction
        fields = ["id", "transaction_type", "amount", "balance_after", "usage", "description", "created_at"]
        read_only_fields = fields


class PeriodQuerySerializer(serializers.Serializer):
    """``start_date`` and ``end_date`` (YYYY-MM-DD, UTC, both days included)."""

    start_date = fields.DateField(required=False)
    end_date = fields.DateField(required=False)

    def validate(self, attrs):
        if "start_date" in attrs and "end_date" in attrs and attrs["start_date"] > attrs["end_date"]:
            raise serializers.ValidationError({"end_date": ["end_date must not be before start_date"]})
        return attrs

    @staticmethod
    def bounds(query: dict) -> tuple[datetime | None, datetime | None]:
        """The dates as ``[start, end)`` aware datetimes; None where not given."""
        start, end = query.get("start_date"), query.get("end_date")
        return (start_of_day(start) if start else None, start_of_day(end + timedelta(days=1)) if end else None)


class OperationSummarySerializer(serializers.Serializer):
    operation_type = serializers.ChoiceField(choices=OperationType.choices)
    credits = serializers.IntegerField()
    operations = serializers.IntegerField()
    tokens = serializers.IntegerField()


class UsageSummarySerializer(serializers.Serializer):
    period_start = serializers.DateTimeField()
    period_end = serializers.DateTimeField(allow_null=True)
    total_credits = serializers.IntegerField()
    total_operations = serializers.IntegerField()
    by_operation = OperationSummarySerializer(many=True)


class LimitSerializer(serializers.Serializer):
    limit = serializers.ChoiceField(choices=["max_sites", "max_users", "max_keywords", "monthly_credits"])
    maximum = serializers.IntegerField()
    used = serializers.IntegerField()
    remaining = serializers.IntegerField()


class PlanRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class PlanLimitsSerializer(serializers.Serializer):
    plan = PlanRefSerializer()
    period_end = serializers.DateTimeField(allow_null=True)
    limits = LimitSerializer(many=True)


class CreditsAddSerializer(serializers.Serializer):
    account_id = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    amount = serializers.IntegerField(
        min_value=1,
        max_value=MAX_GRANT,
        error_messages={"invalid": AMOUNT_POSITIVE, "min_value": AMOUNT_POSITIVE, "null": AMOUNT_POSITIVE, "max_integer": AMOUNT_POSITIVE},
    )
    description = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")


class CreditsAddedSerializer(serializers.Serializer):
    transaction = TransactionSerializer()
    balance = serializers.IntegerField()
