from importlib import import_module

from django.apps import AppConfig


class TenancyConfig(AppConfig):
    name = "inkwell.tenancy"
    label = "tenancy"
    verbose_name = "Accounts and tenancy"

    def ready(self):
        # Connects the principal cache's invalidation (inkwell.tenancy.principal).
        import_module("inkwell.tenancy.signals")
