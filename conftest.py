"""Fixtures shared by every test: accounts with users of each role, authenticated clients."""

import copy
import uuid
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from django.conf import settings as django_settings
from django.db import connection
from rest_framework.test import APIClient

from inkwell.billing import services as billing
from inkwell.billing.tests.ledger import balance_of
from inkwell.system.defaults import load_ai_models
from inkwell.system.models import AIModel
from inkwell.tenancy import services, tokens
from inkwell.tenancy.defaults import load_defaults
from inkwell.tenancy.models import Account, Industry, IndustrySector, Plan, Role, RoleName, Site, SiteUserAccess, Subscription, User
from inkwell.writer.tests.factories import make_sector

# ``openai_server``: a protocol-faithful OpenAI-compatible server on loopback, for any test.
pytest_plugins = ["inkwell.ai.tests.openai_server", "inkwell.cms.tests.wordpress", "inkwell.cms.tests.ghost", "inkwell.cms.tests.cms_server"]


def pytest_collection_modifyitems(config, items):
    """Tests marked postgres_only skip, loudly, on the embedded profile."""
    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL + Redis: runs in the production-profile pass of `make test`")
    for item in items:
        if "postgres_only" in item.keywords:
            item.add_marker(skip)


_db_blocker = None


@pytest.fixture(scope="session", autouse=True)
def _remember_db_blocker(django_db_blocker):
    global _db_blocker
    _db_blocker = django_db_blocker


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """A transactional test ends by emptying every table, the default catalogue that the migrations
    loaded included. Put the catalogue back once its teardown is done, so that tests running after
    it in the same worker find the plans, roles and industries."""
    yield
    marker = item.get_closest_marker("django_db")
    # After the worker's last test the test databases are gone already: nothing to restore.
    if nextitem is not None and marker and marker.kwargs.get("transaction") and _db_blocker is not None:
        with _db_blocker.unblock():
            load_defaults(Plan, Role, Industry, IndustrySector)
            load_ai_models(AIModel, django_settings.INKWELL_AI)


@pytest.fixture(autouse=True)
def isolated_cache(settings):
    """Each test counts rate limits and caches values under its own key prefix."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex[:12]}"
    settings.CACHES = caches


@pytest.fixture(autouse=True)
def offline_ai(settings):
    """Every test starts on the offline providers, with no keys, known model names, short timeouts
    and no retries, whatever the environment configures: no test calls a real AI provider."""
    settings.INKWELL_AI = {
        **settings.INKWELL_AI,
        "PROVIDER": "local",
        "BASE_URL": "",
        "API_KEY": "",
        "TESTING_MODEL": "gpt-4o-mini",
        "LIVE_MODEL": "gpt-4o",
        "IMAGE_PROVIDER": "local",
        "IMAGE_BASE_URL": "",
        "IMAGE_API_KEY": "",
        "IMAGE_MODEL": "gpt-image-1",
        "TIMEOUT_SECONDS": 2,
        "MAX_RETRIES": 0,
    }
    return settings


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Argon2 is deliberately slow; tests hash with MD5 (test_passwords_are_hashed_with_argon2 checks the real one)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class Tenant:
    """An account with one user per role, and a site."""

    account: Account
    owner: User
    admin: User
    editor: User
    viewer: User
    site: Site

    def user(self, role: str) -> User:
        return getattr(self, role)


def _make_tenant(label: str) -> Tenant:
    owner = services.account_register(email=f"owner-{label}@example.com", password="correct-horse-1", account_name=f"Account {label}")
    account = owner.account
    users = {
        role: User.dangerously_unscoped.create_user(
            f"{role}-{label}@example.com", "correct-horse-1", account=account, role=Role.objects.get(name=role)
        )
        for role in (RoleName.ADMIN, RoleName.EDITOR, RoleName.VIEWER)
    }
    site = Site.objects.create(account=account, name=f"Site {label}", domain=f"{label}.example.com", slug=f"site-{label}-{uuid.uuid4().hex[:6]}")
    return Tenant(account=account, owner=owner, site=site, **users)


@pytest.fixture
def make_tenant(db):
    counter = iter(range(1, 1000))

    def factory(label: str | None = None) -> Tenant:
        return _make_tenant(label or f"t{next(counter)}-{uuid.uuid4().hex[:6]}")

    return factory


@pytest.fixture
def tenant(make_tenant) -> Tenant:
    return make_tenant("a")


@pytest.fixture
def other_tenant(make_tenant) -> Tenant:
    return make_tenant("b")


@pytest.fixture
def industry_sector(db) -> IndustrySector:
    return IndustrySector.objects.order_by("id").first()


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {tokens.issue_access_token(user).token}")
    return client


@pytest.fixture
def as_user():
    """``as_user(user)``: an API client authenticated with a fresh access token of that user."""
    return client_for


@pytest.fixture
def big_tenant(tenant) -> Tenant:
    """The tenant on the scale plan, so that plan limits stay out of the way."""
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug="scale"))
    tenant.account.refresh_from_db()  # drops the cached subscription with the old plan
    return tenant


@pytest.fixture
def eager_jobs(django_capture_on_commit_callbacks):
    """Jobs enqueued inside ``with eager_jobs():`` run in the test's own process when the block
    ends, through the real task and runner, as a worker would run them after the commit."""
    from inkwell.celery import app

    @contextmanager
    def run():
        app.conf.task_always_eager = True
        try:
            with django_capture_on_commit_callbacks(execute=True):
                yield
        finally:
            app.conf.task_always_eager = False

    return run


@pytest.fixture
def second_site(tenant):
    """Another site of the tenant, with a sector, that the editor and the viewer are not granted."""
    site = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")
    make_sector(tenant, site)
    return site


@pytest.fixture
def granted(tenant):
    """The editor and the viewer may work on the tenant's site."""
    for user in (tenant.editor, tenant.viewer):
        SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return tenant


@pytest.fixture
def funded(tenant):
    """``funded(n)``: the tenant's account holding exactly ``n`` credits."""
    def fund(credits: int):
        balance = balance_of(tenant.account)
        if credits > balance:
            billing.grant(account=tenant.account, amount=credits - balance, description="test funds")
        elif credits < balance:
            billing.spend(account=tenant.account, operation_type="linking", amount=balance - credits, description="test drain")
        return tenant.account

    return fund


@pytest.fixture
def openai_provider(settings, openai_server):
    """The operator's text provider is the OpenAI-compatible test server."""
    settings.INKWELL_AI = {**settings.INKWELL_AI, "PROVIDER": "openai", "BASE_URL": openai_server.base_url, "API_KEY": openai_server.api_key, "TIMEOUT_SECONDS": 5}
    return openai_server
