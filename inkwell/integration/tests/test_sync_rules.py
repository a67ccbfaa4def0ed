"""The rules of a sync, at the level of the services: how the CMS's terms become taxonomies and
how the posts of our content are read and reported to publishing (which applies them:
``publishing/tests/test_remote_post.py``). The CMS here is a small in-memory stand-in
for the adapter interface; the API tests sync against a WordPress-faithful server."""

from datetime import UTC, datetime

import pytest

from inkwell.cms.base import RemotePost, RemoteTerm
from inkwell.integration import services
from inkwell.integration.tests.factories import make_integration
from inkwell.writer.models import SiteStatus, Taxonomy, TaxonomyType
from inkwell.writer.tests.factories import make_content, make_taxonomy

pytestmark = pytest.mark.django_db

MODIFIED = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
URL = "https://blog.example.com/post/"


class PostsOnly:
    """The one adapter method reconciling uses, answering from a dict, counting its calls."""

    def __init__(self, posts: dict[str, RemotePost]):
        self.remote = posts
        self.requests: list[list[str]] = []

    def posts(self, external_ids):
        self.requests.append(list(external_ids))
        return {external_id: self.remote[external_id] for external_id in external_ids if external_id in self.remote}


@pytest.fixture
def integration(tenant):
    return make_integration(tenant)


def term(external_id: str, name: str, slug: str = "", parent: str = "", taxonomy: str = "category") -> RemoteTerm:
    return RemoteTerm(taxonomy=taxonomy, external_id=external_id, name=name, slug=slug or name.lower(), parent_external_id=parent)


def categories(tenant) -> dict[str, tuple]:
    rows = Taxonomy.objects.for_account(tenant.account).filter(site=tenant.site, taxonomy_type=TaxonomyType.CATEGORY).select_related("parent")
    return {row.slug: (row.name, row.external_id, row.parent.slug if row.parent else None) for row in rows}


def imported(integration, terms, taxonomy_type=TaxonomyType.CATEGORY) -> dict:
    return services.import_terms(integration=integration, taxonomy_type=taxonomy_type, terms=terms)


def test_terms_are_created_with_their_parents(tenant, integration):
    counts = imported(integration, [term("3", "Trail", parent="2"), term("2", "Running", parent="1"), term("1", "Sport")])

    assert counts == {"created": 3, "updated": 0, "unchanged": 0, "skipped": 0}
    assert categories(tenant) == {"sport": ("Sport", "1", None), "running": ("Running", "2", "sport"), "trail": ("Trail", "3", "running")}


def test_a_local_taxonomy_with_the_same_slug_is_linked_not_duplicated(tenant, integration):
    local = make_taxonomy(tenant, name="Running")

    counts = imported(integration, [term("7", "Running Gear", slug="running")])

    assert counts == {"created": 0, "updated": 1, "unchanged": 0, "skipped": 0}
    local.refresh_from_db()
    assert (local.name, local.external_id) == ("Running Gear", "7")


def test_a_second_sync_changes_nothing_and_follows_renames_and_moves(tenant, integration):
    imported(integration, [term("1", "Sport"), term("2", "Running", parent="1"), term("4", "Cycling")])

    assert imported(integration, [term("1", "Sport"), term("2", "Running", parent="1"), term("4", "Cycling")]) == {"created": 0, "updated": 0, "unchanged": 3, "skipped": 0}
    counts = imported(integration, [term("1", "Sports", slug="sports"), term("2", "Running", parent="4"), term("4", "Cycling")])
    assert counts == {"created": 0, "updated": 2, "unchanged": 1, "skipped": 0}
    assert categories(tenant) == {"sports": ("Sports", "1", None), "running": ("Running", "2", "cycling"), "cycling": ("Cycling", "4", None)}


def test_local_taxonomies_the_cms_does_not_have_stay(tenant, integration):
    make_taxonomy(tenant, name="Ours")
    make_taxonomy(tenant, name="Gone", external_id="99")

    imported(integration, [term("1", "Sport")])

    assert categories(tenant) == {"ours": ("Ours", "", None), "gone": ("Gone", "99", None), "sport": ("Sport", "1", None)}


def test_a_slug_held_at_the_start_of_the_sync_goes_to_no_other_taxonomy(tenant, integration):
    imported(integration, [term("1", "Jogging", slug="a")])

    # On the CMS term 1 took slug "b" and a new term 2 took "a": term 1 moves, term 2 waits for
    # the next sync, when "a" is free.
    first = imported(integration, [term("2", "New", slug="a"), term("1", "Jogging", slug="b")])
    assert first == {"created": 0, "updated": 1, "unchanged": 0, "skipped": 1}
    assert categories(tenant) == {"b": ("Jogging", "1", None)}
    second = imported(integration, [term("2", "New", slug="a"), term("1", "Jogging", slug="b")])
    assert second == {"created": 1, "updated": 0, "unchanged": 1, "skipped": 0}
    assert categories(tenant) == {"a": ("New", "2", None), "b": ("Jogging", "1", None)}


def test_tags_and_categories_with_one_slug_are_separate(tenant, integration):
    imported(integration, [term("1", "Running")])
    imported(integration, [term("9", "Running", taxonomy="tag")], taxonomy_type=TaxonomyType.TAG)

    rows = Taxonomy.objects.for_account(tenant.account).order_by("taxonomy_type").values_list("taxonomy_type", "slug", "external_id")
    assert list(rows) == [("category", "running", "1"), ("tag", "running", "9")]


def test_terms_of_another_site_are_not_matched(tenant, integration, second_site):
    theirs = make_taxonomy(tenant, site=second_site, name="Running", external_id="2")

    imported(integration, [term("2", "Running")])

    theirs.refresh_from_db()
    assert (theirs.site_id, theirs.name) == (second_site.pk, "Running")
    assert categories(tenant) == {"running": ("Running", "2", None)}


def remote(status: str, url: str = URL) -> RemotePost:
    return RemotePost(external_id="42", url=url, status=status, modified_at=MODIFIED)


def test_reconciling_asks_for_posts_in_batches_and_counts(tenant, integration, monkeypatch):
    monkeypatch.setattr(services, "POST_BATCH", 2)
    contents = [make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id=str(n), external_url=URL, published_at=MODIFIED) for n in range(1, 6)]
    make_content(tenant)  # not on the CMS: not asked about
    adapter = PostsOnly({"1": remote("publish"), "2": remote("draft"), "4": remote("trash"), "5": remote("publish")})
    reported = []

    counts = services.reconcile_contents(integration=integration, adapter=adapter, progress=reported.append)

    assert counts == {"checked": 5, "changed": 3, "gone": 1}
    assert adapter.requests == [["1", "2"], ["3", "4"], ["5"]]
    assert reported == [40, 80, 100]
    for content in contents:
        content.refresh_from_db()
    assert [(content.site_status, content.external_id) for content in contents] == [
        (SiteStatus.PUBLISHED, "1"),
        (SiteStatus.NOT_PUBLISHED, "2"),
        (SiteStatus.NOT_PUBLISHED, ""),
        (SiteStatus.NOT_PUBLISHED, "4"),
        (SiteStatus.PUBLISHED, "5"),
    ]


def test_reconciling_leaves_other_sites_alone(tenant, integration, second_site):
    elsewhere = make_content(tenant, site=second_site, site_status=SiteStatus.PUBLISHED, external_id="1")
    adapter = PostsOnly({})

    assert services.reconcile_contents(integration=integration, adapter=adapter) == {"checked": 0, "changed": 0, "gone": 0}
    assert adapter.requests == []
    elsewhere.refresh_from_db()
    assert elsewhere.site_status == SiteStatus.PUBLISHED
