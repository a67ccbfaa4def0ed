"""A site's setup completes when it has a sector and a working CMS connection, whichever comes
second; this is the sector side (the connection side is ``services.check_connection``).
Connected in ``IntegrationConfig.ready``."""

from django.db import transaction

from inkwell.integration.services import complete_site_setup
from inkwell.tenancy.models import Sector


def sector_added(sender, instance: Sector, created: bool, **kwargs) -> None:
    if created:
        # After the commit: the sector is visible to the check, which locks the site on its own.
        account_id, site_id = instance.account_id, instance.site_id
        transaction.on_commit(lambda: complete_site_setup(account_id=account_id, site_id=site_id))
