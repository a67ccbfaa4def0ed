"""The WordPress plugin shown in docs/publishing.md (inkwell/integration/wordpress/inkwell-webhook.php) sends
what the webhook accepts: its hooks run under PHP with WordPress's functions stubbed, and the
requests it would send are delivered to the endpoint as they are."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from inkwell.integration.tests.factories import make_integration
from inkwell.tenancy import services as tenancy
from inkwell.writer.models import SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

PLUGIN = Path(__file__).resolve().parents[1] / "wordpress" / "inkwell-webhook.php"
HARNESS = r"""<?php
define( 'ABSPATH', '/' );
define( 'INKWELL_WEBHOOK_URL', $argv[1] );
define( 'INKWELL_API_KEY', $argv[2] );
define( 'INKWELL_WEBHOOK_SECRET', $argv[3] );
$hooks = array();
$sent  = array();
$posts = array();
function add_action( $hook, $callback, $priority = 10, $accepted_args = 1 ) { global $hooks; $hooks[ $hook ] = $callback; }
function wp_is_post_revision( $id ) { return false; }
function wp_is_post_autosave( $id ) { return false; }
function get_permalink( $post ) { return 'https://blog.example.com/?p=' . $post->ID; }
function wp_json_encode( $data ) { return json_encode( $data ); }
function get_post( $id ) { global $posts; return $posts[ $id ]; }
function wp_remote_post( $url, $args ) { global $sent; $sent[] = array( 'url' => $url, 'headers' => $args['headers'], 'body' => $args['body'] ); }
require $argv[4];
$post = (object) array( 'ID' => 42, 'post_type' => 'post', 'post_status' => 'draft', 'post_modified_gmt' => '2026-11-20 10:00:00' );
$page = (object) array( 'ID' => 43, 'post_type' => 'page', 'post_status' => 'publish', 'post_modified_gmt' => '2026-11-20 10:00:00' );
$posts[42] = $post;
$posts[43] = $page;
$hooks['save_post']( 43, $page );
$hooks['save_post']( 42, $post );
$hooks['save_post']( 42, (object) array_merge( (array) $post, array( 'post_status' => 'trash' ) ) );
$hooks['wp_trash_post']( 42 );
$hooks['before_delete_post']( 42 );
echo json_encode( $sent );
"""


@pytest.fixture
def php():
    path = shutil.which("php")
    if path is None:
        pytest.skip("PHP is not installed: the WordPress plugin could not be run")
    return path


def sent_by_plugin(php: str, tmp_path, *, key: str, secret: str) -> list[dict]:
    harness = tmp_path / "harness.php"
    harness.write_text(HARNESS)
    result = subprocess.run([php, str(harness), "https://inkwell.example.com/api/v1/integration/webhook/cms/", key, secret, str(PLUGIN)], capture_output=True, text=True, timeout=30, check=True)
    return json.loads(result.stdout)


def test_the_plugin_reports_updates_trash_and_deletion_as_the_webhook_expects(php, tmp_path, tenant, api_client):
    integration = make_integration(tenant)
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="WordPress", site=tenant.site)[1]
    content = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id="42", external_url="https://blog.example.com/shoes/")

    requests = sent_by_plugin(php, tmp_path, key=key, secret=integration.webhook_secret)

    # The page and the save that trashing makes send nothing; the post's save, trash and deletion do.
    assert [json.loads(request["body"])["event"] for request in requests] == ["post.updated", "post.trashed", "post.deleted"]
    answers = []
    for request in requests:
        assert request["headers"]["Authorization"] == f"ApiKey {key}"
        response = api_client.post("/api/v1/integration/webhook/cms/", data=request["body"].encode(), content_type="application/json", headers=request["headers"])
        assert response.status_code == 200, response.content
        answers.append(response.json()["data"])
        content.refresh_from_db()
        answers[-1]["state"] = (content.site_status, content.external_id)
    assert answers == [
        {"applied": True, "content_id": content.pk, "site_status": "not_published", "external_url": "https://blog.example.com/shoes/", "state": ("not_published", "42")},
        {"applied": False, "content_id": content.pk, "site_status": "not_published", "external_url": "https://blog.example.com/shoes/", "state": ("not_published", "42")},
        {"applied": True, "content_id": content.pk, "site_status": "not_published", "external_url": "", "state": ("not_published", "")},
    ]


def test_the_plugin_does_nothing_until_it_is_configured(php, tmp_path):
    harness = tmp_path / "harness.php"
    harness.write_text(HARNESS.replace("define( 'INKWELL_WEBHOOK_URL', $argv[1] );", ""))

    result = subprocess.run([php, str(harness), "", "key", "secret", str(PLUGIN)], capture_output=True, text=True, timeout=30, check=True)

    assert json.loads(result.stdout) == []


def test_the_publishing_docs_show_the_plugin_that_is_tested():
    """What readers copy from docs/publishing.md is what this file tests."""
    page = Path(__file__).resolve().parents[3] / "docs" / "publishing.md"

    assert f"```php\n{PLUGIN.read_text()}```" in page.read_text(), f"docs/publishing.md shows another plugin than {PLUGIN.name}"
