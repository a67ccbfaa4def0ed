from django.apps import AppConfig


class IntegrationConfig(AppConfig):
    name = "inkwell.integration"
    label = "integration"
    verbose_name = "CMS integration"
