"""Site settings rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py).

Site settings have no free text (numbers, day names, times): the matrix factory saves values that
differ from the defaults, and test_site_settings_api.py checks by value that another account never
sees them.
"""

from inkwell.sitesettings.models import SiteSettings
from inkwell.tenancy.models import Site

# Saved by the matrix factory: no default has these values.
ISOLATION_PUBLISHING = {"daily_publish_limit": 7, "weekly_publish_limit": 29, "time_slots": [{"start": "07:13", "end": "07:47"}]}


def make_site_settings(tenant, *, site: Site | None = None, **columns) -> SiteSettings:
    """The site's settings row with the given columns (``automation``, ``stages``, ``publishing``, models)."""
    site = site or tenant.site
    row, _ = SiteSettings.objects.for_account(tenant.account).update_or_create(account=tenant.account, site=site, defaults=columns)
    return row


def _site_settings(tenant, marker: str) -> SiteSettings:
    return make_site_settings(tenant, publishing=dict(ISOLATION_PUBLISHING), automation={"time": "04:17"})


CROSS_ACCOUNT_FACTORIES = {SiteSettings: _site_settings}
