from django.apps import AppConfig


class PlannerConfig(AppConfig):
    name = "inkwell.planner"
    label = "planner"
    verbose_name = "Planner"
