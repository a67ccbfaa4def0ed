from django.apps import AppConfig


class PublishingConfig(AppConfig):
    name = "inkwell.publishing"
    label = "publishing"
    verbose_name = "Publishing"

    def ready(self):
        from inkwell.publishing import signals  # noqa: F401  (connects the receivers)
