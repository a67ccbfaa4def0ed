from django.contrib import admin

from inkwell.jobs.models import Job
from inkwell.tenancy.admin import AllAccountsAdmin


@admin.register(Job)
class JobAdmin(AllAccountsAdmin):
    list_display = ["id", "account", "kind", "status", "progress", "attempts", "created_at", "finished_at"]
    list_filter = ["status", "kind"]
    readonly_fields = ["account", "site", "created_by", "kind", "params", "result", "error", "attempts", "created_at", "started_at", "heartbeat_at", "finished_at"]
    search_fields = ["kind"]
