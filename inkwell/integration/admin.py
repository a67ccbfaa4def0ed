from django.contrib import admin

from inkwell.integration.models import SiteIntegration, SyncRun, WebhookDelivery
from inkwell.tenancy.admin import AllAccountsAdmin


@admin.register(SiteIntegration)
class SiteIntegrationAdmin(AllAccountsAdmin):
    list_display = ["id", "account", "site", "platform", "base_url", "is_active", "connection_status", "sync_status", "last_synced_at"]
    list_select_related = ["account", "site"]
    list_filter = ["platform", "connection_status", "sync_status", "is_active"]
    search_fields = ["base_url", "username", "remote_site_name"]
    # The credentials are shown nowhere, not even to staff; and the address is changed only through
    # the API, which refuses private addresses.
    exclude = ["app_password", "webhook_secret"]
    readonly_fields = [
        "account", "site", "platform", "base_url", "username", "is_active", "connection_status", "connection_message", "last_tested_at", "remote_site_name",
        "structure", "structure_updated_at", "sync_status", "sync_job", "last_synced_at", "created_at", "updated_at",
    ]

    def has_add_permission(self, request):
        # An integration without its credentials would be useless: owners create them through the API.
        return False


@admin.register(SyncRun)
class SyncRunAdmin(AllAccountsAdmin):
    list_display = ["id", "account", "integration", "status", "started_at", "duration_ms", "error_code"]
    list_select_related = ["account", "integration"]
    list_filter = ["status"]
    readonly_fields = ["account", "integration", "job", "status", "counts", "error_code", "error", "started_at", "finished_at", "duration_ms"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(AllAccountsAdmin):
    list_display = ["id", "account", "integration", "event", "external_id", "outcome", "received_at"]
    list_select_related = ["account", "integration"]
    list_filter = ["event", "outcome"]
    readonly_fields = ["account", "integration", "signature", "event", "external_id", "outcome", "received_at"]
