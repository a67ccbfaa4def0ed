from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "inkwell.console"
    label = "console"
    verbose_name = "Console"
