from django.apps import AppConfig


class SiteSettingsConfig(AppConfig):
    name = "inkwell.sitesettings"
    label = "sitesettings"
    verbose_name = "Site settings"

    def ready(self):
        from inkwell.sitesettings import signals  # noqa: F401  (connects the receivers)
