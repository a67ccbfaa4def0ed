from importlib import import_module

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "inkwell.notifications"
    label = "notifications"
    verbose_name = "Notifications"

    def ready(self):
        import_module("inkwell.notifications.signals")
