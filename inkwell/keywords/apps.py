from django.apps import AppConfig


class KeywordsConfig(AppConfig):
    name = "inkwell.keywords"
    label = "keywords"
    verbose_name = "Keywords library"

    def ready(self):
        from inkwell.keywords import signals  # noqa: F401  (keeps the library totals exact on every save)
