"""``process_content``: which articles are targets, their URLs, and how the body is saved."""

import pytest

from inkwell.linker.selectors import link_targets
from inkwell.linker.services import process_content
from inkwell.linker.tests.factories import make_article, live_url
from inkwell.planner.models import KeywordStatus
from inkwell.planner.tests.factories import make_cluster, make_keyword
from inkwell.writer.models import Content, ContentRevision, SiteStatus
from inkwell.writer.sanitize import visible_word_count
from inkwell.writer.tests.factories import make_task

pytestmark = pytest.mark.django_db

BODY = "<h2>Gear</h2><p>Good trail running shoes matter.</p><p>Pack recovery snacks and running socks.</p>"


def revisions(content) -> list[ContentRevision]:
    return list(ContentRevision.objects.for_account(content.account_id).filter(content=content))


def test_an_article_links_to_the_articles_whose_keywords_it_mentions(tenant):
    shoes = make_article(tenant, "Trail running shoes", focus_keyword="trail running shoes")
    socks = make_article(tenant, "Socks guide", keywords=["merino socks", "running socks"])
    source = make_article(tenant, "Race day", BODY, focus_keyword="race day")

    result = process_content(account=tenant.account, content=source, user=tenant.owner)

    assert result == {
        "content_id": source.pk,
        "links_added": 2,
        "links": [
            {"anchor_text": "trail running shoes", "target_content_id": shoes.pk, "url": live_url(tenant.site, "trail-running-shoes")},
            {"anchor_text": "running socks", "target_content_id": socks.pk, "url": live_url(tenant.site, "socks-guide")},
        ],
    }
    source.refresh_from_db()
    assert source.html == (
        f'<h2>Gear</h2><p>Good <a href="{live_url(tenant.site, "trail-running-shoes")}">trail running shoes</a> matter.</p>'
        f'<p>Pack recovery snacks and <a href="{live_url(tenant.site, "socks-guide")}">running socks</a>.</p>'
    )


def test_the_new_body_is_a_new_revision_made_by_the_writer(tenant):
    make_article(tenant, "Trail running shoes", focus_keyword="trail running shoes")
    source = make_article(tenant, "Race day", BODY)

    process_content(account=tenant.account, content=source, user=tenant.editor)

    source.refresh_from_db()
    [revision] = revisions(source)
    assert (revision.html, revision.created_by_id) == (BODY, tenant.editor.pk)
    assert source.word_count == visible_word_count(source.html) == visible_word_count(BODY)


def test_nothing_to_link_leaves_the_article_and_its_revisions_alone(tenant):
    make_article(tenant, "Kayaks", focus_keyword="sea kayaks")
    source = make_article(tenant, "Race day", BODY)
    before = source.updated_at

    result = process_content(account=tenant.account, content=source, user=tenant.owner)

    assert result == {"content_id": source.pk, "links_added": 0, "links": []}
    source.refresh_from_db()
    assert (source.html, source.updated_at, revisions(source)) == (BODY, before, [])


def test_running_it_again_adds_nothing(tenant):
    make_article(tenant, "Trail running shoes", focus_keyword="trail running shoes")
    source = make_article(tenant, "Race day", BODY)
    process_content(account=tenant.account, content=source, user=tenant.owner)
    source.refresh_from_db()
    linked = source.html

    again = process_content(account=tenant.account, content=source, user=tenant.owner)

    source.refresh_from_db()
    assert again["links"] == []
    assert source.html == linked
    assert len(revisions(source)) == 1


def test_only_articles_live_on_the_cms_are_linked_and_by_their_real_url(tenant):
    published = make_article(tenant, "Shoes", focus_keyword="trail running shoes", external_url="https://blog.example.com/shoes-2024/")
    draft = make_article(tenant, "Running Socks: A Guide", keywords=["running socks"], slug="", live=False)
    scheduled = make_article(tenant, "Recovery", keywords=["recovery snacks"], live=False, site_status=SiteStatus.SCHEDULED)
    source = make_article(tenant, "Race day", BODY)

    links = process_content(account=tenant.account, content=source, user=tenant.owner)["links"]

    assert [(link["target_content_id"], link["url"]) for link in links] == [(published.pk, "https://blog.example.com/shoes-2024/")]
    # Once the draft is live, the link to it is offered, at the address the CMS gave it.
    Content.objects.for_account(tenant.account).filter(pk=draft.pk).update(site_status=SiteStatus.PUBLISHED, external_url="https://blog.example.com/socks/")
    links = process_content(account=tenant.account, content=source, user=tenant.owner)["links"]
    assert [(link["target_content_id"], link["url"]) for link in links] == [(draft.pk, "https://blog.example.com/socks/")]
    assert scheduled.pk not in {link["target_content_id"] for link in links}


def test_the_keywords_of_a_targets_cluster_link_to_it(tenant):
    cluster = make_cluster(tenant, name="Recovery")
    make_keyword(tenant, keyword="recovery snacks", cluster=cluster)
    make_keyword(tenant, keyword="pack recovery", cluster=cluster, status=KeywordStatus.ARCHIVED)
    target = make_article(tenant, "After the race", focus_keyword="post race meals", task=make_task(tenant, cluster=cluster))
    source = make_article(tenant, "Race day", BODY)

    links = process_content(account=tenant.account, content=source, user=tenant.owner)["links"]

    assert links == [{"anchor_text": "recovery snacks", "target_content_id": target.pk, "url": live_url(tenant.site, "after-the-race")}]


def test_the_linker_never_links_to_articles_of_another_site_or_account(tenant, other_tenant, second_site):
    make_article(tenant, "Shoes elsewhere", site=second_site, focus_keyword="trail running shoes")
    make_article(other_tenant, "Their socks", focus_keyword="running socks")
    make_article(other_tenant, "Their shoes", site=other_tenant.site, keywords=["recovery snacks"])
    source = make_article(tenant, "Race day", BODY)

    result = process_content(account=tenant.account, content=source, user=tenant.owner)

    assert result["links"] == []
    assert {target.content_id for target in link_targets(tenant.account, tenant.site.pk)} == {source.pk}


def test_the_article_never_links_to_itself_nor_away_from_its_own_focus_keyword(tenant):
    make_article(tenant, "Shoes", keywords=["trail running shoes"])
    source = make_article(tenant, "Race day", BODY, focus_keyword="trail running shoes", keywords=["running socks"])

    assert process_content(account=tenant.account, content=source, user=tenant.owner)["links"] == []


def test_the_maximum_comes_from_the_setting_unless_the_request_gives_one(tenant, settings):
    make_article(tenant, "Trail running shoes", focus_keyword="trail running shoes")
    make_article(tenant, "Socks guide", focus_keyword="running socks")
    settings.LINKER_MAX_LINKS = 1
    first = make_article(tenant, "Race day", BODY)
    second = make_article(tenant, "Race night", BODY)

    assert process_content(account=tenant.account, content=first, user=tenant.owner)["links_added"] == 1
    assert process_content(account=tenant.account, content=second, user=tenant.owner, max_links=2)["links_added"] == 2
