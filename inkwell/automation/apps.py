from django.apps import AppConfig


class AutomationConfig(AppConfig):
    name = "inkwell.automation"
    label = "automation"
    verbose_name = "Automation"
