from django.contrib import admin

from inkwell.keywords.models import SeedKeyword


@admin.register(SeedKeyword)
class SeedKeywordAdmin(admin.ModelAdmin):
    """Edits go through the model's save, whose signal keeps the library totals exact."""

    list_display = ["keyword", "volume", "difficulty", "country", "industry_sector", "is_high_opportunity", "is_paid", "credit_cost"]
    list_filter = ["is_paid", "is_high_opportunity", "country", "industry_sector__industry"]
    list_select_related = ["industry_sector__industry"]
    search_fields = ["keyword"]
    raw_id_fields = ["industry_sector"]
    ordering = ["-volume", "-id"]
    # An exact count of a million rows on every admin page is wasted work.
    show_full_result_count = False
