"""Per-account system settings. Each row holds only what the account changed; the selectors merge
it over the global defaults (``inkwell.system.defaults`` and ``settings.INKWELL_AI``)."""

from typing import ClassVar

from django.conf import settings
from django.db import models

from inkwell.crypto import EncryptedTextField
from inkwell.system.defaults import CONTENT_KEYS, MODULES
from inkwell.tenancy.models import AccountOwnedModel


class IntegrationType(models.TextChoices):
    AI_PROVIDER = "ai_provider", "AI provider"
    IMAGE_GENERATION = "image_generation", "Image generation"


class IntegrationSettings(AccountOwnedModel):
    """The account's AI text or image provider. ``provider`` and ``base_url`` are null while the
    account uses the global default; ``config`` holds the other fields it saved (models, image
    size, style, ...), absent keys meaning the default. ``api_key`` is encrypted; empty means
    the global key applies."""

    integration_type = models.CharField(max_length=20, choices=IntegrationType.choices)
    provider = models.CharField(max_length=20, null=True, blank=True)
    base_url = models.CharField(max_length=500, null=True, blank=True)
    api_key = EncryptedTextField(blank=True, default="")
    config = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    site_field: ClassVar[str | None] = None

    class Meta:
        verbose_name_plural = "integration settings"
        constraints = [models.UniqueConstraint(fields=["account", "integration_type"], name="integration_settings_account_type_unique")]

    def __str__(self):
        return f"{self.get_integration_type_display()} settings of account {self.account_id}"


class ContentSettings(AccountOwnedModel):
    """Saved content settings of one key; ``values`` holds only the fields the account changed."""

    key = models.CharField(max_length=40, choices=[(key, key) for key in CONTENT_KEYS])
    values = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    site_field: ClassVar[str | None] = None

    class Meta:
        verbose_name_plural = "content settings"
        constraints = [models.UniqueConstraint(fields=["account", "key"], name="content_settings_account_key_unique")]

    def __str__(self):
        return f"{self.key} settings of account {self.account_id}"


class PromptOverride(AccountOwnedModel):
    """The account's own text for one prompt type; without a row the engine's default applies.

    ``prompt_type`` has no choices here: the set belongs to ``inkwell.ai.prompts`` and is checked
    where a prompt is saved.
    """

    prompt_type = models.CharField(max_length=50)
    text = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    site_field: ClassVar[str | None] = None

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account", "prompt_type"], name="prompt_override_account_type_unique")]

    def __str__(self):
        return f"{self.prompt_type} prompt of account {self.account_id}"


class ModuleSetting(AccountOwnedModel):
    """A module the account switched on or off; without a row the module is enabled."""

    module = models.CharField(max_length=20, choices=[(module, module) for module in MODULES])
    enabled = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account", "module"], name="module_setting_account_module_unique")]

    def __str__(self):
        return f"{self.module} {'on' if self.enabled else 'off'} for account {self.account_id}"


class AIModelKind(models.TextChoices):
    TEXT = "text", "Text"
    IMAGE = "image", "Image"


class AIModel(models.Model):
    """A model a site may choose for its AI work (unified site settings, ``ai_settings``).

    One catalogue for every account, kept by staff in the admin and seeded by a data migration.
    ``name`` is what a provider call sends as the model; a model no longer offered is made
    inactive rather than deleted, so sites that chose it keep a valid reference.
    """

    kind = models.CharField(max_length=10, choices=AIModelKind.choices)
    provider = models.CharField(max_length=20, help_text="The provider that serves it: local or openai.")
    name = models.CharField(max_length=100)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["kind", "provider", "name", "id"]
        constraints = [models.UniqueConstraint(fields=["kind", "provider", "name"], name="ai_model_unique")]
        verbose_name = "AI model"

    def __str__(self):
        return f"{self.provider}/{self.name} ({self.kind})"
