from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from inkwell.tenancy.models import Account, ApiKey, Industry, IndustrySector, Plan, Role, Sector, Site, SiteUserAccess, Subscription, User


class AllAccountsAdmin(admin.ModelAdmin):
    """Staff see every account's rows: the deliberate, named exception to tenant scoping."""

    def get_queryset(self, request):
        return self.model.dangerously_unscoped.all()


@admin.register(Plan)
class PlanAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "max_sites", "max_users", "max_keywords", "monthly_credits", "is_public"]


class SubscriptionInline(admin.StackedInline):
    model = Subscription
    extra = 0


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "created_at"]
    search_fields = ["name"]
    inlines = [SubscriptionInline]


@admin.register(User)
class UserAdmin(DjangoUserAdmin, AllAccountsAdmin):
    ordering = ["email"]
    list_display = ["email", "account", "role", "is_active", "is_staff"]
    list_select_related = ["account", "role"]
    search_fields = ["email", "first_name", "last_name"]
    list_filter = ["is_staff", "is_active", "role"]
    raw_id_fields = ["account"]
    fieldsets = [
        (None, {"fields": ["email", "password"]}),
        ("Person", {"fields": ["first_name", "last_name"]}),
        ("Tenancy", {"fields": ["account", "role"]}),
        ("Permissions", {"fields": ["is_active", "is_staff", "is_superuser", "groups", "user_permissions"]}),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["email", "password1", "password2", "account", "role"]})]


@admin.register(Site)
class SiteAdmin(AllAccountsAdmin):
    list_display = ["id", "name", "domain", "account", "time_zone", "is_active"]
    list_select_related = ["account"]
    search_fields = ["name", "domain", "slug"]
    raw_id_fields = ["account"]


@admin.register(Sector)
class SectorAdmin(AllAccountsAdmin):
    list_display = ["id", "name", "site", "industry_sector"]
    list_select_related = ["site", "industry_sector__industry"]
    raw_id_fields = ["account", "site"]


@admin.register(SiteUserAccess)
class SiteUserAccessAdmin(AllAccountsAdmin):
    list_display = ["id", "user", "site", "created_at"]
    list_select_related = ["user", "site"]
    raw_id_fields = ["account", "user", "site", "granted_by"]


@admin.register(ApiKey)
class ApiKeyAdmin(AllAccountsAdmin):
    list_display = ["id", "name", "prefix", "account", "site", "last_used_at"]
    list_select_related = ["account", "site"]
    readonly_fields = ["prefix", "key_hash", "last_used_at"]
    raw_id_fields = ["account", "user", "site"]


@admin.register(Subscription)
class SubscriptionAdmin(AllAccountsAdmin):
    list_display = ["id", "account", "plan", "status", "current_period_end"]
    list_select_related = ["account", "plan"]
    list_filter = ["status", "plan"]


class IndustrySectorInline(admin.TabularInline):
    model = IndustrySector
    extra = 0


@admin.register(Industry)
class IndustryAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    inlines = [IndustrySectorInline]


admin.site.register(Role)
