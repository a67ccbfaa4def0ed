
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.permissions import IsAdminUser

from inkwell.api.envelope import created, ok
from inkwell.api.views import ApiView, validated, validated_query
from inkwell.billing import selectors, services
from inkwell.billing import serializers as s
from inkwell.billing.filters import TransactionFilter, UsageFilter
from inkwell.billing.models import CreditLedger, CreditTransaction, CreditUsage
from inkwell.tenancy.models import Account
from inkwell.tenancy.viewsets import AccountScopedViewSet


class BillingAccess:
    """Billing stays readable when the plan has lapsed, to every role."""

    allow_inactive_plan = True
    throttle_scope = "general"


@extend_schema(tags=["billing"])
class BalanceView(BillingAccess, ApiView):
    tenant_scope = "own_account"

    @extend_schema(responses={200: s.BalanceSerializer})
    def get(self, request):
        return ok(s.BalanceSerializer(selectors.balance(request.account)).data)


@extend_schema(tags=["billing"])
class UsageViewSet(BillingAccess, mixins.ListModelMixin, AccountScopedViewSet):
    """The credit usage log, newest first, with a summary by operation and the plan's limits."""

    queryset = CreditUsage.objects.all()
    serializer_class = s.UsageSerializer
    filterset_class = UsageFilter

    @extend_schema(parameters=[s.PeriodQuerySerializer], responses={200: s.UsageSummarySerializer})
    @action(detail=False, methods=["get"], pagination_class=None, filterset_class=None)
    def summary(self, request):
        start, end = s.PeriodQuerySerializer.bounds(validated_query(s.PeriodQuerySerializer, request))
        return ok(s.UsageSummarySerializer(selectors.usage_summary(request.account, start=start, end=end)).data)

    @extend_schema(responses={200: s.PlanLimitsSerializer})
    @action(detail=False, methods=["get"], pagination_class=None, filterset_class=None)
    def limits(self, request):
        return ok(s.PlanLimitsSerializer(selectors.plan_limits(request.account)).data)


@extend_schema(tags=["billing"])
class TransactionViewSet(BillingAccess, mixins.ListModelMixin, AccountScopedViewSet):
    """Every change of the balance, newest first, with the balance it left."""

    queryset = CreditTransaction.objects.all()
    serializer_class = s.TransactionSerializer
    filterset_class = TransactionFilter


@extend_schema(tags=["billing"])
class CreditsAddView(ApiView):
    """Staff only: grants credits to an account (a ``credit_grant`` transaction)."""

    permission_classes = [IsAdminUser]
    tenant_scope = "global"
    throttle_scope = "general"

    @extend_schema(request=s.CreditsAddSerializer, responses={201: s.CreditsAddedSerializer})
    def post(self, request):
        data = validated(s.CreditsAddSerializer, request)
        account = Account.objects.filter(pk=data["account_id"]).first()
        if account is None:
            raise s.serializers.ValidationError({"account_id": ["Account not found"]})
        entry = services.grant(account=account, amount=data["amount"], description=data["description"] or "Credits added by staff", user=request.user)
        balance = CreditLedger.objects.for_account(account).get().balance
        return created(s.CreditsAddedSerializer({"transaction": entry, "balance": balance}).data)
