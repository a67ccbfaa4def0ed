"""services.site_create, site_update, sector_create and sector_update."""

import pytest
from django.db import IntegrityError, transaction

from inkwell.api.exceptions import Conflict, PlanLimitReached
from inkwell.tenancy import services
from inkwell.tenancy.models import IndustrySector, Plan, Sector, Site, Subscription

pytestmark = pytest.mark.django_db


def _on_plan(tenant, slug: str):
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug=slug))
    tenant.account.refresh_from_db()
    return tenant


# Sites ----------------------------------------------------------------------------------------


def test_a_new_site_belongs_to_the_account_with_a_slug_from_its_name(big_tenant):
    site = services.site_create(
        account=big_tenant.account, name="My Blog!", domain="blog.example.com", time_zone="Europe/Berlin", is_active=False
    )

    site = Site.objects.for_account(big_tenant.account).get(pk=site.pk)
    assert (site.name, site.domain, site.slug, site.time_zone, site.is_active) == (
        "My Blog!",
        "blog.example.com",
        "my-blog",
        "Europe/Berlin",
        False,
    )
    assert site.url == "https://blog.example.com"


def test_site_slugs_are_unique_across_accounts(big_tenant, other_tenant):
    _on_plan(other_tenant, "scale")

    first = services.site_create(account=big_tenant.account, name="Blog", domain="one.example.com")
    second = services.site_create(account=other_tenant.account, name="Blog", domain="two.example.com")
    third = services.site_create(account=big_tenant.account, name="Blog", domain="three.example.com")

    assert [first.slug, second.slug, third.slug] == ["blog", "blog-2", "blog-3"]


def test_a_name_without_letters_still_gets_a_slug(big_tenant):
    assert services.site_create(account=big_tenant.account, name="!!!", domain="bang.example.com").slug == "site"


def test_the_plans_max_sites_is_enforced(tenant):
    # The free plan allows one site, which the tenant already has.
    assert tenant.account.subscription.plan.max_sites == 1

    with pytest.raises(PlanLimitReached) as raised:
        services.site_create(account=tenant.account, name="Second", domain="second.example.com")

    assert raised.value.errors == {"max_sites": ["Your plan allows at most 1"]}
    assert Site.objects.for_account(tenant.account).count() == 1


def test_a_bigger_plan_allows_more_sites_up_to_its_limit(tenant):
    _on_plan(tenant, "starter")  # three sites

    services.site_create(account=tenant.account, name="Two", domain="two.example.com")
    services.site_create(account=tenant.account, name="Three", domain="three.example.com")
    with pytest.raises(PlanLimitReached):
        services.site_create(account=tenant.account, name="Four", domain="four.example.com")

    assert Site.objects.for_account(tenant.account).count() == 3


def test_site_domains_are_unique_per_account_case_insensitively(big_tenant):
    with pytest.raises(Conflict) as raised:
        services.site_create(account=big_tenant.account, name="Copy", domain=big_tenant.site.domain.upper())

    assert raised.value.errors == {"domain": ["A site with this domain already exists"]}
    assert Site.objects.for_account(big_tenant.account).count() == 1


def test_the_database_also_refuses_a_duplicate_domain(big_tenant):
    with pytest.raises(IntegrityError), transaction.atomic():
        Site.objects.create(account=big_tenant.account, name="Copy", domain=big_tenant.site.domain.upper(), slug="copy-of-site")


def test_another_account_may_use_the_same_domain(big_tenant, other_tenant):
    _on_plan(other_tenant, "scale")

    site = services.site_create(account=other_tenant.account, name="Same", domain=big_tenant.site.domain)

    assert site.account == other_tenant.account


def test_site_update_changes_fields_and_keeps_its_own_domain(big_tenant):
    site = services.site_update(site=big_tenant.site, name="Renamed", domain=big_tenant.site.domain, time_zone="Asia/Tokyo")

    site = Site.objects.for_account(big_tenant.account).get(pk=site.pk)
    assert (site.name, site.time_zone) == ("Renamed", "Asia/Tokyo")


def test_site_update_cannot_take_another_sites_domain(big_tenant):
    other = services.site_create(account=big_tenant.account, name="Other", domain="other.example.com")

    with pytest.raises(Conflict) as raised:
        services.site_update(site=other, domain=big_tenant.site.domain.upper())

    assert raised.value.errors == {"domain": ["A site with this domain already exists"]}
    assert Site.objects.for_account(big_tenant.account).get(pk=other.pk).domain == "other.example.com"


# Sectors --------------------------------------------------------------------------------------


@pytest.fixture
def industry_sectors(db):
    return list(IndustrySector.objects.order_by("id")[:2])


def test_a_sector_takes_the_industry_sectors_name_unless_given_one(tenant, industry_sectors):
    first, second = industry_sectors

    unnamed = services.sector_create(account=tenant.account, site=tenant.site, industry_sector=first)
    named = services.sector_create(account=tenant.account, site=tenant.site, industry_sector=second, name="Ours")

    rows = {sector.pk: sector for sector in Sector.objects.for_account(tenant.account)}
    assert rows[unnamed.pk].name == first.name
    assert rows[named.pk].name == "Ours"
    assert {sector.site_id for sector in rows.values()} == {tenant.site.pk}


def test_a_site_has_each_industry_sector_once(tenant, industry_sectors):
    services.sector_create(account=tenant.account, site=tenant.site, industry_sector=industry_sectors[0])

    with pytest.raises(Conflict) as raised:
        services.sector_create(account=tenant.account, site=tenant.site, industry_sector=industry_sectors[0], name="Again")

    assert raised.value.errors == {"industry_sector_id": ["This site already has this sector"]}
    assert Sector.objects.for_account(tenant.account).count() == 1


def test_another_site_may_have_the_same_industry_sector(big_tenant, other_tenant, industry_sectors):
    second_site = services.site_create(account=big_tenant.account, name="Second", domain="second.example.com")

    services.sector_create(account=big_tenant.account, site=big_tenant.site, industry_sector=industry_sectors[0])
    services.sector_create(account=big_tenant.account, site=second_site, industry_sector=industry_sectors[0])
    services.sector_create(account=other_tenant.account, site=other_tenant.site, industry_sector=industry_sectors[0])

    assert Sector.objects.for_account(big_tenant.account).count() == 2
    assert Sector.objects.for_account(other_tenant.account).count() == 1


def test_sector_update_renames_it(tenant, industry_sectors):
    sector = services.sector_create(account=tenant.account, site=tenant.site, industry_sector=industry_sectors[0])

    services.sector_update(sector=sector, name="Renamed")

    assert Sector.objects.for_account(tenant.account).get(pk=sector.pk).name == "Renamed"


def test_deleting_a_site_deletes_its_sectors(tenant, industry_sectors):
    services.sector_create(account=tenant.account, site=tenant.site, industry_sector=industry_sectors[0])

    Site.objects.for_account(tenant.account).get(pk=tenant.site.pk).delete()

    assert not Sector.objects.for_account(tenant.account).exists()
