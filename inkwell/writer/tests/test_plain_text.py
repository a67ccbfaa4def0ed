"""Titles, excerpts, meta fields, image alt texts and taxonomy names are stored as plain text:
markup is removed on write, whoever writes (a person through the API, an AI provider, a CMS
sync). Publishing sends them escaped (``inkwell/cms/tests/test_wordpress_adapter.py`` and the
real-WordPress check in ``tests/test_wordpress_clean_text.py``)."""

import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour
from inkwell.api.tests import assert_error
from inkwell.cms.base import RemoteTerm
from inkwell.integration import services as integration_services
from inkwell.integration.tests.factories import make_integration
from inkwell.jobs.models import Job
from inkwell.system import services as system
from inkwell.writer.models import Content, Image, Taxonomy
from inkwell.writer.sanitize import plain_text
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

SCRIPT = '<script>alert("xss")</script>'
ONERROR = '<img src=x onerror=alert("xss")>'
JS_LINK = '<a href="javascript:alert(1)">here</a>'


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (f"{SCRIPT}Running shoes {ONERROR}", "Running shoes"),
        (f"Click {JS_LINK}", "Click here"),
        ("<b>Bold</b> <i>claims</i>", "Bold claims"),
        ("&lt;script&gt;alert(1)&lt;/script&gt;Escaped", "Escaped"),
        ("&amp;lt;b&amp;gt;Twice escaped", "Twice escaped"),
        ("5 < 10 & 3 > 2", "5 < 10 & 3 > 2"),
        ("Tom &amp; Jerry", "Tom & Jerry"),
        ("  many\n\tspaces  ", "many spaces"),
        ("<style>p{}</style><!-- note -->Styled", "Styled"),
        ("", ""),
    ],
)
def test_plain_text_removes_markup_and_keeps_the_text(value, text):
    assert plain_text(value) == text


def test_content_created_through_the_api_stores_its_short_texts_as_plain_text(tenant, as_user):
    body = {
        "site_id": tenant.site.pk,
        "title": f"{SCRIPT}Trail shoes",
        "html": "<p>Body</p>",
        "excerpt": f"Short {ONERROR}summary",
        "meta_title": f"Meta {JS_LINK}",
        "meta_description": f"<b>Described</b>{SCRIPT}",
    }
    response = as_user(tenant.owner).post("/api/v1/writer/content/", body, format="json")

    assert response.status_code == 201, response.content
    content = Content.objects.for_account(tenant.account).get(pk=response.json()["data"]["id"])
    assert (content.title, content.excerpt, content.meta_title, content.meta_description) == ("Trail shoes", "Short summary", "Meta here", "Described")


def test_content_updates_store_plain_text_and_a_title_of_markup_only_is_refused(tenant, as_user):
    content = make_content(tenant)
    owner = as_user(tenant.owner)

    response = owner.post(f"/api/v1/writer/content/{content.pk}/update_content/", {"title": f"New {ONERROR}title", "excerpt": SCRIPT}, format="json")
    assert response.status_code == 200, response.content
    content.refresh_from_db()
    assert (content.title, content.excerpt) == ("New title", "")

    refused = owner.post(f"/api/v1/writer/content/{content.pk}/update_content/", {"title": SCRIPT}, format="json")
    assert_error(refused, 400, "validation_error", errors={"title": ["This field is required"]})
    content.refresh_from_db()
    assert content.title == "New title"


def test_taxonomy_names_are_stored_as_plain_text(tenant, as_user):
    owner = as_user(tenant.owner)
    response = owner.post("/api/v1/writer/taxonomies/", {"site_id": tenant.site.pk, "taxonomy_type": "tag", "name": f"Shoes {SCRIPT}{ONERROR}"}, format="json")

    assert response.status_code == 201, response.content
    assert Taxonomy.objects.for_account(tenant.account).get(pk=response.json()["data"]["id"]).name == "Shoes"
    refused = owner.post("/api/v1/writer/taxonomies/", {"site_id": tenant.site.pk, "taxonomy_type": "tag", "name": SCRIPT}, format="json")
    assert_error(refused, 400, "validation_error", errors={"name": ["This field is required"]})


def test_taxonomy_names_a_cms_sync_brings_are_stored_as_plain_text(tenant):
    integration = make_integration(tenant)
    terms = [RemoteTerm(taxonomy="category", external_id="7", name=f"Garden {ONERROR}&amp; Tools", slug="garden", parent_external_id="")]

    integration_services.import_terms(integration=integration, taxonomy_type="category", terms=terms)

    assert Taxonomy.objects.for_account(tenant.account).get(external_id="7").name == "Garden & Tools"


def test_alt_texts_an_ai_provider_writes_are_stored_as_plain_text(tenant, as_user, eager_jobs, openai_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    system.integration_settings_save(
        account=tenant.account, integration_type="ai_provider", user=tenant.owner, values={"provider": "openai", "base_url": openai_server.base_url, "api_key": TEST_API_KEY}
    )
    prompts = {"images": [{"prompt": "A trail shoe", "alt_text": f"A shoe {ONERROR}{SCRIPT} on a trail", "image_type": "featured"}]}
    openai_server.script("chat", [Behaviour.content(prompts)])
    content = make_content(tenant)

    with eager_jobs():
        response = as_user(tenant.owner).post("/api/v1/writer/images/generate_for_content/", {"content_id": content.pk, "count": 1}, format="json")

    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    assert job.status == "succeeded", job.error
    assert Image.objects.for_account(tenant.account).get(content=content).alt_text == "A shoe on a trail"
