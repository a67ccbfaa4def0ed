"""Clean text reaches the real WordPress: content whose every text field (title, excerpt, meta
title and description, body, image alt text, category and tag names) carries ``<script>``,
``onerror=`` and ``javascript:`` payloads is written through the API and the AI jobs, approved
and published; then nothing executable comes back from WordPress's REST API (``context=edit``)
or from the rendered page."""

import re
import uuid

import httpx2
import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour
from inkwell.writer.models import Content, Image, Taxonomy

pytestmark = [pytest.mark.django_db, pytest.mark.wordpress]

EXECUTABLE = re.compile(r"<script|onerror|javascript:", re.IGNORECASE)


def payloads(token: str) -> str:
    return f'<script>alert("{token}")</script><img src=x onerror=alert("{token}")><a href="javascript:alert(\'{token}\')">{token[:0]}link</a>'


@pytest.fixture
def wp(wordpress):
    with wordpress.client() as client:
        yield client


def test_published_content_carries_nothing_executable_to_wordpress(tenant, as_user, wordpress, wp, allow_private_cms, eager_jobs, openai_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    owner = as_user(tenant.owner)
    marker = uuid.uuid4().hex[:8]
    token = f"XSS{marker}"
    evil = payloads(token)

    integration = owner.post(
        "/api/v1/integration/",
        {"site_id": tenant.site.pk, "platform": "wordpress", "base_url": wordpress.url, "username": wordpress.user, "app_password": wordpress.app_password},
        format="json",
    )
    assert integration.status_code == 201, integration.content
    category = owner.post("/api/v1/writer/taxonomies/", {"site_id": tenant.site.pk, "taxonomy_type": "category", "name": f"Shoes {marker} {evil}"}, format="json")
    tag = owner.post("/api/v1/writer/taxonomies/", {"site_id": tenant.site.pk, "taxonomy_type": "tag", "name": f"trail {marker} {evil}"}, format="json")
    assert (category.status_code, tag.status_code) == (201, 201), (category.content, tag.content)
    created = owner.post(
        "/api/v1/writer/content/",
        {
            "site_id": tenant.site.pk,
            "title": f"Trail shoes {marker} {evil}",
            "html": f"<h2>Fit</h2><p>Try them on.</p>{evil}",
            "excerpt": f"How to choose {evil}",
            # All three payloads within the meta title's 60 characters.
            "meta_title": '<script>1</script><b onerror=x><a href="javascript:x">S</a>',
            "meta_description": f"Choosing {evil}",
            "taxonomy_ids": [category.json()["data"]["id"], tag.json()["data"]["id"]],
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    content_id = created.json()["data"]["id"]

    # The featured image's alt text comes from the AI provider, payloads and all.
    owner.put("/api/v1/system/settings/integrations/ai_provider/", {"provider": "openai", "base_url": openai_server.base_url, "api_key": TEST_API_KEY}, format="json")
    openai_server.script("chat", [Behaviour.content({"images": [{"prompt": "A trail shoe", "alt_text": f"A shoe {evil}", "image_type": "featured"}]})])
    with eager_jobs():
        images = owner.post("/api/v1/writer/images/generate_for_content/", {"content_id": content_id, "count": 1}, format="json")
    assert images.status_code == 202, images.content

    stored = Content.objects.for_account(tenant.account).get(pk=content_id)
    texts = [stored.title, stored.excerpt, stored.meta_title, stored.meta_description, stored.html]
    texts += list(Taxonomy.objects.for_account(tenant.account).values_list("name", flat=True))
    texts += list(Image.objects.for_account(tenant.account).values_list("alt_text", flat=True))
    assert not [text for text in texts if EXECUTABLE.search(text) or token in text]

    for status in ("review", "approved"):
        moved = owner.post(f"/api/v1/writer/content/{content_id}/update_content/", {"status": status}, format="json")
        assert moved.status_code == 200, moved.content
    published = owner.post(f"/api/v1/writer/content/{content_id}/publish_to_cms/")
    assert published.status_code == 200, published.content
    external_id = published.json()["data"]["external_id"]

    post = wp.get(f"/wp/v2/posts/{external_id}", params={"context": "edit"}).json()
    media = wp.get(f"/wp/v2/media/{post['featured_media']}", params={"context": "edit"}).json()
    terms = [wp.get(f"/wp/v2/categories/{term_id}", params={"context": "edit"}).json() for term_id in post["categories"]]
    terms += [wp.get(f"/wp/v2/tags/{term_id}", params={"context": "edit"}).json() for term_id in post["tags"]]
    remote = {
        "title": post["title"]["raw"],
        "rendered title": post["title"]["rendered"],
        "excerpt": post["excerpt"]["raw"],
        "content": post["content"]["raw"],
        "rendered content": post["content"]["rendered"],
        "alt text": media["alt_text"],
        **{f"term {term['id']}": term["name"] for term in terms},
    }
    assert remote["title"] == f"Trail shoes {marker} link"
    assert f"Shoes {marker} link" in remote.values() and f"trail {marker} link" in remote.values()
    assert {name: value for name, value in remote.items() if EXECUTABLE.search(value) or token in value} == {}

    page = httpx2.get(post["link"], timeout=30, follow_redirects=True)
    assert page.status_code == 200
    assert f"Trail shoes {marker}" in page.text
    assert token not in page.text
    assert not re.search(r"onerror|javascript:", page.text, re.IGNORECASE)
