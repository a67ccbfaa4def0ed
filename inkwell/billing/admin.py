from django.contrib import admin

from inkwell.billing.models import CreditLedger, CreditReservation, CreditTransaction, CreditUsage
from inkwell.tenancy.admin import AllAccountsAdmin


class ReadOnlyLedgerAdmin(AllAccountsAdmin):
    """Ledger rows change only through billing.services (credits are granted with POST /billing/credits/add/)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(CreditLedger)
class CreditLedgerAdmin(ReadOnlyLedgerAdmin):
    list_display = ["account", "balance", "reserved", "updated_at"]


@admin.register(CreditTransaction)
class CreditTransactionAdmin(ReadOnlyLedgerAdmin):
    list_display = ["id", "account", "transaction_type", "amount", "balance_after", "description", "created_at"]
    list_filter = ["transaction_type"]


@admin.register(CreditUsage)
class CreditUsageAdmin(ReadOnlyLedgerAdmin):
    list_display = ["id", "account", "operation_type", "credits_used", "model", "created_at", "refunded_at"]
    list_filter = ["operation_type"]


@admin.register(CreditReservation)
class CreditReservationAdmin(ReadOnlyLedgerAdmin):
    list_display = ["id", "account", "operation_type", "amount", "status", "job", "created_at", "closed_at"]
    list_filter = ["status"]
