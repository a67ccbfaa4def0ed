"""Publishing rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py).

The matrix factories put the marker into a text field where the model has one.
"""

from inkwell.publishing.models import Deployment, PublishingRecord, PublishTrigger
from inkwell.writer.tests.factories import make_content


def _publishing_record(tenant, marker: str) -> PublishingRecord:
    content = make_content(tenant, title=marker)
    return PublishingRecord.objects.create(
        account=tenant.account, site=tenant.site, content=content, platform="wordpress", trigger=PublishTrigger.MANUAL, error=marker, external_url=f"https://{marker}.test/"
    )


def _deployment(tenant, marker: str) -> Deployment:
    return Deployment.objects.create(account=tenant.account, site=tenant.site, version=1, checksum=marker[:64], definition={"site": {"name": marker}})


CROSS_ACCOUNT_FACTORIES = {PublishingRecord: _publishing_record, Deployment: _deployment}
