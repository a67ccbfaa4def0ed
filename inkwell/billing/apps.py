from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "inkwell.billing"
    label = "billing"
    verbose_name = "Billing and credits"

    def ready(self):
        from inkwell.billing import services  # noqa: F401  (settles and releases job reservations on job_finished)
