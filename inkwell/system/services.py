"""Writes of the per-account system settings, and the API-key test call.

Every function takes validated input (``inkwell.system.serializers``) and stores only what the
account changed, so a later change of a global default reaches every account that kept it.
"""

import logging
from dataclasses import replace

from django.db import transaction
from rest_framework.exceptions import ValidationError

from inkwell.ai.errors import AIError
from inkwell.ai.prompts import template_errors
from inkwell.ai.providers import build_image_provider, build_text_provider
from inkwell.ai.types import KeyCheck
from inkwell.system import selectors
from inkwell.system.models import ContentSettings, IntegrationSettings, IntegrationType, ModuleSetting, PromptOverride
from inkwell.tenancy.models import Account, User

logger = logging.getLogger(__name__)

# Columns of IntegrationSettings; every other saved field goes into ``config``.
INTEGRATION_COLUMNS = ("provider", "base_url")
# A key test is interactive: someone waits for the answer, so it never waits the full
# generation timeout (AI_TIMEOUT_SECONDS) for a provider that does not answer.
KEY_TEST_TIMEOUT_SECONDS = 10


@transaction.atomic
def integration_settings_save(*, account: Account, integration_type: str, user: User, values: dict) -> None:
    """Saves the fields in ``values``: a value of None returns that field to the global default,
    ``api_key`` "" removes the account's key, and a save without ``api_key`` keeps it."""
    row, created = (
        IntegrationSettings.objects.for_account(account)
        .select_for_update()
        .get_or_create(account=account, integration_type=integration_type, defaults={"updated_by": user})
    )
    changed = {"updated_by", "updated_at"}
    for name, value in values.items():
        if name == "api_key":
            row.api_key = value
            changed.add("api_key")
        elif name in INTEGRATION_COLUMNS:
            setattr(row, name, value)
            changed.add(name)
        elif value is None:
            row.config.pop(name, None)
            changed.add("config")
        else:
            row.config[name] = value
            changed.add("config")
    row.updated_by = user
    # Without api_key in the request the stored token is not written back, so a token that the
    # current keys cannot read (it reads as empty) survives until the owner enters a new key.
    row.save(update_fields=None if created else sorted(changed))
    # Field names only, never values: one of them may be the key.
    logger.info("account %s saved %s settings: %s", account.pk, integration_type, ", ".join(sorted(values)) or "nothing")


def integration_key_test(*, account: Account, integration_type: str, api_key: str) -> KeyCheck:
    """Verifies ``api_key`` with one real call to the provider of the account's effective settings.

    A key the provider refuses, or a provider that cannot be reached, is a result (valid false),
    not an error: the test ran.
    """
    effective = selectors.effective_integration(account, integration_type)
    text = integration_type == IntegrationType.AI_PROVIDER
    model = effective.text_model(live=None) if text else effective.values["model"]
    config = effective.provider_config(model=model, api_key=api_key)
    config = replace(config, timeout_seconds=min(config.timeout_seconds, KEY_TEST_TIMEOUT_SECONDS))
    provider = build_text_provider(config) if text else build_image_provider(config)
    try:
        check = provider.test_key()
    except AIError as error:
        check = KeyCheck(valid=False, detail=error.message, provider=effective.provider, model=model)
    logger.info("account %s tested a %s key with %s: valid=%s", account.pk, integration_type, check.provider, check.valid)
    return check


@transaction.atomic
def content_settings_save(*, account: Account, key: str, user: User, values: dict) -> None:
    row, _ = ContentSettings.objects.for_account(account).select_for_update().get_or_create(account=account, key=key)
    row.values = {**row.values, **values}
    row.updated_by = user
    row.save()


def prompt_save(*, account: Account, prompt_type: str, text: str, user: User) -> PromptOverride:
    """Stores the account's text for ``prompt_type``; a template the engine could not render
    (unknown or missing placeholders, bad braces) is a 400 on ``prompt_value``."""
    errors = template_errors(prompt_type, text)
    if errors:
        raise ValidationError({"prompt_value": errors})
    row, _ = PromptOverride.objects.for_account(account).update_or_create(
        account=account, prompt_type=prompt_type, defaults={"text": text, "updated_by": user}
    )
    return row


def prompt_reset(*, account: Account, prompt_type: str) -> None:
    PromptOverride.objects.for_account(account).filter(prompt_type=prompt_type).delete()


@transaction.atomic
def modules_save(*, account: Account, modules: dict[str, bool]) -> None:
    for module, enabled in modules.items():
        ModuleSetting.objects.for_account(account).update_or_create(account=account, module=module, defaults={"enabled": enabled})
