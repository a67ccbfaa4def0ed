from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "inkwell.jobs"
    label = "jobs"
    verbose_name = "Background jobs"
