from django.apps import AppConfig


class LinkerConfig(AppConfig):
    name = "inkwell.linker"
    label = "linker"
    verbose_name = "Linker"
