"""Input and output shapes of the system settings endpoints.

Saves are partial: a request changes the fields it names. A field the endpoint does not know is
a 400 naming it, so a misspelt setting is never silently dropped.
"""

import re

from django.conf import settings

from rest_framework import serializers

from inkwell import netguard
from inkwell.ai.providers import PROVIDER_NAMES
from inkwell.api.serializers import REQUIRED, OptionalFieldsMixin, RejectUnknownFieldsMixin
from inkwell.system.defaults import (
    ARTICLE_LENGTH_RANGE,
    IMAGE_SIZES,
    IMAGE_STYLES,
    IMAGES_PER_ARTICLE_RANGE,
    MAX_IMAGES_RANGE,
    MODULE_TITLES,
    MODULES,
    PUBLISH_STATUSES,
    SCHEDULE_FREQUENCIES,
    SCHEDULE_TIMES_RANGE,
    STRUCTURES,
    TONES,
)
from inkwell.system.models import AIModel, IntegrationType

# The spec's field messages (Errors / Field-level messages, System rows), word for word.
INVALID_API_KEY = "Invalid API key format"
INVALID_INTEGRATION_TYPE = "Invalid integration type"

UNKNOWN_MODULE = "Unknown module"
ENDPOINT_NOT_ALLOWED = "This address is not allowed for a provider endpoint"
INVALID_TIME = "Enter a time as HH:MM"
DUPLICATE_TIME = "Each time may appear once"
# 20 to 200 letters, digits, "-", "_" and ".".
API_KEY_FORMAT = re.compile(r"[A-Za-z0-9._-]{20,200}")
TIME_OF_DAY = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
MAX_PROMPT_LENGTH = 20000


class ApiKeyField(serializers.CharField):
    """An API key as typed: a string of the contract's format, never trimmed or coerced."""

    default_error_messages = {"invalid": INVALID_API_KEY, "required": REQUIRED, "blank": REQUIRED, "null": REQUIRED}

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "20 to 200 letters, digits, '-', '_' and '.'.")
        super().__init__(trim_whitespace=False, write_only=True, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        value = super().to_internal_value(data)
        if value and not API_KEY_FORMAT.fullmatch(value):
            self.fail("invalid")
        return value


def http_url(value: str) -> None:
    if value == "":
        return
    try:
        netguard.check_url_shape(value)
    except netguard.InvalidURL as error:
        raise serializers.ValidationError(error.message) from None


def provider_endpoint(value: str) -> None:
    """An account may point its provider anywhere but at this server's own surroundings
    (``inkwell.netguard``): a loopback or private-network address only where the operator allows it
    (AI_ALLOW_PRIVATE_ENDPOINTS, for Ollama and friends)."""
    http_url(value)
    if value == "":
        return
    try:
        netguard.check_url(value, allow_private=settings.INKWELL_AI["ALLOW_PRIVATE_ENDPOINTS"])
    except netguard.AddressNotAllowed:
        raise serializers.ValidationError(ENDPOINT_NOT_ALLOWED) from None


def _base_url_field(**kwargs) -> serializers.CharField:
    return serializers.CharField(
        max_length=500,
        allow_blank=True,
        allow_null=True,
        validators=[provider_endpoint],
        help_text="The provider's API root; empty for the provider's standard endpoint, null for the global default.",
        **kwargs,
    )


def _model_field(help_text: str) -> serializers.CharField:
    return serializers.CharField(max_length=100, required=False, allow_null=True, help_text=f"{help_text}; null for the global default.")


# Integration settings.


class IntegrationSettingsSerializer(serializers.Serializer):
    """Fields both integrations answer with."""

    integration_type = serializers.ChoiceField(choices=IntegrationType.values, read_only=True)
    provider = serializers.ChoiceField(choices=PROVIDER_NAMES)
    base_url = serializers.CharField(help_text="Empty for the provider's standard endpoint.", allow_blank=True)
    api_key_set = serializers.BooleanField(read_only=True, help_text="The account saved a key of its own.")
    api_key_masked = serializers.CharField(read_only=True, help_text="The last characters of the account's key; empty without one.")
    uses_default_api_key = serializers.BooleanField(
        read_only=True, help_text="Calls use the global key: the account has none and uses the global provider and endpoint."
    )
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)


class AIProviderSettingsSerializer(IntegrationSettingsSerializer):
    testing_model = serializers.CharField()
    live_model = serializers.CharField()
    use_testing_model = serializers.BooleanField(help_text="Generate with the testing model instead of the live one.")


class ImageGenerationSettingsSerializer(IntegrationSettingsSerializer):
    model = serializers.CharField()
    size = serializers.ChoiceField(choices=IMAGE_SIZES)
    style = serializers.ChoiceField(choices=IMAGE_STYLES)
    max_images = serializers.IntegerField(min_value=MAX_IMAGES_RANGE[0], max_value=MAX_IMAGES_RANGE[1])


class IntegrationSettingsInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """Null returns a field to the global default; ``api_key`` "" removes the account's key and
    leaving it out keeps the stored one. The GET's read-only fields sent back are ignored."""

    echoes = IntegrationSettingsSerializer

    provider = serializers.ChoiceField(choices=PROVIDER_NAMES, required=False, allow_null=True)
    base_url = _base_url_field(required=False)
    api_key = ApiKeyField(required=False, allow_blank=True)


class AIProviderSettingsInputSerializer(IntegrationSettingsInputSerializer):
    testing_model = _model_field("The model used while testing")
    live_model = _model_field("The model used for real work")
    use_testing_model = serializers.BooleanField(required=False, allow_null=True)


class ImageGenerationSettingsInputSerializer(IntegrationSettingsInputSerializer):
    model = _model_field("The image model")
    size = serializers.ChoiceField(choices=IMAGE_SIZES, required=False, allow_null=True)
    style = serializers.ChoiceField(choices=IMAGE_STYLES, required=False, allow_null=True)
    max_images = serializers.IntegerField(min_value=MAX_IMAGES_RANGE[0], max_value=MAX_IMAGES_RANGE[1], required=False, allow_null=True)


class IntegrationTestInputSerializer(serializers.Serializer):
    integration_type = serializers.ChoiceField(
        choices=IntegrationType.values,
        error_messages={"invalid_choice": INVALID_INTEGRATION_TYPE, "required": REQUIRED, "null": REQUIRED, "blank": REQUIRED},
    )
    api_key = ApiKeyField()


class KeyCheckSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    detail = serializers.CharField(help_text="What the provider answered, safe to show.")
    provider = serializers.CharField()
    model = serializers.CharField(allow_blank=True)


# Content settings.


class ContentGenerationSettingsSerializer(serializers.Serializer):
    default_article_length = serializers.IntegerField(min_value=ARTICLE_LENGTH_RANGE[0], max_value=ARTICLE_LENGTH_RANGE[1])
    default_tone = serializers.ChoiceField(choices=TONES)
    default_structure = serializers.ChoiceField(choices=STRUCTURES)
    include_faq = serializers.BooleanField()
    enable_internal_linking = serializers.BooleanField()
    include_images = serializers.BooleanField()
    images_per_article = serializers.IntegerField(min_value=IMAGES_PER_ARTICLE_RANGE[0], max_value=IMAGES_PER_ARTICLE_RANGE[1])
    use_testing_model = serializers.BooleanField()


class ContentGenerationSettingsInputSerializer(OptionalFieldsMixin, RejectUnknownFieldsMixin, ContentGenerationSettingsSerializer):
    pass


def time_of_day(value: str) -> None:
    if not TIME_OF_DAY.fullmatch(value):
        raise serializers.ValidationError(INVALID_TIME)


class PublishingContentSettingsSerializer(serializers.Serializer):
    default_publish_status = serializers.ChoiceField(choices=PUBLISH_STATUSES)
    auto_schedule = serializers.BooleanField()
    schedule_frequency = serializers.ChoiceField(choices=SCHEDULE_FREQUENCIES)
    schedule_times = serializers.ListField(
        child=serializers.CharField(validators=[time_of_day]),
        min_length=SCHEDULE_TIMES_RANGE[0],
        max_length=SCHEDULE_TIMES_RANGE[1],
        help_text="HH:MM times of day, each once.",
    )


class PublishingContentSettingsInputSerializer(OptionalFieldsMixin, RejectUnknownFieldsMixin, PublishingContentSettingsSerializer):
    def validate_schedule_times(self, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise serializers.ValidationError(DUPLICATE_TIME)
        return sorted(value)


# Prompts.


class PromptSerializer(serializers.Serializer):
    prompt_type = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    prompt_value = serializers.CharField(help_text="The text in use: the account's own, else the default.")
    default_value = serializers.CharField()
    placeholders = serializers.ListField(child=serializers.CharField(), help_text="Names the text may use as {name}.")
    is_customized = serializers.BooleanField()
    updated_at = serializers.DateTimeField(allow_null=True)


class PromptInputSerializer(serializers.Serializer):
    prompt_value = serializers.CharField(max_length=MAX_PROMPT_LENGTH, error_messages={"required": REQUIRED, "blank": REQUIRED, "null": REQUIRED})


# Modules: one boolean per module, built from MODULES so the two cannot drift apart.


def _module_flags(*, required: bool) -> dict:
    return {module: serializers.BooleanField(required=required, help_text=MODULE_TITLES[module]) for module in MODULES}


ModuleStatesSerializer = type("ModuleStatesSerializer", (serializers.Serializer,), _module_flags(required=True))
ModuleChangesSerializer = type(
    "ModuleChangesSerializer",
    (RejectUnknownFieldsMixin, serializers.Serializer),
    {"unknown_field_message": UNKNOWN_MODULE, **_module_flags(required=False)},
)


class ModulesSerializer(serializers.Serializer):
    modules = ModuleStatesSerializer()


class ModulesInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    modules = ModuleChangesSerializer(
        help_text="The modules to switch on (true) or off (false); others keep their state.", error_messages={"required": REQUIRED, "null": REQUIRED}
    )


# The AI model catalogue.


class AIModelSerializer(serializers.ModelSerializer):
    class Meta:
        model = AIModel
        fields = ["id", "kind", "provider", "name", "is_active"]
        read_only_fields = fields
