from django.apps import AppConfig


class WriterConfig(AppConfig):
    name = "inkwell.writer"
    label = "writer"
    verbose_name = "Writer"
