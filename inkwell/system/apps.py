from django.apps import AppConfig


class SystemConfig(AppConfig):
    name = "inkwell.system"
    label = "system"
