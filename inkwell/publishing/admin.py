from django.contrib import admin

from inkwell.publishing.models import Deployment, PublishingRecord


@admin.register(PublishingRecord)
class PublishingRecordAdmin(admin.ModelAdmin):
    list_display = ("id", "content", "site", "trigger", "status", "attempt", "created_at", "finished_at")
    list_filter = ("status", "trigger", "platform")
    search_fields = ("external_url", "error")
    raw_id_fields = ("account", "site", "content", "created_by")
    readonly_fields = [field.name for field in PublishingRecord._meta.fields]


@admin.register(Deployment)
class DeploymentAdmin(admin.ModelAdmin):
    list_display = ("id", "site", "version", "article_count", "created_at")
    raw_id_fields = ("account", "site")
    readonly_fields = [field.name for field in Deployment._meta.fields]
