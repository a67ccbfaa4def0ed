import pytest
from django.test import Client

from inkwell.planner.tests.conftest import TOPIC_KEYWORDS
from inkwell.planner.tests.factories import make_sector, make_seed_keywords


@pytest.fixture
def console_client():
    """``console_client(user)``: a browser-like client signed in with the session, CSRF checks on."""

    def sign_in(user) -> Client:
        client = Client(enforce_csrf_checks=False)
        client.force_login(user)
        return client

    return sign_in


@pytest.fixture
def library(big_tenant):
    """The tenant's site with a sector and that sector's library keywords (two of them paid)."""
    sector = make_sector(big_tenant)
    seeds = make_seed_keywords(sector.industry_sector, texts=TOPIC_KEYWORDS)
    return sector, seeds
