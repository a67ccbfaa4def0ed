from django.apps import AppConfig


class PlannerConfig(AppConfig):
    name = "inkwell.planner"
    label = "planner"
    verbose_name = "Planner"

    def ready(self):
        from inkwell.billing.selectors import register_limit_counter
        from inkwell.keywords.selectors import register_added_counter
        from inkwell.planner import selectors

        # The plan's keyword limit counts planner keywords; the library's sector_stats.added too.
        register_limit_counter("max_keywords", selectors.keyword_count)
        register_added_counter(selectors.added_by_industry_sector)
