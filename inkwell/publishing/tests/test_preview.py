"""The preview as readers see it (#36): the page as publishing lays it out, the search result cut
as search engines cut it, and the social card."""

import pytest

from inkwell.publishing.preview import content_preview, truncated
from inkwell.writer.models import ImageStatus, ImageType
from inkwell.writer.tests.image_factories import make_content, make_image

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("Short enough", 60, "Short enough"),
        ("Reading the tides: a sailor's guide to tide tables and currents for beginners", 60, "Reading the tides: a sailor's guide to tide tables and…"),
        ("  spaced   out  ", 60, "spaced out"),
        ("Onewordthatislongerthanthelimitofthesnippetitself", 20, "Onewordthatislonger…"),
        ("A list, with a comma, at the cut", 16, "A list, with a…"),
    ],
    ids=["fits", "cut-at-a-word", "white-space", "one-long-word", "no-dangling-comma"],
)
def test_a_search_snippet_is_cut_at_a_words_end_with_an_ellipsis(text, limit, expected):
    assert truncated(text, limit) == expected
    assert len(truncated(text, limit)) <= limit


def test_the_preview_shows_the_page_with_its_featured_and_in_article_images_placed_as_publishing_places_them(tenant):
    content = make_content(tenant, slug="balcony-tomatoes")
    featured = make_image(tenant, content=content, image_type=ImageType.FEATURED, status=ImageStatus.GENERATED, file="images/featured.png", alt_text="A balcony")
    make_image(tenant, content=content, status=ImageStatus.GENERATED, file="images/pots.png", alt_text="Pots", position=1)
    make_image(tenant, content=content, status=ImageStatus.FAILED, alt_text="Never made", position=2)

    preview = content_preview(content=content)

    assert preview.featured_url.endswith("images/featured.png") and preview.featured_alt == featured.alt_text
    body = preview.body_html
    # The first in-article image goes before the second H2, as publishing puts it.
    assert body.index('alt="Pots"') < body.index("<h2>Pots and soil</h2>") and body.index("<h2>Choosing a variety</h2>") < body.index('alt="Pots"')
    assert "Never made" not in body
    assert preview.author_line.startswith(f"By {tenant.site.name} · ")
    assert preview.snippet.url == f"https://{tenant.site.domain}/balcony-tomatoes/"
    assert preview.snippet.breadcrumb == f"{tenant.site.domain} › balcony-tomatoes"
    assert preview.card.image_url == preview.featured_url and preview.card.domain == tenant.site.domain.upper()


def test_the_snippet_falls_back_to_the_title_and_the_opening_text_and_cuts_shorter_on_a_phone(tenant):
    content = make_content(tenant, title="Growing tomatoes on a balcony: the complete guide for small city spaces", meta_title="", meta_description="")

    snippet = content_preview(content=content).snippet

    assert snippet.title == "Growing tomatoes on a balcony: the complete guide for…" and snippet.title_cut
    assert snippet.description["desktop"].startswith("Growing tomatoes on a balcony Balcony tomatoes need sun")
    assert len(snippet.description["phone"]) <= 120 < len(snippet.description["desktop"]) <= 160
    assert snippet.description_cut == {"desktop": True, "phone": True}
