"""The linker's suggest mode (#19): links by meaning, with scores and anchor texts; applying them
keeps the exact linker's rules."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.linker.suggestions import suggest_links
from inkwell.linker.tests.factories import make_article, live_url
from inkwell.writer.models import Content, ContentRevision

pytestmark = pytest.mark.django_db

SUGGEST = "/api/v1/linker/suggest/"
APPLY = "/api/v1/linker/apply_suggestions/"

SOURCE_HTML = (
    "<h2>Flat feet and running shoes</h2>"
    "<p>If your arches collapse when you jog, pick stability footwear with firm support under the midfoot.</p>"
    "<p>Our long run starts at seven on Sunday morning, near the lake.</p>"
    "<p>Afterwards we drink iced coffee that steeped overnight in the fridge.</p>"
)


@pytest.fixture
def site(tenant):
    flat_feet = make_article(tenant, "How to Choose Running Shoes for Flat Feet", focus_keyword="running shoes for flat feet", keywords=["overpronation"])
    cold_brew = make_article(tenant, "Cold Brew Coffee at Home", focus_keyword="cold brew coffee", keywords=["cold brew ratio"])
    mortgages = make_article(tenant, "Mortgage Rates Explained", focus_keyword="mortgage rates")
    source = make_article(tenant, "Our Sunday Long Run", SOURCE_HTML, focus_keyword="sunday long run")
    return {"flat_feet": flat_feet, "cold_brew": cold_brew, "mortgages": mortgages, "source": source}


def test_targets_whose_topic_matches_a_paragraph_are_suggested_without_their_exact_phrase(tenant, site, as_user):
    response = as_user(tenant.owner).post(SUGGEST, {"content_id": site["source"].pk}, format="json")

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    by_target = {item["target_content_id"]: item for item in data["suggestions"]}
    assert set(by_target) == {site["flat_feet"].pk, site["cold_brew"].pk}
    feet, brew = by_target[site["flat_feet"].pk], by_target[site["cold_brew"].pk]
    assert feet["block"] == 0 and feet["paragraph"].startswith("If your arches collapse")
    assert brew["block"] == 2 and brew["paragraph"].startswith("Afterwards we drink iced coffee")
    for item in (feet, brew):
        assert item["anchor_text"] in item["paragraph"]
        assert 0.35 <= item["score"] <= 1.0
    assert feet["url"] == live_url(tenant.site, "how-to-choose-running-shoes-for-flat-feet") and feet["title"] == "How to Choose Running Shoes for Flat Feet"
    assert [item["score"] for item in data["suggestions"]] == sorted((item["score"] for item in data["suggestions"]), reverse=True)
    # Suggesting changes nothing.
    assert Content.objects.for_account(tenant.account).get(pk=site["source"].pk).html == SOURCE_HTML
    assert not ContentRevision.objects.for_account(tenant.account).exists()


def test_suggestions_never_name_the_article_itself_nor_a_target_it_links_to(tenant, site):
    source = site["source"]
    source.html = SOURCE_HTML.replace("near the lake", 'near <a href="/how-to-choose-running-shoes-for-flat-feet/">the lake</a>')
    source.save()

    suggested = {item.target_content_id for item in suggest_links(account=tenant.account, content=source)}

    assert site["flat_feet"].pk not in suggested and source.pk not in suggested


def test_suggestions_respect_max_links(tenant, site):
    assert len(suggest_links(account=tenant.account, content=site["source"], max_links=1)) == 1


def test_anchors_never_come_from_headings_or_existing_links(tenant, site):
    source = site["source"]
    source.html = '<h2>Running shoes for flat feet</h2><p>If your arches collapse when you jog, pick <a href="https://example.org/">stability footwear</a> with firm support under the midfoot.</p>'
    source.save()

    [item] = suggest_links(account=tenant.account, content=source)

    assert item.target_content_id == site["flat_feet"].pk
    assert item.paragraph == "If your arches collapse when you jog, pick with firm support under the midfoot."
    assert item.anchor_text in item.paragraph and "flat feet" not in item.anchor_text.lower()


def test_applying_suggestions_links_them_once_and_again_adds_nothing(tenant, site, as_user):
    client = as_user(tenant.owner)
    suggestions = client.post(SUGGEST, {"content_id": site["source"].pk}, format="json").json()["data"]["suggestions"]
    chosen = [{"target_content_id": item["target_content_id"], "anchor_text": item["anchor_text"]} for item in suggestions]

    first = client.post(APPLY, {"content_id": site["source"].pk, "links": chosen}, format="json")

    assert first.status_code == 200, first.content
    data = first.json()["data"]
    assert data["links_added"] == 2
    assert {link["target_content_id"] for link in data["links"]} == {site["flat_feet"].pk, site["cold_brew"].pk}
    source = Content.objects.for_account(tenant.account).get(pk=site["source"].pk)
    for item in suggestions:
        assert f'<a href="{item["url"]}">{item["anchor_text"]}</a>' in source.html
    assert source.html.startswith("<h2>Flat feet and running shoes</h2>")
    assert ContentRevision.objects.for_account(tenant.account).filter(content=source).count() == 1

    again = client.post(APPLY, {"content_id": site["source"].pk, "links": chosen}, format="json").json()["data"]
    assert again["links_added"] == 0
    assert Content.objects.for_account(tenant.account).get(pk=source.pk).html == source.html
    assert client.post(SUGGEST, {"content_id": source.pk}, format="json").json()["data"]["suggestions"] == []


def test_applying_keeps_one_link_per_target_and_no_self_link_or_heading_link(tenant, site, as_user):
    source = site["source"]
    links = [
        {"target_content_id": site["flat_feet"].pk, "anchor_text": "stability footwear"},
        {"target_content_id": site["flat_feet"].pk, "anchor_text": "firm support"},
        {"target_content_id": source.pk, "anchor_text": "long run"},
        {"target_content_id": site["mortgages"].pk, "anchor_text": "Flat feet"},  # only in the heading
    ]

    data = as_user(tenant.owner).post(APPLY, {"content_id": source.pk, "links": links}, format="json").json()["data"]

    assert [(link["target_content_id"], link["anchor_text"]) for link in data["links"]] == [(site["flat_feet"].pk, "stability footwear")]
    html = Content.objects.for_account(tenant.account).get(pk=source.pk).html
    assert html.count("<a ") == 1 and "<h2>Flat feet and running shoes</h2>" in html


def test_another_accounts_content_is_refused(tenant, other_tenant, site, as_user):
    theirs = make_article(other_tenant, "Theirs", "<p>Stability footwear for flat arches.</p>")
    client = as_user(tenant.owner)

    assert_error(client.post(SUGGEST, {"content_id": theirs.pk}, format="json"), 400, "validation_error", errors={"content_id": ["Content must belong to your account"]})
    response = client.post(APPLY, {"content_id": theirs.pk, "links": [{"target_content_id": site["flat_feet"].pk, "anchor_text": "Stability footwear"}]}, format="json")
    assert_error(response, 400, "validation_error", errors={"content_id": ["Content must belong to your account"]})
    assert Content.objects.for_account(other_tenant.account).get(pk=theirs.pk).html == "<p>Stability footwear for flat arches.</p>"


def test_a_target_of_another_account_is_never_linked(tenant, other_tenant, site, as_user):
    theirs = make_article(other_tenant, "Theirs", focus_keyword="stability footwear")

    data = as_user(tenant.owner).post(
        APPLY, {"content_id": site["source"].pk, "links": [{"target_content_id": theirs.pk, "anchor_text": "stability footwear"}]}, format="json"
    ).json()["data"]

    assert data["links_added"] == 0
    assert "<a " not in Content.objects.for_account(tenant.account).get(pk=site["source"].pk).html


def test_apply_refuses_an_empty_list(tenant, site, as_user):
    response = as_user(tenant.owner).post(APPLY, {"content_id": site["source"].pk, "links": []}, format="json")
    assert_error(response, 400, "validation_error", errors={"links": ["Send at least one link"]})
