"""Reads of the per-account system settings: what each account effectively uses, which is the
global defaults with the account's saved values laid over them.

Other apps call ``ai_client``, ``effective_prompts``, ``content_settings``, ``module_enabled``
and ``integration_settings``; none of them returns an API key. ``effective_integration``, which
holds the key a call would use, is for this app's services.
"""

import copy
import logging
from dataclasses import replace

from django.conf import settings
from django.core.cache import cache

from inkwell import crypto
from inkwell.ai.client import AIClient
from inkwell.ai.prompts import PROMPTS
from inkwell.ai.providers import build_image_provider, build_text_provider, default_image_config, default_text_config
from inkwell.ai.providers.base import ProviderConfig
from inkwell.sitesettings.models import SiteSettings
from inkwell.system.defaults import AI_PROVIDER_DEFAULTS, CONTENT_DEFAULTS, IMAGE_GENERATION_DEFAULTS, MODULES
from inkwell.system.models import AIModel, ContentSettings, IntegrationSettings, IntegrationType, ModuleSetting, PromptOverride
from inkwell.tenancy.models import Account, Site

logger = logging.getLogger(__name__)

# The fields of each integration type that IntegrationSettings.config holds once saved.
CONFIG_FIELDS = {
    IntegrationType.AI_PROVIDER: ("testing_model", "live_model", *AI_PROVIDER_DEFAULTS),
    IntegrationType.IMAGE_GENERATION: ("model", *IMAGE_GENERATION_DEFAULTS),
}


def _defaults(integration_type: str) -> tuple[ProviderConfig, dict]:
    """The global provider config (with the global key) and the global values of the config fields."""
    if integration_type == IntegrationType.AI_PROVIDER:
        live = default_text_config(live=True)
        return live, {"testing_model": default_text_config(live=False).model, "live_model": live.model, **AI_PROVIDER_DEFAULTS}
    image = default_image_config()
    return image, {"model": image.model, **IMAGE_GENERATION_DEFAULTS}


def _rows(account: Account, integration_types) -> dict[str, IntegrationSettings]:
    rows = IntegrationSettings.objects.for_account(account).filter(integration_type__in=list(integration_types))
    return {row.integration_type: row for row in rows}


class EffectiveIntegration:
    """One integration's effective settings; ``api_key`` is the key a provider call would use."""

    def __init__(self, integration_type: str, row: IntegrationSettings | None):
        default, default_values = _defaults(integration_type)
        saved = row.config if row else {}
        self.integration_type = integration_type
        self.row = row
        self.default = default
        self.values = {name: saved.get(name, default_values[name]) for name in CONFIG_FIELDS[integration_type]}
        self.provider = row.provider if row and row.provider is not None else default.provider
        self.base_url = row.base_url if row and row.base_url is not None else default.base_url
        self.own_key = row.api_key if row else ""
        # The global key goes only to the global endpoint: an account that points the integration
        # at another provider or server must bring its own key, or the operator's key would be
        # sent to a server of the account's choosing.
        at_global_endpoint = (self.provider, self.base_url) == (default.provider, default.base_url)
        self.at_global_endpoint = at_global_endpoint
        self.default_key_applies = not self.own_key and bool(default.api_key) and at_global_endpoint
        self.api_key = self.own_key or (default.api_key if self.default_key_applies else "")

    def public(self) -> dict:
        return {
            "integration_type": self.integration_type,
            "provider": self.provider,
            "base_url": self.base_url,
            **self.values,
            "api_key_set": bool(self.own_key),
            "api_key_masked": crypto.mask(self.own_key),
            "uses_default_api_key": self.default_key_applies,
            "updated_at": self.row.updated_at if self.row else None,
        }

    def text_model(self, *, live: bool | None) -> str:
        """The live model, or the testing model when asked for (``live=False``) or, with
        ``live=None``, when the account set ``use_testing_model``."""
        if live is None:
            live = not self.values["use_testing_model"]
        return self.values["live_model" if live else "testing_model"]

    def provider_config(self, *, model: str, api_key: str | None = None) -> ProviderConfig:
        return replace(
            self.default,
            provider=self.provider,
            base_url=self.base_url,
            model=model,
            api_key=self.api_key if api_key is None else api_key,
            # The deployment's embeddings model (AI_EMBEDDING_MODEL) is a model of its own endpoint only.
            embedding_model=self.default.embedding_model if self.at_global_endpoint else "",
        )


def effective_integration(account: Account, integration_type: str) -> EffectiveIntegration:
    return EffectiveIntegration(integration_type, _rows(account, [integration_type]).get(integration_type))


def integration_settings(account: Account, integration_type: str) -> dict:
    """The account's effective settings of ``ai_provider`` or ``image_generation``, the key masked.

    ai_provider: provider, base_url, testing_model, live_model, use_testing_model; image_generation:
    provider, base_url, model, size, style, max_images; both: integration_type, api_key_set,
    api_key_masked, uses_default_api_key, updated_at.
    """
    return effective_integration(account, integration_type).public()


def _site_models(account: Account, site: Site) -> dict[str, str]:
    """The model names the site's settings choose (``ai_settings``), by role: ``testing``,
    ``live``, ``image``; a choice that is unset or no longer active is left out (one query)."""
    row = (
        SiteSettings.objects.for_account(account)
        .filter(site=site)
        .select_related("testing_model", "live_model", "image_model")
        .first()
    )
    if row is None:
        return {}
    chosen = {"testing": row.testing_model, "live": row.live_model, "image": row.image_model}
    return {role: model.name for role, model in chosen.items() if model is not None and model.is_active}


def ai_client(account: Account, *, live: bool | None = None, site: Site | None = None) -> AIClient:
    """An AI client with the account's providers, keys and prompts (two queries).

    With ``site``, the models the site's settings choose replace the account's (one query more):
    its live or testing text model, whichever this call uses, and its image model.
    """
    rows = _rows(account, IntegrationType.values)
    text = EffectiveIntegration(IntegrationType.AI_PROVIDER, rows.get(IntegrationType.AI_PROVIDER))
    image = EffectiveIntegration(IntegrationType.IMAGE_GENERATION, rows.get(IntegrationType.IMAGE_GENERATION))
    if live is None:
        live = not text.values["use_testing_model"]
    site_models = _site_models(account, site) if site is not None else {}
    text_config = text.provider_config(model=site_models.get("live" if live else "testing") or text.text_model(live=live))
    image_config = image.provider_config(model=site_models.get("image") or image.values["model"])
    return AIClient(
        # The account's calls in flight are limited across the deployment (inkwell.ai.limits).
        text=build_text_provider(replace(text_config, account_id=account.pk)),
        image=build_image_provider(replace(image_config, account_id=account.pk)),
        templates=effective_prompts(account),
    )


def _overrides(account: Account) -> dict[str, PromptOverride]:
    return {row.prompt_type: row for row in PromptOverride.objects.for_account(account).filter(prompt_type__in=list(PROMPTS))}


def effective_prompts(account: Account) -> dict[str, str]:
    """Every prompt type's text: the account's own, else the default."""
    overrides = _overrides(account)
    return {name: overrides[name].text if name in overrides else spec.default_text for name, spec in PROMPTS.items()}


def _prompt(name: str, override: PromptOverride | None) -> dict:
    spec = PROMPTS[name]
    return {
        "prompt_type": name,
        "title": spec.title,
        "description": spec.description,
        "prompt_value": override.text if override else spec.default_text,
        "default_value": spec.default_text,
        "placeholders": list(spec.placeholders),
        "is_customized": override is not None,
        "updated_at": override.updated_at if override else None,
    }


def prompt_list(account: Account) -> list[dict]:
    overrides = _overrides(account)
    return [_prompt(name, overrides.get(name)) for name in PROMPTS]


def prompt_detail(account: Account, prompt_type: str) -> dict:
    """One prompt type's entry; the caller has checked that ``prompt_type`` is one of ``PROMPTS``."""
    return _prompt(prompt_type, PromptOverride.objects.for_account(account).filter(prompt_type=prompt_type).first())


def content_settings(account: Account, key: str) -> dict:
    """The effective values of ``content_generation`` or ``publishing``: defaults merged with the
    account's saved values. Saved fields that are no longer settings are ignored."""
    defaults = CONTENT_DEFAULTS[key]
    row = ContentSettings.objects.for_account(account).filter(key=key).first()
    saved = row.values if row else {}
    # Copied: a caller that changes the answer (a list of times) must not change the defaults.
    return {name: copy.deepcopy(saved.get(name, default)) for name, default in defaults.items()}


def module_states(account: Account) -> dict[str, bool]:
    saved = dict(ModuleSetting.objects.for_account(account).values_list("module", "enabled"))
    return {module: saved.get(module, True) for module in MODULES}


def _disabled_modules_of(account: Account) -> frozenset[str]:
    return frozenset(ModuleSetting.objects.for_account(account).filter(enabled=False).values_list("module", flat=True))


def disabled_modules_key(account_id: int) -> str:
    return f"disabled-modules:{account_id}"


def disabled_modules(account: Account) -> frozenset[str]:
    """The modules the account switched off. Every request to a module's views asks, so the answer
    is kept in the cache for ``PRINCIPAL_CACHE_SECONDS`` (forgotten on every change,
    ``inkwell.system.signals``); else, and with that setting 0, one indexed query."""
    timeout = settings.INKWELL_PRINCIPAL_CACHE_SECONDS
    if not timeout:
        return _disabled_modules_of(account)
    key = disabled_modules_key(account.pk)
    try:
        cached = cache.get(key)
    except Exception:  # a cache outage must not take the API down with it
        logger.warning("cache unavailable; module switches read from the database", exc_info=True)
        cached = None
    if cached is not None:
        return frozenset(cached)
    modules = _disabled_modules_of(account)
    try:
        cache.set(key, tuple(modules), timeout=timeout)
    except Exception:
        logger.warning("cache unavailable; module switches not cached", exc_info=True)
    return modules


def module_enabled(account: Account, module: str) -> bool:
    if module not in MODULES:
        raise ValueError(f"unknown module {module!r}")
    return not ModuleSetting.objects.for_account(account).filter(module=module, enabled=False).exists()


def active_ai_models() -> list[AIModel]:
    """The models a site may be set to use, by kind, provider and name."""
    return list(AIModel.objects.filter(is_active=True).order_by("kind", "provider", "name"))
