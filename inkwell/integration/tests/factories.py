"""Integration rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py).

A site has one integration per platform, so the matrix factories give each integration a site
of its own; they put the marker into text fields, so that a leak of the row shows.
"""

import uuid

from django.utils import timezone

from inkwell.integration.models import SiteIntegration, SiteSetup, SyncRun, SyncStatus, WebhookDelivery
from inkwell.tenancy.models import Site

APP_PASSWORD = "abcd EFGH ijkl MNOP qrst UVWX"


def make_site(tenant, name: str = "") -> Site:
    suffix = uuid.uuid4().hex[:8]
    return Site.objects.create(account=tenant.account, name=name or f"Site {suffix}", domain=f"{suffix}.example.com", slug=f"site-{suffix}")


def make_integration(tenant, *, site: Site | None = None, **fields) -> SiteIntegration:
    fields.setdefault("base_url", "https://blog.example.com")
    fields.setdefault("username", "editor")
    fields.setdefault("app_password", APP_PASSWORD)
    fields.setdefault("webhook_secret", f"secret-{uuid.uuid4().hex}")
    return SiteIntegration.objects.create(account=tenant.account, site=site or tenant.site, **fields)


def make_sync_run(integration: SiteIntegration, *, status: str = SyncStatus.SUCCEEDED, duration_ms: int | None = 1000, **fields) -> SyncRun:
    run = SyncRun.objects.create(account_id=integration.account_id, integration=integration, status=status, duration_ms=duration_ms, **fields)
    if "started_at" in fields:
        # auto_now_add ignores a given value; tests that place runs in time set it afterwards.
        SyncRun.objects.for_account(integration.account_id).filter(pk=run.pk).update(started_at=fields["started_at"])
        run.started_at = fields["started_at"]
    return run


def _integration(tenant, marker: str) -> SiteIntegration:
    return make_integration(
        tenant, site=make_site(tenant), username=marker[:150], remote_site_name=marker[:200], connection_message=marker[:300], base_url=f"https://{uuid.uuid4().hex[:8]}.example.com"
    )


def _sync_run(tenant, marker: str) -> SyncRun:
    return make_sync_run(_integration(tenant, marker), status=SyncStatus.FAILED, error=marker[:300], error_code="cms_unavailable", finished_at=timezone.now())


def _webhook_delivery(tenant, marker: str) -> WebhookDelivery:
    integration = _integration(tenant, marker)
    return WebhookDelivery.objects.create(account=tenant.account, integration=integration, signature=uuid.uuid4().hex, event="post.updated", external_id=marker[:100], outcome="ignored")


def _site_setup(tenant, marker: str) -> SiteSetup:
    return SiteSetup.objects.create(account=tenant.account, site=make_site(tenant, name=marker[:150]))


CROSS_ACCOUNT_FACTORIES = {SiteIntegration: _integration, SyncRun: _sync_run, WebhookDelivery: _webhook_delivery, SiteSetup: _site_setup}
