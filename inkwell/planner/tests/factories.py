"""Planner rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py).

The ``make_*`` helpers build rows of a tenant with sensible values; the matrix factories put the
marker into a text field of the account's row, never into the shared keywords library (which
every account reads), so that a leak of the row into another account's response shows.
"""

import uuid

from inkwell.keywords.models import SeedKeyword
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.tenancy.models import IndustrySector, Sector, Site

WORDS = ("running", "trail", "shoes", "marathon", "training", "plan", "socks", "injury", "recovery", "stretching")


def make_sector(tenant, site: Site | None = None, industry_sector: IndustrySector | None = None) -> Sector:
    """A new sector of ``site`` (the tenant's by default), on an industry sector the site does not use yet."""
    site = site or tenant.site
    industry_sector = industry_sector or IndustrySector.objects.exclude(pk__in=site.sectors.values("industry_sector_id")).order_by("id").first()
    return Sector.objects.create(account=tenant.account, site=site, industry_sector=industry_sector, name=industry_sector.name)


def site_sector(tenant, site: Site | None = None) -> Sector:
    """The site's first sector, made when it has none."""
    site = site or tenant.site
    return site.sectors.order_by("id").first() or make_sector(tenant, site)


def make_seed_keywords(
    industry_sector: IndustrySector, count: int = 0, *, texts: list[str] | None = None, paid_cost: int = 0, paid_every: int = 0, volume: int = 1000
) -> list[SeedKeyword]:
    """Library keywords of one industry sector, bulk-created: ``texts`` as given, or ``count``
    generated ones (two running words made unique by a number). Every ``paid_every``-th one (none
    when 0) is paid and costs ``paid_cost``."""
    tag = uuid.uuid4().hex[:6]
    if texts is None:
        texts = [f"{WORDS[n % len(WORDS)]} {WORDS[(n // len(WORDS)) % len(WORDS)]} {tag}{n}" for n in range(count)]
    seeds = []
    for n, text in enumerate(texts):
        paid = bool(paid_every) and n % paid_every == 0
        seeds.append(
            SeedKeyword(
                keyword=text,
                volume=volume + n,
                difficulty=n % 101,
                country="US",
                industry_sector=industry_sector,
                is_paid=paid,
                credit_cost=paid_cost if paid else 0,
            )
        )
    return SeedKeyword.objects.bulk_create(seeds, batch_size=500)


def make_keyword(tenant, *, site: Site | None = None, sector: Sector | None = None, seed: SeedKeyword | None = None, **fields) -> Keyword:
    site = site or tenant.site
    sector = sector or site_sector(tenant, site)
    seed = seed or make_seed_keywords(sector.industry_sector, 1)[0]
    fields.setdefault("keyword", seed.keyword)
    fields.setdefault("volume", seed.volume)
    fields.setdefault("difficulty", seed.difficulty)
    return Keyword.objects.create(account=tenant.account, site=site, sector=sector, seed_keyword=seed, **fields)


def make_cluster(tenant, *, site: Site | None = None, sector: Sector | None = None, name: str = "Running shoes", **fields) -> Cluster:
    return Cluster.objects.create(account=tenant.account, site=site or tenant.site, sector=sector, name=name, **fields)


def make_idea(tenant, *, site: Site | None = None, title: str = "How to choose running shoes", **fields) -> ContentIdea:
    fields.setdefault("target_keywords", ["running shoes", "trail shoes"])
    fields.setdefault("outline", ["Fit", "Cushioning", "Price"])
    return ContentIdea.objects.create(account=tenant.account, site=site or tenant.site, title=title, **fields)


def _keyword(tenant, marker: str) -> Keyword:
    return make_keyword(tenant, keyword=marker)


def _cluster(tenant, marker: str) -> Cluster:
    return make_cluster(tenant, name=marker, description=marker)


def _idea(tenant, marker: str) -> ContentIdea:
    return make_idea(tenant, title=marker, description=marker, target_keywords=[marker])


CROSS_ACCOUNT_FACTORIES = {Keyword: _keyword, Cluster: _cluster, ContentIdea: _idea}
