from django.apps import AppConfig


class TenancyConfig(AppConfig):
    name = "inkwell.tenancy"
    label = "tenancy"
    verbose_name = "Accounts and tenancy"
