"""The account side of a seeded site (inkwell/console/tests/seed.py), for the settings and team
pages' query budgets and benchmark: ``rows`` team members granted the site, ``rows`` API keys,
the account's own prompts and a saved provider key."""

from django.contrib.auth.hashers import make_password

from inkwell.ai.prompts import PROMPTS
from inkwell.system.models import IntegrationSettings, IntegrationType, PromptOverride
from inkwell.tenancy import api_keys
from inkwell.tenancy.models import ApiKey, Role, RoleName, Site, SiteUserAccess, User
from inkwell.webhooks.models import WebhookEndpoint
from inkwell.webhooks.tests.factories import make_delivery

SEEDED_PROVIDER_KEY = "sk-seeded-provider-key-0123456789abcdef"


def seed_team(site: Site, owner: User, rows: int) -> None:
    account = site.account
    editor = Role.objects.get(name=RoleName.EDITOR)
    unusable = make_password(None)
    members = User.dangerously_unscoped.bulk_create(
        (User(email=f"member-{site.pk}-{n}@example.com", first_name=f"Member {n}", account=account, role=editor, password=unusable) for n in range(rows)),
        batch_size=500,
    )
    SiteUserAccess.objects.bulk_create((SiteUserAccess(account=account, user=member, site=site, granted_by=owner) for member in members), batch_size=500)
    ApiKey.objects.bulk_create(
        (
            ApiKey(account=account, user=owner, name=f"Key {n}", prefix=f"iwk_{site.pk}_{n}", key_hash=api_keys.hash_key(f"seeded-{site.pk}-{n}"), site=site if n % 2 else None)
            for n in range(rows)
        ),
        batch_size=500,
    )
    PromptOverride.objects.bulk_create(PromptOverride(account=account, prompt_type=name, text=spec.default_text + "\nBe brief.", updated_by=owner) for name, spec in PROMPTS.items())
    IntegrationSettings.objects.create(account=account, integration_type=IntegrationType.AI_PROVIDER, api_key=SEEDED_PROVIDER_KEY, updated_by=owner)
    endpoints = WebhookEndpoint.objects.bulk_create(
        WebhookEndpoint(account=account, url=f"https://hooks.example.com/{site.pk}/{n}", events=["content.updated"], secret=f"whsec_c2VlZGVk{n}") for n in range(rows)
    )
    for _ in range(rows):
        make_delivery(endpoints[0], attempts=2)


def account_pages(site: Site) -> dict[str, str]:
    """The settings and team pages, by URL name, at their paths for the seeded site."""
    member = User.objects.for_account(site.account).filter(role__name=RoleName.EDITOR).order_by("id").first()
    return {
        "site-settings": f"/app/sites/{site.pk}/settings/",
        "settings": "/app/settings/",
        "settings-content": "/app/settings/content/",
        "settings-prompts": "/app/settings/prompts/",
        "settings-modules": "/app/settings/modules/",
        "team": "/app/team/",
        "team-user": f"/app/team/users/{member.pk}/",
        "api-keys": "/app/team/api-keys/",
        "webhooks": "/app/settings/webhooks/",
        "webhook": f"/app/settings/webhooks/{WebhookEndpoint.objects.for_account(site.account).order_by('id').values_list('pk', flat=True).first()}/",
    }
