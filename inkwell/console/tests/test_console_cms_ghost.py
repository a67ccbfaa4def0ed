"""The CMS page with Ghost, against the real Ghost the test suite starts (``ghost``): the page
offers both platforms with the fields each needs, connecting Ghost tests the connection at once,
a wrong key and the other platform's fields are named, new credentials, and Ghost's webhooks made
from the page."""

from html import unescape

import pytest

from inkwell.integration.models import ConnectionStatus, Platform, SiteIntegration
from inkwell.integration.services import adapter_for
from inkwell.integration.tests.factories import make_integration

pytestmark = pytest.mark.django_db

KEY = f"{'a1' * 12}:{'b2' * 32}"


@pytest.fixture
def owner(console_client, tenant):
    return console_client(tenant.owner)


def connect_ghost(client, site, **fields):
    return client.post(f"/app/sites/{site.pk}/cms/", {"platform": "ghost", **fields})


def test_the_page_offers_wordpress_and_ghost_each_with_its_own_fields_and_help(owner, tenant):
    html = unescape(owner.get(f"/app/sites/{tenant.site.pk}/cms/").content.decode())

    assert "Connect WordPress" in html and "Connect Ghost" in html
    assert 'name="platform" value="ghost"' in html and 'name="admin_api_key"' in html and 'id="ghost_id_base_url"' in html
    assert "Settings → Integrations → Add custom integration" in html and "Admin API key" in html
    assert html.count('id="id_base_url"') == 1 and html.count('id="ghost_id_base_url"') == 1


def test_connecting_ghost_tests_the_connection_at_once_and_never_shows_the_key(owner, tenant, ghost, allow_private_cms):
    response = connect_ghost(owner, tenant.site, base_url=ghost.url, admin_api_key=ghost.admin_key)

    html = unescape(response.content.decode())
    assert response.status_code == 200 and "Connected</p>" in html and "Admin API URL" in html
    assert ghost.admin_key.split(":")[1] not in html
    integration = SiteIntegration.objects.for_account(tenant.account).get(site=tenant.site)
    assert (integration.platform, integration.connection_status, integration.app_password) == (Platform.GHOST, ConnectionStatus.CONNECTED, ghost.admin_key)


def test_a_wrong_ghost_key_is_named_with_where_to_find_the_right_one(owner, tenant, ghost, allow_private_cms):
    key_id = ghost.admin_key.split(":")[0]

    html = unescape(connect_ghost(owner, tenant.site, base_url=ghost.url, admin_api_key=f"{key_id}:{'0' * 64}").content.decode())

    assert "The connection failed" in html and "Ghost refused the Admin API key" in html and "cms_auth_failed" in html
    assert "copy the Admin API key again" in html


def test_a_malformed_key_is_refused_in_the_ghost_form_with_what_was_typed_kept(owner, tenant):
    response = connect_ghost(owner, tenant.site, base_url="https://ghost.example.com", admin_api_key="not a key")

    html = unescape(response.content.decode())
    assert response.status_code == 400 and "24 hexadecimal characters, a colon, and 64 hexadecimal characters" in html
    assert 'value="https://ghost.example.com"' in html and "not a key" not in html
    assert not SiteIntegration.objects.for_account(tenant.account).exists()


def test_a_new_ghost_key_is_saved_and_tested(owner, tenant, ghost, allow_private_cms):
    integration = make_integration(tenant, platform=Platform.GHOST, base_url=ghost.url, username="", app_password=KEY)

    response = owner.post(f"/app/integrations/{integration.pk}/credentials/", {"base_url": ghost.url, "admin_api_key": ghost.admin_key})

    assert "Connected</p>" in response.content.decode()
    integration.refresh_from_db()
    assert (integration.app_password, integration.connection_status) == (ghost.admin_key, ConnectionStatus.CONNECTED)


def test_ghosts_webhooks_are_made_from_the_page(owner, tenant, ghost, allow_private_cms):
    integration = make_integration(tenant, platform=Platform.GHOST, base_url=ghost.url, username="", app_password=ghost.admin_key)

    html = unescape(owner.post(f"/app/integrations/{integration.pk}/webhook/").content.decode())

    integration.refresh_from_db()
    try:
        assert "Webhooks set up in Ghost" in html and f"/api/v1/integration/webhook/ghost/{integration.pk}/" in html
        assert len(integration.remote_webhook_ids) == 5 and integration.webhook_secret not in html
    finally:
        with adapter_for(integration=integration) as adapter:
            for webhook_id in integration.remote_webhook_ids:
                adapter._call("DELETE", f"/webhooks/{webhook_id}/", expect=(404,))
