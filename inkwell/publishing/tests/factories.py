"""Publishing rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py).

The ``make_*`` helpers build rows of a tenant with sensible values; the matrix factories put the
marker into a text field where the model has one. Site settings have no free text (numbers, day
names, times): the factory saves values that differ from the defaults, and
test_site_settings_api.py checks by value that another account never sees them.
"""

from inkwell.publishing.models import Deployment, PublishingRecord, PublishTrigger, SiteSettings
from inkwell.tenancy.models import Site
from inkwell.writer.tests.factories import make_content

# Saved by the matrix factory: no default has these values.
ISOLATION_PUBLISHING = {"daily_publish_limit": 7, "weekly_publish_limit": 29, "time_slots": [{"start": "07:13", "end": "07:47"}]}


def make_site_settings(tenant, *, site: Site | None = None, **columns) -> SiteSettings:
    """The site's settings row with the given columns (``automation``, ``stages``, ``publishing``, models)."""
    site = site or tenant.site
    row, _ = SiteSettings.objects.for_account(tenant.account).update_or_create(account=tenant.account, site=site, defaults=columns)
    return row


def _site_settings(tenant, marker: str) -> SiteSettings:
    return make_site_settings(tenant, publishing=dict(ISOLATION_PUBLISHING), automation={"time": "04:17"})


def _publishing_record(tenant, marker: str) -> PublishingRecord:
    content = make_content(tenant, title=marker)
    return PublishingRecord.objects.create(
        account=tenant.account, site=tenant.site, content=content, platform="wordpress", trigger=PublishTrigger.MANUAL, error=marker, external_url=f"https://{marker}.test/"
    )


def _deployment(tenant, marker: str) -> Deployment:
    return Deployment.objects.create(account=tenant.account, site=tenant.site, version=1, checksum=marker[:64], definition={"site": {"name": marker}})


CROSS_ACCOUNT_FACTORIES = {SiteSettings: _site_settings, PublishingRecord: _publishing_record, Deployment: _deployment}
