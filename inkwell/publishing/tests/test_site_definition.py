"""The public site definition and its deployments: only what is published, by slug or domain,
without credentials, cached, versioned when it changes."""

import pytest
from django.utils import timezone

from inkwell.publishing import definition
from inkwell.publishing.models import Deployment
from inkwell.tenancy.models import Subscription
from inkwell.writer.models import ContentStatus, SiteStatus, TaxonomyType
from inkwell.writer.tests.factories import make_content, make_sector, make_taxonomy

URL = "/api/v1/publisher/site-definition/"
pytestmark = pytest.mark.django_db


def publish(content, url="https://example.test/post/"):
    content.status, content.site_status, content.external_url, content.published_at = ContentStatus.PUBLISHED, SiteStatus.PUBLISHED, url, timezone.now()
    content.save()
    return content


def test_the_definition_lists_the_site_its_sectors_taxonomies_and_only_published_articles(tenant, api_client):
    sector = make_sector(tenant, name="Gardening")
    category = make_taxonomy(tenant, name="Vegetables")
    tag = make_taxonomy(tenant, taxonomy_type=TaxonomyType.TAG, name="Balcony")
    live = publish(make_content(tenant, title="Live article", slug="live-article", excerpt="In short", sector=sector))
    live.taxonomies.set([category, tag])
    make_content(tenant, title="SECRET-DRAFT", html="<p>SECRET-DRAFT body</p>")
    make_content(tenant, title="SECRET-SCHEDULED", status=ContentStatus.APPROVED, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=timezone.now())
    make_content(tenant, title="SECRET-FAILED", status=ContentStatus.APPROVED, site_status=SiteStatus.FAILED)
    # Live on the CMS once, then taken back there (the webhook makes it not_published).
    make_content(tenant, title="SECRET-UNPUBLISHED", status=ContentStatus.PUBLISHED, site_status=SiteStatus.NOT_PUBLISHED, published_at=timezone.now())

    response = api_client.get(URL, {"site": tenant.site.slug})

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["site"] == {"name": tenant.site.name, "slug": tenant.site.slug, "domain": tenant.site.domain, "url": tenant.site.url, "time_zone": "UTC"}
    assert {"id": sector.pk, "name": "Gardening", "industry_sector_id": sector.industry_sector_id, "industry_sector_name": sector.industry_sector.name} in data["sectors"]
    assert data["categories"] == [{"id": category.pk, "name": "Vegetables", "slug": "vegetables", "parent_id": None}]
    assert data["tags"] == [{"id": tag.pk, "name": "Balcony", "slug": "balcony"}]
    assert [article["title"] for article in data["articles"]] == ["Live article"]
    article = data["articles"][0]
    assert article["url"] == "https://example.test/post/"
    assert article["categories"] == ["vegetables"] and article["tags"] == ["balcony"]
    assert article["excerpt"] == "In short" and article["sector_id"] == sector.pk
    assert data["version"] is None
    body = response.content.decode()
    assert "SECRET" not in body
    assert tenant.account.name not in body and tenant.owner.email not in body


def test_an_active_site_with_nothing_published_answers_200_with_no_articles(big_tenant, api_client, as_user):
    tenant = big_tenant
    created = as_user(tenant.owner).post("/api/v1/auth/sites/", {"name": "Fresh blog", "domain": "fresh.example.com"}, format="json").json()["data"]
    make_content(tenant, title="SECRET-DRAFT")

    for query in ({"site": created["slug"]}, {"domain": "fresh.example.com"}):
        response = api_client.get(URL, query)
        assert response.status_code == 200, response.content
        data = response.json()["data"]
        assert (data["site"]["slug"], data["articles"], data["version"]) == (created["slug"], [], None)


def test_the_definition_is_found_by_domain_in_any_case(tenant, api_client):
    response = api_client.get(URL, {"domain": tenant.site.domain.upper()})

    assert response.status_code == 200
    assert response.json()["data"]["site"]["slug"] == tenant.site.slug


def test_an_unknown_inactive_or_lapsed_site_is_not_found(tenant, other_tenant, api_client):
    assert api_client.get(URL, {"site": "no-such-site"}).status_code == 404
    other_tenant.site.is_active = False
    other_tenant.site.save()
    assert api_client.get(URL, {"site": other_tenant.site.slug}).status_code == 404
    Subscription.objects.for_account(tenant.account).update(status="cancelled")
    assert api_client.get(URL, {"site": tenant.site.slug}).status_code == 404


def test_the_query_needs_exactly_one_of_site_and_domain(tenant, api_client):
    for query in ({}, {"site": tenant.site.slug, "domain": tenant.site.domain}):
        response = api_client.get(URL, query)
        assert response.status_code == 400
        assert response.json()["errors"] == {"site": ["Give either site (a slug) or domain"]}


def test_the_definition_is_served_from_the_cache_until_a_new_deployment(tenant, api_client, django_assert_max_num_queries):
    publish(make_content(tenant, title="First"))
    first = api_client.get(URL, {"site": tenant.site.slug})
    assert first["Cache-Control"] == "public, max-age=60"
    publish(make_content(tenant, title="Second"))

    cached = api_client.get(URL, {"site": tenant.site.slug}).json()["data"]
    assert [article["title"] for article in cached["articles"]] == ["First"]

    deployment = definition.deploy(tenant.site)
    fresh = api_client.get(URL, {"site": tenant.site.slug}).json()["data"]
    assert fresh["version"] == deployment.version == 1
    assert {article["title"] for article in fresh["articles"]} == {"First", "Second"}


def test_a_deployment_is_made_only_when_the_definition_changed(tenant):
    publish(make_content(tenant, title="One"))

    first = definition.deploy(tenant.site)
    assert first.version == 1 and first.article_count == 1
    assert definition.deploy(tenant.site) is None

    publish(make_content(tenant, title="Two"))
    second = definition.deploy(tenant.site)
    assert second.version == 2 and second.article_count == 2
    assert [article["title"] for article in second.definition["articles"]] == ["Two", "One"]


def test_the_sweep_deploys_sites_whose_published_content_changed_and_skips_the_rest(tenant, other_tenant, make_tenant):
    quiet = make_tenant("quiet")
    publish(make_content(tenant, title="Live"))
    publish(make_content(other_tenant, title="Also live"))
    make_content(quiet, title="Only a draft")

    assert definition.deploy_changed_sites() == 2
    assert definition.deploy_changed_sites() == 0
    assert not Deployment.objects.for_account(quiet.account).exists()

    make_content(tenant, title="Another draft")
    assert definition.sites_to_deploy() == []
    publish(make_content(tenant, title="Live too"))
    assert definition.sites_to_deploy() == [tenant.site]
