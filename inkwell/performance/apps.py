from django.apps import AppConfig


class PerformanceConfig(AppConfig):
    name = "inkwell.performance"
    label = "performance"
    verbose_name = "Search performance"
