from django.apps import AppConfig
from django.db.models.signals import post_save


class IntegrationConfig(AppConfig):
    name = "inkwell.integration"
    label = "integration"
    verbose_name = "CMS integration"

    def ready(self):
        from inkwell.integration.signals import sector_added
        from inkwell.tenancy.models import Sector

        post_save.connect(sector_added, sender=Sector, dispatch_uid="integration.sector_added")
