from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "inkwell.webhooks"
    label = "webhooks"
    verbose_name = "Outbound webhooks"
