from django.apps import AppConfig


class WriterConfig(AppConfig):
    name = "inkwell.writer"
    label = "writer"
    verbose_name = "Writer"

    def ready(self):
        from inkwell.writer import signals  # noqa: F401  (connects the receivers)
