from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "inkwell.billing"
    label = "billing"
    verbose_name = "Billing and credits"

    def ready(self):
        from inkwell.billing import signals  # noqa: F401  (connect the receivers: ledgers at sign-up, job reservations on job_finished)
