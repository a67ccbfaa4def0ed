from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "inkwell.notifications"
    label = "notifications"
    verbose_name = "Notifications"
