import uuid
from dataclasses import dataclass

import pytest

from inkwell.billing import services as billing
from inkwell.billing.models import CreditLedger
from inkwell.keywords.models import SeedKeyword
from inkwell.planner.tests.factories import make_sector, make_seed_keywords
from inkwell.tenancy.models import Sector

# A small library of one industry sector with a few clear topics, for clustering and ideas.
TOPIC_KEYWORDS = [
    "best running shoes",
    "running shoes for flat feet",
    "cheap running shoes",
    "trail running shoes",
    "running shoes for women",
    "marathon training plan",
    "marathon training schedule",
    "first marathon training",
    "marathon training for beginners",
    "half marathon training plan",
    "knee pain after running",
    "shin splints running",
    "running injury prevention",
    "runner knee pain treatment",
    "stretching before running",
    "stretching after running",
    "hip stretches for runners",
    "best running socks",
    "compression socks for running",
    "running socks blisters",
]

PLANNER = "/api/v1/planner"


@pytest.fixture
def local_memory_cache(settings):
    """The rate-limit counter in local memory, so that counted queries are the endpoint's own on both profiles."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"planner-{uuid.uuid4().hex}"}}


@dataclass
class Planner:
    """A tenant on the biggest plan whose site has a sector, and that sector's library keywords."""

    tenant: object
    sector: Sector
    seeds: list[SeedKeyword]

    @property
    def site(self):
        return self.tenant.site

    @property
    def account(self):
        return self.tenant.account

    def payload(self, **extra) -> dict:
        return {"site_id": self.site.pk, "sector_id": self.sector.pk, **extra}


@pytest.fixture
def planner(big_tenant) -> Planner:
    sector = make_sector(big_tenant)
    return Planner(big_tenant, sector, make_seed_keywords(sector.industry_sector, texts=TOPIC_KEYWORDS))


@pytest.fixture
def owner(planner, as_user):
    return as_user(planner.tenant.owner)


def balance_of(account) -> int:
    return CreditLedger.objects.for_account(account).get().balance


def set_balance(account, credits: int) -> None:
    """The account's balance made exactly ``credits``, through the ledger's own operations."""
    current = balance_of(account)
    if credits > current:
        billing.grant(account=account, amount=credits - current, description="test funds")
    elif credits < current:
        billing.spend(account=account, operation_type="linking", amount=current - credits, description="test drain")
