from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class JobsConfig(AppConfig):
    name = "inkwell.jobs"
    label = "jobs"
    verbose_name = "Background jobs"

    def ready(self):
        # Each domain registers its job handlers in its own ``jobs`` module; web and worker
        # processes must both know them.
        autodiscover_modules("jobs")
