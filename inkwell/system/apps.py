from importlib import import_module

from django.apps import AppConfig


class SystemConfig(AppConfig):
    name = "inkwell.system"
    label = "system"

    def ready(self):
        # Connects the invalidation of the cached module switches.
        import_module("inkwell.system.signals")
