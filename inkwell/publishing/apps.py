from django.apps import AppConfig


class PublishingConfig(AppConfig):
    name = "inkwell.publishing"
    label = "publishing"
    verbose_name = "Publishing"
