from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "inkwell.webhooks"
    label = "webhooks"
    verbose_name = "Outbound webhooks"

    def ready(self):
        from inkwell.webhooks import checks  # noqa: F401  (registers the settings check)
