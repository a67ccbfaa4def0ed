"""The Ghost adapter against a real Ghost (5.130, started by scripts/ghost-up): every publishing
operation, and its failures (a wrong or malformed key, Ghost down, Ghost's own 422).

The Ghost is shared by every test and both passes: names and references carry a random suffix,
and no test counts what others may have created. What the adapter did is checked with a client
of its own (``ghost.client()``) or on Ghost's public pages.
"""

from __future__ import annotations

import logging
import re
import socket
import time
import uuid
from collections.abc import Iterator
from io import BytesIO

import httpx2
import pytest
from PIL import Image

from inkwell.cms import build_adapter, ghost as ghost_module
from inkwell.cms.base import CMSAdapter, CMSAuthFailed, CMSCredentials, CMSNotFound, CMSRejected, CMSUnreachable, PostPayload

pytestmark = pytest.mark.ghost


@pytest.fixture
def cms(ghost, allow_private_cms) -> Iterator[CMSAdapter]:
    with build_adapter("ghost", ghost.credentials) as adapter:
        yield adapter


def unique(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:10]}"


def png(width: int = 8, height: int = 6) -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (width, height), (40, 80, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def read_post(ghost, post_id: str) -> dict:
    with ghost.client() as client:
        response = client.get(f"/posts/{post_id}/", params={"formats": "html", "include": "tags"})
    assert response.status_code == 200, response.text
    return response.json()["posts"][0]


def public_page(url: str) -> httpx2.Response:
    with httpx2.Client(timeout=30) as client:
        return client.get(url)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# Connection


def test_the_admin_api_key_logs_in_and_the_site_is_read(cms, ghost):
    user = cms.current_user()
    site = cms.site_info()

    assert user.external_id == ghost.admin_key.split(":")[0] and "publish_posts" in user.capabilities
    assert site.name and site.url == ghost.url and site.time_zone
    assert cms.check_collection("post").ok and not cms.check_collection("product").ok


def test_a_wrong_key_is_refused_by_name_and_the_message_holds_no_secret(ghost, allow_private_cms, caplog):
    key_id, secret = ghost.admin_key.split(":")
    wrong = f"{key_id}:{'0' * 64}"
    caplog.set_level(logging.DEBUG)
    with build_adapter("ghost", CMSCredentials(ghost.url, "", wrong)) as adapter, pytest.raises(CMSAuthFailed) as refused:
        adapter.current_user()

    assert refused.value.status == 401 and not refused.value.retryable
    assert refused.value.message == "Ghost refused the Admin API key"
    assert secret not in caplog.text and "0" * 64 not in caplog.text


def test_a_key_of_the_wrong_shape_is_refused_before_any_request(ghost, allow_private_cms):
    with build_adapter("ghost", CMSCredentials(ghost.url, "", "not-a-key")) as adapter, pytest.raises(CMSAuthFailed) as refused:
        adapter.current_user()

    assert refused.value.status is None and "24 hex" in refused.value.message


def test_ghost_down_is_unreachable_and_worth_a_retry(ghost, allow_private_cms):
    with build_adapter("ghost", CMSCredentials(f"http://127.0.0.1:{free_port()}", "", ghost.admin_key)) as adapter, pytest.raises(CMSUnreachable) as down:
        adapter.create_post(PostPayload(reference=unique("down"), title="Never", html="<p>x</p>"))

    assert down.value.retryable and down.value.code == "cms_unreachable"


def test_an_address_that_is_not_ghost_is_named_so(ghost, allow_private_cms):
    with build_adapter("ghost", CMSCredentials(f"{ghost.url}/no-ghost-here", "", ghost.admin_key)) as adapter, pytest.raises(Exception) as failed:
        adapter.current_user()

    assert getattr(failed.value, "code", "") in ("cms_error", "cms_not_found")


def test_a_422_from_ghost_is_a_rejection_with_ghosts_reason(cms):
    with pytest.raises(CMSRejected) as refused:
        cms.ensure_term("tag", name="", slug="")

    assert refused.value.status == 422 and not refused.value.retryable
    assert "name" in refused.value.message.lower()


def test_a_file_ghost_does_not_take_as_an_image_is_rejected(cms):
    with pytest.raises(CMSRejected) as refused:
        cms.upload_media(filename="notes.png", content_type="image/png", data=b"plain text, not a PNG")

    assert 400 <= refused.value.status < 500


# Publishing


def test_a_post_is_published_with_its_tags_images_seo_fields_and_canonical_url(cms, ghost):
    name = unique("ghost")
    category = cms.ensure_term("category", name=f"Guides {name}", slug=f"guides-{name}")
    tag = cms.ensure_term("tag", name=f"Tips & tricks {name}", slug=f"tips-{name}")
    featured = cms.upload_media(filename=f"{name}-cover.png", content_type="image/png", data=png(), alt_text="A cover")
    inline = cms.upload_media(filename=f"{name}-inline.png", content_type="image/png", data=png(4, 4))
    html = f"<p>Intro {name}</p><h2>Part</h2><p>More.</p>{cms.image_html(url=inline.url, alt='An <inline> image')}"
    payload = PostPayload(
        reference=name,
        title=f"Title <b>&amp;</b> {name}",
        html=html,
        excerpt="The excerpt",
        slug=name,
        category_ids=[category.external_id],
        tag_ids=[tag.external_id],
        featured_media_url=featured.url,
        featured_media_alt="A cover",
        meta_title=f"Meta {name}",
        meta_description=f"Description {name}",
    )

    post = cms.create_post(payload)

    assert post.status == "publish" and post.url == f"{ghost.url}/{name}/"
    stored = read_post(ghost, post.external_id)
    assert stored["title"] == payload.title and stored["custom_excerpt"] == "The excerpt"
    assert (stored["meta_title"], stored["meta_description"]) == (f"Meta {name}", f"Description {name}")
    assert (stored["feature_image"], stored["feature_image_alt"]) == (featured.url, "A cover")
    assert [item["id"] for item in stored["tags"]] == [category.external_id, tag.external_id]  # the category is the primary tag
    assert inline.url in stored["html"] and "kg-image-card" in stored["html"] and 'alt="An <inline> image"' in stored["html"]  # Ghost keeps the alt text (its own serialisation)
    page = public_page(post.url)
    assert page.status_code == 200 and f"Intro {name}" in page.text
    canonical = re.search(r'<link rel="canonical" href="([^"]+)"', page.text).group(1)
    assert canonical == post.url
    assert public_page(featured.url).status_code == 200
    assert featured.url.startswith(f"{ghost.url}/content/images/") and featured.external_id.startswith("/content/images/")


def test_a_post_an_earlier_attempt_made_is_found_by_its_reference_only(cms):
    reference = unique("ref")
    post = cms.create_post(PostPayload(reference=reference, title="Found", html="<p>x</p>", status="draft"))

    assert cms.find_post(reference) == post
    assert cms.find_post(reference[:-1]) is None
    assert cms.find_post(unique("absent")) is None


def test_an_update_sends_the_posts_updated_at_even_after_an_edit_elsewhere(cms, ghost):
    reference = unique("update")
    post = cms.create_post(PostPayload(reference=reference, title="First", html="<p>one</p>"))
    stale = read_post(ghost, post.external_id)["updated_at"]
    time.sleep(1.1)  # Ghost keeps updated_at to the second: an edit within it is no collision
    with ghost.client() as client:  # someone edits the post in Ghost meanwhile
        client.put(f"/posts/{post.external_id}/", json={"posts": [{"title": "Edited in Ghost", "updated_at": stale}]}).raise_for_status()
        # Ghost's rule: a stale updated_at is a 409, which the adapter never sends.
        assert client.put(f"/posts/{post.external_id}/", json={"posts": [{"title": "x", "updated_at": stale}]}).status_code == 409

    updated = cms.update_post(post.external_id, PostPayload(reference=reference, title="Second", html="<p>two</p>", meta_description="New"))

    assert (updated.external_id, updated.status) == (post.external_id, "publish")
    stored = read_post(ghost, post.external_id)
    assert (stored["title"], stored["meta_description"]) == ("Second", "New") and "two" in stored["html"]


def test_an_update_of_a_deleted_post_is_not_found(cms, ghost):
    reference = unique("gone")
    post = cms.create_post(PostPayload(reference=reference, title="Gone", html="<p>x</p>"))
    with ghost.client() as client:
        client.delete(f"/posts/{post.external_id}/").raise_for_status()

    with pytest.raises(CMSNotFound):
        cms.update_post(post.external_id, PostPayload(reference=reference, title="Again", html="<p>x</p>"))
    assert cms.get_post(post.external_id) is None
    assert cms.posts([post.external_id]) == {}


def test_unpublishing_makes_a_draft_and_statuses_read_back_in_the_interfaces_words(cms, ghost):
    reference = unique("unpublish")
    post = cms.create_post(PostPayload(reference=reference, title="Live", html="<p>x</p>"))
    assert public_page(post.url).status_code == 200

    draft = cms.update_post(post.external_id, PostPayload(reference=reference, title="Live", html="<p>x</p>", status="draft"))

    assert draft.status == "draft" and cms.get_post(post.external_id).status == "draft"
    assert public_page(post.url).status_code == 404
    assert draft.url.startswith(f"{ghost.url}/p/")  # Ghost's preview address of a draft
    with ghost.client() as client:
        client.put(
            f"/posts/{post.external_id}/",
            json={"posts": [{"status": "scheduled", "published_at": "2099-01-01T00:00:00.000Z", "updated_at": read_post(ghost, post.external_id)["updated_at"]}]},
        ).raise_for_status()
    assert cms.posts([post.external_id])[post.external_id].status == "future"


def test_posts_are_read_in_batches_and_missing_ones_left_out(cms):
    made = [cms.create_post(PostPayload(reference=unique("batch"), title=f"Batch {n}", html="<p>x</p>")) for n in range(3)]
    missing = "0" * 24

    found = cms.posts([post.external_id for post in made] + [missing])

    assert set(found) == {post.external_id for post in made}
    assert all(found[post.external_id].url == post.url for post in made)


def test_tags_are_listed_and_categories_are_ghost_tags(cms):
    name = unique("terms")
    tag = cms.ensure_term("tag", name=f"Tag {name}", slug=f"tag-{name}")
    again = cms.ensure_term("tag", name="Another name", slug=f"tag-{name}")
    category = cms.ensure_term("category", name=f"Cat {name}", slug=f"cat-{name}")

    assert again == tag and category.taxonomy == "tag"
    listed = {term.external_id: term for term in cms.terms("tag")}
    assert listed[tag.external_id].slug == f"tag-{name}" and category.external_id in listed
    assert cms.terms("category") == []


def test_ghosts_webhook_signature_is_checked_with_its_own_algorithm():
    body, timestamp = b'{"post":{"current":{}}}', "1700000000000"
    digest = ghost_module.webhook_signature(secret="s3cret", raw_body=body, timestamp_ms=timestamp)

    assert ghost_module.parse_signature_header(f"sha256={digest}, t={timestamp}") == (digest, timestamp)
    assert ghost_module.parse_signature_header(f"sha256={digest}") is None
    assert digest != ghost_module.webhook_signature(secret="s3cret", raw_body=body, timestamp_ms="1700000000001")
