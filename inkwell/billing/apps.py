from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "inkwell.billing"
    label = "billing"
    verbose_name = "Billing and credits"
