"""The WordPress adapter against a real WordPress and against the in-memory test server: the same
tests, so that the test server answers as WordPress does wherever the adapter looks.

The real WordPress is shared by every test and both passes: names and references carry a random
suffix, and no test counts what others may have created.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from io import BytesIO

import httpx2
import pytest
from PIL import Image

from inkwell.cms import build_adapter, wordpress
from inkwell.cms.base import (
    CMSAddressNotAllowed,
    CMSAdapter,
    CMSAuthFailed,
    CMSCredentials,
    CMSNotFound,
    CMSRejected,
    PostPayload,
)


@dataclass
class Backend:
    kind: str  # "wordpress" or "cms_server"
    credentials: CMSCredentials
    client: Callable[[], httpx2.Client]  # authenticated, relative URLs under /wp-json
    server: object | None = None  # the test server, for request counts


@pytest.fixture(params=[pytest.param("wordpress", marks=pytest.mark.wordpress), "cms_server"])
def backend(request, allow_private_cms) -> Backend:
    if request.param == "wordpress":
        instance = request.getfixturevalue("wordpress")
        return Backend("wordpress", instance.credentials, instance.client)
    server = request.getfixturevalue("cms_server")
    credentials = CMSCredentials(base_url=server.url, username=server.user, app_password=server.app_password)
    return Backend("cms_server", credentials, lambda: httpx2.Client(base_url=f"{server.url}/wp-json", auth=(server.user, server.app_password), timeout=30), server)


@pytest.fixture
def cms(backend) -> Iterator[CMSAdapter]:
    with build_adapter("wordpress", backend.credentials) as adapter:
        yield adapter


@pytest.fixture
def read(backend) -> Iterator[Callable[..., dict]]:
    """``read(path, **params)``: WordPress's own JSON for a REST path, checked by another client."""
    with backend.client() as client:

        def get(path: str, **params) -> dict:
            response = client.get(path, params=params)
            assert response.status_code == 200, response.text
            return response.json()

        yield get


def unique(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:10]}"


def png(width: int = 8, height: int = 6) -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (width, height), (200, 80, 40)).save(buffer, format="PNG")
    return buffer.getvalue()


def payload(reference: str, **fields) -> PostPayload:
    return PostPayload(reference=reference, title=fields.pop("title", f"Post {reference}"), html=fields.pop("html", "<p>Body text.</p>"), **fields)


# -- connection ---------------------------------------------------------------------------


def test_current_user_is_who_the_application_password_logs_in_as(cms, backend):
    user = cms.current_user()
    assert user.name == backend.credentials.username
    assert user.external_id.isdigit()
    assert "administrator" in user.roles
    assert {"publish_posts", "upload_files", "manage_categories"} <= set(user.capabilities)


def test_a_wrong_application_password_is_an_auth_failure_that_names_no_secret(backend, caplog):
    wrong = CMSCredentials(base_url=backend.credentials.base_url, username=backend.credentials.username, app_password="abcd efgh ijkl mnop qrst uvwx")
    with build_adapter("wordpress", wrong) as adapter, pytest.raises(CMSAuthFailed) as failure:
        adapter.current_user()
    assert failure.value.status == 401
    assert not failure.value.retryable
    assert "abcd" not in failure.value.message
    assert "abcd" not in caplog.text


def test_site_info_reads_the_rest_index(cms, backend):
    site = cms.site_info()
    assert site.name
    assert site.url == backend.credentials.base_url
    assert site.time_zone == "+00:00"  # a fresh WordPress: UTC, no named zone


def test_content_types_are_the_public_types_content_can_be_published_as(cms):
    types = {content_type.slug: content_type for content_type in cms.content_types()}
    assert {"post", "page"} <= set(types)
    assert not {"attachment", "wp_block", "wp_template", "nav_menu_item"} & set(types)
    assert types["post"].rest_base == "posts"
    assert types["post"].name == "Posts"
    assert {"category", "post_tag"} <= set(types["post"].taxonomies)


def test_check_collection_counts_a_type_and_explains_an_unknown_one(cms):
    cms.create_post(payload(unique("count")))
    posts = cms.check_collection("post")
    assert posts.ok and posts.count >= 1
    unknown = cms.check_collection("no_such_type")
    assert (unknown.ok, unknown.count) == (False, 0)
    assert unknown.message == 'WordPress has no content type "no_such_type"'
    assert cms.check_collection("../users").ok is False  # never reaches another route


# -- terms --------------------------------------------------------------------------------


def test_ensure_term_creates_categories_with_parents_and_tags_that_terms_lists(cms, read):
    suffix = uuid.uuid4().hex[:8]
    parent = cms.ensure_term("category", name=f"Garden & Tools {suffix}", slug=f"garden-{suffix}")
    child = cms.ensure_term("category", name=f"Spades {suffix}", slug=f"spades-{suffix}", parent_external_id=parent.external_id)
    tag = cms.ensure_term("tag", name=f"Winter {suffix}", slug=f"winter-{suffix}", parent_external_id=parent.external_id)

    assert (parent.name, parent.slug, parent.parent_external_id) == (f"Garden & Tools {suffix}", f"garden-{suffix}", "")
    assert child.parent_external_id == parent.external_id
    assert (tag.taxonomy, tag.parent_external_id) == ("tag", "")
    assert read(f"/wp/v2/categories/{child.external_id}")["parent"] == int(parent.external_id)
    categories = {term.external_id: term for term in cms.terms("category")}
    assert categories[parent.external_id] == parent
    assert categories[child.external_id] == child
    assert tag in cms.terms("tag")


def test_ensure_term_returns_the_term_it_already_has(cms):
    suffix = uuid.uuid4().hex[:8]
    first = cms.ensure_term("category", name=f"Compost {suffix}", slug=f"compost-{suffix}")
    assert cms.ensure_term("category", name=f"Compost {suffix}", slug=f"compost-{suffix}") == first
    # No slug: WordPress refuses a second term of that name and names the one it has.
    assert cms.ensure_term("category", name=f"Compost {suffix}", slug="") == first
    tag = cms.ensure_term("tag", name=f"Mulch {suffix}", slug="")
    assert cms.ensure_term("tag", name=f"mulch {suffix}", slug="") == tag  # names match in any case


def test_terms_reads_every_page(cms, monkeypatch):
    suffix = uuid.uuid4().hex[:8]
    made = [cms.ensure_term("tag", name=f"Paged {suffix} {n}", slug=f"paged-{suffix}-{n}") for n in range(3)]
    monkeypatch.setattr(wordpress, "PAGE_SIZE", 2)
    tags = cms.terms("tag")
    assert set(made) <= set(tags)
    assert len({tag.external_id for tag in tags}) == len(tags)


def test_an_unknown_taxonomy_is_a_programming_error(cms):
    with pytest.raises(ValueError):
        cms.terms("post_format")


# -- media --------------------------------------------------------------------------------


def test_upload_media_stores_the_file_with_its_alt_text(cms, read, backend):
    data = png()
    media = cms.upload_media(filename="Hero image (final).png", content_type="image/png", data=data, alt_text="A red field")
    stored = read(f"/wp/v2/media/{media.external_id}", context="edit")
    assert stored["alt_text"] == "A red field"
    assert stored["mime_type"] == "image/png"
    assert media.url == stored["source_url"]
    assert httpx2.get(media.url, timeout=30).content == data


def test_a_file_type_wordpress_refuses_is_a_rejection_with_its_reason(cms):
    with pytest.raises(CMSRejected) as failure:
        cms.upload_media(filename="tool.exe", content_type="application/octet-stream", data=b"MZ\x90\x00")
    assert failure.value.message == "Sorry, you are not allowed to upload this file type."
    assert not failure.value.retryable


# -- posts --------------------------------------------------------------------------------


def test_create_post_publishes_everything_the_payload_says(cms, read):
    reference = unique("ref")
    category = cms.ensure_term("category", name=unique("Cat"), slug=unique("cat"))
    tag = cms.ensure_term("tag", name=unique("Tag"), slug=unique("tag"))
    media = cms.upload_media(filename="cover.png", content_type="image/png", data=png())
    slug = unique("first-post")

    post = cms.create_post(
        payload(
            reference,
            title="First & best",
            html="<h2>Intro</h2>\n<p>Hello <strong>world</strong>.</p>",
            excerpt="A short summary.",
            slug=slug,
            category_ids=[category.external_id],
            tag_ids=[tag.external_id],
            featured_media_id=media.external_id,
            meta_title="SEO title",
            meta_description="SEO description",
        )
    )

    stored = read(f"/wp/v2/posts/{post.external_id}", context="edit")
    assert post.status == stored["status"] == "publish"
    assert post.url == stored["link"] and post.url.rstrip("/").endswith(slug)
    assert post.modified_at is not None and post.modified_at.utcoffset().total_seconds() == 0
    # Plain text goes escaped: WordPress shows the title as HTML.
    assert stored["title"]["raw"] == "First &amp; best"
    assert stored["content"]["raw"] == f"<h2>Intro</h2>\n<p>Hello <strong>world</strong>.</p>\n<!-- inkwell:ref:{reference} -->"
    assert stored["excerpt"]["raw"] == "A short summary."
    assert (stored["slug"], stored["categories"], stored["tags"], stored["featured_media"]) == (slug, [int(category.external_id)], [int(tag.external_id)], int(media.external_id))
    # Meta keys no SEO plugin registered are ignored, not refused.
    assert stored["meta"] == []


def test_plain_text_goes_escaped_so_that_wordpress_shows_it_as_text(cms, read):
    """Titles, excerpts, term names and alt texts are plain text; WordPress shows them as HTML,
    so ``<``, ``>`` and ``&`` travel as entities and come back the same."""
    suffix = uuid.uuid4().hex[:8]
    term = cms.ensure_term("tag", name=f"a<b & c>d {suffix}", slug=unique("lt"))
    media = cms.upload_media(filename="cover.png", content_type="image/png", data=png(), alt_text="x < y & z")
    post = cms.create_post(payload(unique("ref"), title="5 < 10 & 3 > 2", excerpt="<b> is not bold here", status="draft"))

    stored = read(f"/wp/v2/posts/{post.external_id}", context="edit")
    assert stored["title"]["raw"] == "5 &lt; 10 &amp; 3 &gt; 2"
    assert stored["excerpt"]["raw"] == "&lt;b&gt; is not bold here"
    assert term.name == f"a<b & c>d {suffix}"
    assert read(f"/wp/v2/media/{media.external_id}", context="edit")["alt_text"] == "x &lt; y &amp; z"


def test_find_post_recognises_the_post_an_earlier_attempt_made(cms):
    reference = unique("ref")
    post = cms.create_post(payload(reference, status="draft"))
    cms.create_post(payload(f"{reference}0"))  # a longer reference the search also matches

    assert cms.find_post(reference) == post
    assert cms.find_post(unique("never")) is None


def test_update_post_changes_the_post_and_keeps_its_reference(cms, read):
    reference = unique("ref")
    post = cms.create_post(payload(reference))
    updated = cms.update_post(post.external_id, payload(reference, title="Second title", html="<p>New body.</p>", status="draft"))

    stored = read(f"/wp/v2/posts/{post.external_id}", context="edit")
    assert updated.external_id == post.external_id
    assert (updated.status, stored["title"]["raw"]) == ("draft", "Second title")
    assert stored["content"]["raw"] == f"<p>New body.</p>\n<!-- inkwell:ref:{reference} -->"
    assert cms.find_post(reference) == cms.get_post(post.external_id) == updated


def test_update_of_a_post_wordpress_does_not_have_is_not_found(cms):
    with pytest.raises(CMSNotFound):
        cms.update_post("987654321", payload(unique("ref")))


def test_a_trashed_post_is_gone_for_find_post_but_get_and_posts_see_the_trash(cms, backend):
    reference = unique("ref")
    post = cms.create_post(payload(reference))
    with backend.client() as client:
        assert client.delete(f"/wp/v2/posts/{post.external_id}").json()["status"] == "trash"

    assert cms.find_post(reference) is None
    assert cms.get_post(post.external_id).status == "trash"
    assert cms.posts([post.external_id])[post.external_id].status == "trash"

    with backend.client() as client:
        assert client.delete(f"/wp/v2/posts/{post.external_id}", params={"force": "true"}).json()["deleted"] is True
    assert cms.get_post(post.external_id) is None
    assert cms.posts([post.external_id]) == {}


def test_posts_reads_any_number_of_ids_in_batches(cms, backend, monkeypatch):
    made = [cms.create_post(payload(unique("ref"), status=status)) for status in ("publish", "draft", "private")]
    monkeypatch.setattr(wordpress, "PAGE_SIZE", 2)

    found = cms.posts([post.external_id for post in made] + ["987654321"])

    assert found == {post.external_id: post for post in made}
    if backend.server is not None:
        assert backend.server.count("GET", "/wp/v2/posts") == 2


def test_a_refused_request_carries_wordpress_reason(cms):
    with pytest.raises(CMSRejected) as failure:
        cms.create_post(payload(unique("ref"), status="scheduled"))
    assert failure.value.status == 400
    assert failure.value.message == "Invalid parameter(s): status"


def test_a_loopback_address_is_refused_unless_the_operator_allows_it(backend, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": False}
    with build_adapter("wordpress", backend.credentials) as adapter, pytest.raises(CMSAddressNotAllowed) as refused:
        adapter.current_user()
    # The refusal names the setting that allows private addresses.
    assert "CMS_ALLOW_PRIVATE_URLS=true" in refused.value.message
    if backend.server is not None:
        assert backend.server.requests == []
