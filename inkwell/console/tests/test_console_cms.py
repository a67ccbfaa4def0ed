"""The CMS connection page and publishing now, against the real WordPress the test suite starts
(``wordpress``): connect, the reason a connection fails, new credentials, content types, a sync
and its health, the webhook's setup, and an article published from the calendar."""

import hashlib
import hmac
import json
import re
import time
import uuid
from html import unescape

import pytest
from django.utils import timezone

from inkwell.integration.models import ConnectionStatus, SiteIntegration
from inkwell.integration.tests.factories import make_integration
from inkwell.jobs.models import Job, JobStatus
from inkwell.tenancy.models import ApiKey, SiteUserAccess
from inkwell.writer.models import ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CLOSED_PORT_URL = "http://127.0.0.1:9"


def cms_page(client, site):
    response = client.get(f"/app/sites/{site.pk}/cms/")
    assert response.status_code == 200
    return response.content.decode()


def connect(client, site, *, base_url, username, app_password):
    return client.post(f"/app/sites/{site.pk}/cms/", {"base_url": base_url, "username": username, "app_password": app_password})


@pytest.fixture
def owner(console_client, tenant):
    return console_client(tenant.owner)


@pytest.fixture
def subscriber(wordpress):
    """A WordPress user who may sign in but not publish, with an application password."""
    name = f"reader-{uuid.uuid4().hex[:8]}"
    with wordpress.client() as wp:
        user = wp.post("/wp/v2/users", json={"username": name, "email": f"{name}@example.com", "password": uuid.uuid4().hex, "roles": ["subscriber"]})
        assert user.status_code == 201, user.text
        password = wp.post(f"/wp/v2/users/{user.json()['id']}/application-passwords", json={"name": "Inkwell"})
        assert password.status_code == 201, password.text
    return name, password.json()["password"]


def test_connecting_wordpress_tests_the_connection_at_once(owner, tenant, wordpress, allow_private_cms):
    response = connect(owner, tenant.site, base_url=wordpress.url, username=wordpress.user, app_password=wordpress.app_password)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Connected</p>" in html and f"as {wordpress.user}" in unescape(html)
    assert wordpress.app_password not in html
    integration = SiteIntegration.objects.for_account(tenant.account).get(site=tenant.site)
    assert integration.connection_status == ConnectionStatus.CONNECTED
    assert integration.app_password == wordpress.app_password


def test_an_unreachable_wordpress_is_named_as_such(owner, tenant, allow_private_cms):
    html = connect(owner, tenant.site, base_url=CLOSED_PORT_URL, username="editor", app_password="abcd efgh ijkl").content.decode()
    assert "The connection failed" in html and "WordPress could not be reached at this address" in html and "cms_unreachable" in html
    assert SiteIntegration.objects.for_account(tenant.account).get(site=tenant.site).connection_status == ConnectionStatus.FAILED


def test_wrong_credentials_are_named_as_such(owner, tenant, wordpress, allow_private_cms):
    html = connect(owner, tenant.site, base_url=wordpress.url, username=wordpress.user, app_password="wxyz wxyz wxyz wxyz wxyz wxyz").content.decode()
    assert "The connection failed" in html and "WordPress refused the user name or the application password" in html


def test_a_user_who_may_not_publish_is_named_as_such(owner, tenant, wordpress, subscriber, allow_private_cms):
    name, password = subscriber
    html = connect(owner, tenant.site, base_url=wordpress.url, username=name, app_password=password).content.decode()
    assert "Connected, but the user may not publish" in html and "may not publish posts (publish_posts)" in html


def test_an_address_that_is_not_one_keeps_the_form_with_the_apis_message(owner, tenant):
    response = connect(owner, tenant.site, base_url="not an address", username="editor", app_password="secret password")
    html = response.content.decode()
    assert response.status_code == 400
    assert 'value="not an address"' in html and "field__error" in html and "secret password" not in html
    assert not SiteIntegration.objects.for_account(tenant.account).exists()


def test_new_credentials_are_tested_and_an_empty_password_keeps_the_stored_one(owner, tenant, wordpress, allow_private_cms):
    integration = make_integration(tenant, base_url=wordpress.url, username="nobody", app_password=wordpress.app_password)
    response = owner.post(f"/app/integrations/{integration.pk}/credentials/", {"base_url": wordpress.url, "username": wordpress.user, "app_password": ""})
    assert response.status_code == 200 and "Connected</p>" in response.content.decode()
    integration.refresh_from_db()
    assert (integration.username, integration.app_password, integration.connection_status) == (wordpress.user, wordpress.app_password, ConnectionStatus.CONNECTED)


def test_content_types_are_read_from_wordpress(owner, tenant, wordpress, allow_private_cms):
    integration = make_integration(tenant, base_url=wordpress.url, username=wordpress.user, app_password=wordpress.app_password)
    assert "Not read yet." in cms_page(owner, tenant.site)
    html = owner.post(f"/app/integrations/{integration.pk}/structure/").content.decode()
    assert re.search(r"Read \d+ content types of", unescape(html))
    assert "<strong>Posts</strong>" in html and "<strong>Pages</strong>" in html


def test_a_sync_runs_in_the_background_and_its_health_shows_it(owner, tenant, wordpress, allow_private_cms, eager_jobs):
    integration = make_integration(tenant, base_url=wordpress.url, username=wordpress.user, app_password=wordpress.app_password)
    with eager_jobs():
        response = owner.post(f"/app/integrations/{integration.pk}/sync/")
    job = Job.objects.for_account(tenant.account).get(kind="integration.sync")
    assert response.status_code == 302 and response.headers["Location"] == f"/app/jobs/{job.pk}/"
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.error
    html = cms_page(owner, tenant.site)
    assert "1 sync, 1 succeeded, 0 failed" in html and "Duration: last" in html


def test_the_webhook_setup_shows_once_a_snippet_that_signs_a_delivery(owner, tenant, api_client):
    integration = make_integration(tenant)
    old_secret = integration.webhook_secret
    content = make_content(tenant, status=ContentStatus.PUBLISHED, site_status=SiteStatus.PUBLISHED, external_id="77", external_url="https://blog.example.com/p77/")
    html = unescape(owner.post(f"/app/integrations/{integration.pk}/webhook/").content.decode())
    url = re.search(r"define\( 'INKWELL_WEBHOOK_URL', '([^']+)' \);", html).group(1)
    key = re.search(r"define\( 'INKWELL_API_KEY', '([^']+)' \);", html).group(1)
    secret = re.search(r"define\( 'INKWELL_WEBHOOK_SECRET', '([^']+)' \);", html).group(1)
    assert url == "http://testserver/api/v1/integration/webhook/cms/" and secret != old_secret
    assert "add_action( 'save_post'" in html  # the plugin to copy
    webhook_key = ApiKey.objects.for_account(tenant.account).get(name__startswith="WordPress webhook of")
    assert webhook_key.site_id == tenant.site.pk and key.startswith(webhook_key.prefix)

    body = json.dumps({"event": "post.trashed", "post": {"id": 77, "status": "trash", "link": "https://blog.example.com/p77/"}}).encode()
    timestamp = str(int(time.time()))
    signature = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    delivered = api_client.post(
        "/api/v1/integration/webhook/cms/", data=body, content_type="application/json",
        HTTP_AUTHORIZATION=f"ApiKey {key}", HTTP_X_INKWELL_TIMESTAMP=timestamp, HTTP_X_INKWELL_SIGNATURE=f"sha256={signature}",
    )
    assert delivered.status_code == 200, delivered.content
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED
    assert secret not in cms_page(owner, tenant.site)  # shown once


def test_an_editor_tests_and_syncs_but_never_sees_or_changes_credentials(console_client, tenant):
    integration = make_integration(tenant)
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.editor, site=tenant.site)
    editor = console_client(tenant.editor)
    html = cms_page(editor, tenant.site)
    assert f"/app/integrations/{integration.pk}/test/" in html and f"/app/integrations/{integration.pk}/sync/" in html
    assert f"/app/integrations/{integration.pk}/credentials/" not in html and f"/app/integrations/{integration.pk}/webhook/" not in html
    assert editor.post(f"/app/integrations/{integration.pk}/credentials/", {"base_url": "https://evil.example.com", "username": "x"}).status_code == 403
    assert editor.post(f"/app/integrations/{integration.pk}/webhook/").status_code == 403
    integration.refresh_from_db()
    assert integration.base_url == "https://blog.example.com"


def test_publish_now_puts_the_article_on_wordpress_and_the_calendar_links_to_the_post(owner, tenant, wordpress, allow_private_cms):
    make_integration(tenant, base_url=wordpress.url, username=wordpress.user, app_password=wordpress.app_password)
    title = f"Published from the calendar {uuid.uuid4().hex[:8]}"
    content = make_content(tenant, status=ContentStatus.APPROVED, title=title)
    response = owner.post(f"/app/content/{content.pk}/publish/", {"view": "week", "date": "2026-01-05"})
    assert response.status_code == 302 and f"published={content.pk}" in response.headers["Location"]
    content.refresh_from_db()
    assert content.site_status == SiteStatus.PUBLISHED and content.external_url
    with wordpress.client() as wp:
        post = wp.get(f"/wp/v2/posts/{content.external_id}", params={"context": "edit"}).json()
    assert post["title"]["raw"] == title and post["link"] == content.external_url
    html = owner.get(response.headers["Location"]).content.decode()
    assert f'<a class="cal-item__post" href="{content.external_url}">{title}' in html
    assert timezone.now().date().isoformat() in response.headers["Location"]


def test_publish_now_that_wordpress_refuses_shows_its_reason_and_the_article_failed(owner, tenant, wordpress, allow_private_cms):
    make_integration(tenant, base_url=wordpress.url, username=wordpress.user, app_password="wxyz wxyz wxyz wxyz wxyz wxyz")
    content = make_content(tenant, status=ContentStatus.APPROVED)
    response = owner.post(f"/app/content/{content.pk}/publish/")
    assert response.status_code == 502
    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED
    html = owner.get(f"/app/sites/{tenant.site.pk}/calendar/?view=week").content.decode()
    failed = html[html.index(f'data-content-id="{content.pk}"') :].split("</div>")[0]
    assert "The CMS said:" in failed and "No retry planned" in failed

def test_the_consoles_webhook_set_up_page_is_not_stored(console_client, tenant):
    integration = make_integration(tenant)

    response = console_client(tenant.owner).post(f"/app/integrations/{integration.pk}/webhook/")

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"

