from django.contrib import admin

from inkwell.sitesettings.models import SiteSettings


@admin.register(SiteSettings)
class SiteSettingsAdmin(admin.ModelAdmin):
    list_display = ("id", "site", "updated_at")
    raw_id_fields = ("account", "site")
