"""Staff see every account's system settings and may delete a row (which returns the account to
the defaults). They do not edit them here: the API validates every value, the admin form would not."""

from django.contrib import admin

from inkwell import crypto
from inkwell.system.models import AIModel, ContentSettings, IntegrationSettings, ModuleSetting, PromptOverride
from inkwell.tenancy.admin import AllAccountsAdmin


class SettingsAdmin(AllAccountsAdmin):
    list_select_related = ["account"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(IntegrationSettings)
class IntegrationSettingsAdmin(SettingsAdmin):
    """The API key is never shown, not even to staff: only its mask."""

    list_display = ["id", "account", "integration_type", "provider", "base_url", "api_key_masked", "updated_at"]
    list_filter = ["integration_type", "provider"]
    fields = ["account", "integration_type", "provider", "base_url", "api_key_masked", "config", "updated_at", "updated_by"]

    @admin.display(description="API key")
    def api_key_masked(self, obj) -> str:
        return crypto.mask(obj.api_key)


@admin.register(ContentSettings)
class ContentSettingsAdmin(SettingsAdmin):
    list_display = ["id", "account", "key", "updated_at"]
    list_filter = ["key"]


@admin.register(PromptOverride)
class PromptOverrideAdmin(SettingsAdmin):
    list_display = ["id", "account", "prompt_type", "updated_at"]
    list_filter = ["prompt_type"]


@admin.register(ModuleSetting)
class ModuleSettingAdmin(SettingsAdmin):
    list_display = ["id", "account", "module", "enabled", "updated_at"]
    list_filter = ["module", "enabled"]


@admin.register(AIModel)
class AIModelAdmin(admin.ModelAdmin):
    """The catalogue sites choose their models from: staff add models and deactivate the ones no
    longer offered (sites that chose one fall back to their account's model)."""

    list_display = ["id", "kind", "provider", "name", "is_active"]
    list_filter = ["kind", "provider", "is_active"]
    search_fields = ["name"]
