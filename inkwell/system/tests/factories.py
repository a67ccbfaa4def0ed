"""Saved system settings of one account, for the cross-account matrix (tests/test_cross_account_matrix.py).

Each factory saves values that differ from the defaults and carries the marker where the model
has free text (a base URL, a model name, a prompt), so a leak into another account's response
shows. Content settings and module switches have no free text: test_account_isolation.py checks
them by value.
"""

from inkwell.ai.prompts import PROMPT_TYPE_NAMES, PROMPTS
from inkwell.system.models import ContentSettings, IntegrationSettings, IntegrationType, ModuleSetting, PromptOverride


def _integration_settings(tenant, marker: str) -> IntegrationSettings:
    row, _ = IntegrationSettings.objects.for_account(tenant.account).update_or_create(
        account=tenant.account,
        integration_type=IntegrationType.AI_PROVIDER,
        defaults={
            "provider": "openai",
            "base_url": f"https://{marker}.example.com/v1",
            "api_key": f"sk-{marker}-0123456789",
            "config": {"live_model": marker},
        },
    )
    return row


def _content_settings(tenant, marker: str) -> ContentSettings:
    row, _ = ContentSettings.objects.for_account(tenant.account).update_or_create(
        account=tenant.account, key="content_generation", defaults={"values": {"default_article_length": 7777, "default_tone": "casual"}}
    )
    return row


def _prompt_override(tenant, marker: str) -> PromptOverride:
    prompt_type = PROMPT_TYPE_NAMES[0]
    row, _ = PromptOverride.objects.for_account(tenant.account).update_or_create(
        account=tenant.account, prompt_type=prompt_type, defaults={"text": f"{marker} {PROMPTS[prompt_type].default_text}"}
    )
    return row


def _module_setting(tenant, marker: str) -> ModuleSetting:
    row, _ = ModuleSetting.objects.for_account(tenant.account).update_or_create(account=tenant.account, module="planner", defaults={"enabled": False})
    return row


CROSS_ACCOUNT_FACTORIES = {
    IntegrationSettings: _integration_settings,
    ContentSettings: _content_settings,
    PromptOverride: _prompt_override,
    ModuleSetting: _module_setting,
}
