"""Staff see every account's integrations, runs and deliveries in the admin, never their credentials."""

import pytest
from django.utils import timezone

from inkwell.integration.models import SyncStatus, WebhookDelivery
from inkwell.integration.tests.factories import APP_PASSWORD, make_integration, make_sync_run
from inkwell.tenancy.models import User

ADMIN = "/admin/integration"

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    client.force_login(User.dangerously_unscoped.create_superuser("ops@example.com", "a long operator password"))
    return client


def test_staff_see_integrations_without_their_credentials(staff, tenant, other_tenant):
    ours = make_integration(tenant)
    theirs = make_integration(other_tenant, base_url="https://theirs.example.com")
    make_sync_run(ours, status=SyncStatus.FAILED, error="The CMS is unavailable", finished_at=timezone.now())
    WebhookDelivery.objects.create(account=tenant.account, integration=ours, signature="c" * 64, event="post.updated", external_id="42", outcome="applied")

    pages = [staff.get(f"{ADMIN}/{model}/") for model in ("siteintegration", "syncrun", "webhookdelivery")]
    pages.append(staff.get(f"{ADMIN}/siteintegration/{ours.pk}/change/"))

    assert [page.status_code for page in pages] == [200] * 4
    assert "theirs.example.com" in pages[0].content.decode()
    for page in pages:
        body = page.content.decode()
        assert APP_PASSWORD not in body and ours.webhook_secret not in body and theirs.webhook_secret not in body
    assert staff.get(f"{ADMIN}/siteintegration/add/").status_code == 403
