from django.http import JsonResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema, inline_serializer
from rest_framework import mixins, serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated

from inkwell.ai.prompts import PROMPT_TYPE_NAMES, PROMPTS
from inkwell.api.envelope import ok, success_body
from inkwell.api.idempotency import idempotent
from inkwell.api.views import ApiGenericViewSet, ApiView, validated
from inkwell.system import selectors, services
from inkwell.system import serializers as s
from inkwell.system.filters import AIModelFilter
from inkwell.system.health import system_health
from inkwell.system.models import AIModel, IntegrationType
from inkwell.tenancy.models import MANAGER_ROLES

HEALTH_RESULT = inline_serializer(
    "SystemHealth",
    fields={
        "status": serializers.ChoiceField(choices=["ok", "degraded"]),
        "version": serializers.CharField(),
        "database_engine": serializers.CharField(),
        "components": serializers.DictField(child=serializers.DictField()),
    },
)


def healthz(request):
    """Public liveness probe: the process answers. No database or cache is touched."""
    return JsonResponse(success_body({"status": "ok"}))


class HealthView(ApiView):
    """Database, cache and worker status for any signed-in user (also staff without an account)."""

    permission_classes = [IsAuthenticated]
    tenant_scope = "global"

    @extend_schema(tags=["system"], responses={200: HEALTH_RESULT})
    def get(self, request):
        return ok(system_health())


class SystemSettingsView(ApiView):
    """The account's own settings: one set per account, so there is no id to cross accounts with.
    Every role reads them; owners and admins change them."""

    tenant_scope = "own_account"
    write_roles = MANAGER_ROLES


# Integrations: /settings/integrations/ai_provider/ and /image_generation/.


class IntegrationSettingsView(SystemSettingsView):
    integration_type: str
    input_serializer: type[serializers.Serializer]
    output_serializer: type[serializers.Serializer]

    def _answer(self, request):
        return ok(self.output_serializer(selectors.integration_settings(request.account, self.integration_type)).data)

    def get(self, request):
        return self._answer(request)

    def put(self, request):
        values = validated(self.input_serializer, request)
        services.integration_settings_save(account=request.account, integration_type=self.integration_type, user=request.user, values=values)
        return self._answer(request)


class AIProviderSettingsView(IntegrationSettingsView):
    """The account's AI text provider: the global defaults (AI_* settings) overlaid by what the
    account saved. A save changes the fields it names; null returns a field to its default."""

    integration_type = IntegrationType.AI_PROVIDER
    input_serializer = s.AIProviderSettingsInputSerializer
    output_serializer = s.AIProviderSettingsSerializer

    @extend_schema(tags=["system"], responses={200: s.AIProviderSettingsSerializer})
    def get(self, request):
        return super().get(request)

    @extend_schema(tags=["system"], request=s.AIProviderSettingsInputSerializer, responses={200: s.AIProviderSettingsSerializer})
    def put(self, request):
        return super().put(request)


class ImageGenerationSettingsView(IntegrationSettingsView):
    """The account's image provider and image defaults, over the global defaults (AI_IMAGE_*
    settings). A save changes the fields it names; null returns a field to its default."""

    integration_type = IntegrationType.IMAGE_GENERATION
    input_serializer = s.ImageGenerationSettingsInputSerializer
    output_serializer = s.ImageGenerationSettingsSerializer

    @extend_schema(tags=["system"], responses={200: s.ImageGenerationSettingsSerializer})
    def get(self, request):
        return super().get(request)

    @extend_schema(tags=["system"], request=s.ImageGenerationSettingsInputSerializer, responses={200: s.ImageGenerationSettingsSerializer})
    def put(self, request):
        return super().put(request)


class IntegrationTestView(SystemSettingsView):
    """Verifies an API key with one real call to the provider the account's settings name.

    It spends no credits; it honours ``Idempotency-Key`` as every provider-calling POST does, so a
    retried request answers the first result instead of calling the provider again.
    """

    throttle_scope = "ai"

    @extend_schema(tags=["system"], request=s.IntegrationTestInputSerializer, responses={200: s.KeyCheckSerializer})
    @idempotent
    def post(self, request):
        data = validated(s.IntegrationTestInputSerializer, request)
        check = services.integration_key_test(account=request.account, integration_type=data["integration_type"], api_key=data["api_key"])
        return ok(s.KeyCheckSerializer(check).data)


# Content settings: /settings/content/{key}/ and /settings/content/{key}/save/. The route's
# converter (inkwell.system.urls) takes only the known keys, so any other key answers 404.

CONTENT_SETTINGS_SERIALIZERS = {
    "content_generation": (s.ContentGenerationSettingsSerializer, s.ContentGenerationSettingsInputSerializer),
    "publishing": (s.PublishingContentSettingsSerializer, s.PublishingContentSettingsInputSerializer),
}
CONTENT_SETTINGS_KEY = OpenApiParameter(
    "key", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(CONTENT_SETTINGS_SERIALIZERS), description="The group of content settings."
)


def _content_settings_shapes(index: int, name: str) -> PolymorphicProxySerializer:
    return PolymorphicProxySerializer(
        component_name=name, serializers=[pair[index] for pair in CONTENT_SETTINGS_SERIALIZERS.values()], resource_type_field_name=None
    )


class ContentSettingsView(SystemSettingsView):
    """The account's content settings of one key: the defaults merged with what it saved."""

    @extend_schema(tags=["system"], parameters=[CONTENT_SETTINGS_KEY], responses={200: _content_settings_shapes(0, "ContentSettings")})
    def get(self, request, key: str):
        return ok(selectors.content_settings(request.account, key))


class ContentSettingsSaveView(SystemSettingsView):
    """Saves the fields the body names (a field the key does not have is a 400) and answers the
    effective values."""

    @extend_schema(
        tags=["system"],
        parameters=[CONTENT_SETTINGS_KEY],
        request=_content_settings_shapes(1, "ContentSettingsInput"),
        responses={200: _content_settings_shapes(0, "ContentSettings")},
    )
    def post(self, request, key: str):
        values = validated(CONTENT_SETTINGS_SERIALIZERS[key][1], request)
        services.content_settings_save(account=request.account, key=key, user=request.user, values=values)
        return ok(selectors.content_settings(request.account, key))


# Prompts.

PROMPT_TYPE_PARAMETER = OpenApiParameter("prompt_type", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(PROMPT_TYPE_NAMES))


def _known_prompt_type(prompt_type: str) -> str:
    if prompt_type not in PROMPTS:
        raise NotFound()
    return prompt_type


class PromptListView(SystemSettingsView):
    """Every prompt type: a small fixed set, so a plain list rather than a page."""

    @extend_schema(tags=["system"], responses={200: s.PromptSerializer(many=True)})
    def get(self, request):
        return ok(s.PromptSerializer(selectors.prompt_list(request.account), many=True).data)


def _prompt_answer(request, prompt_type: str):
    return ok(s.PromptSerializer(selectors.prompt_detail(request.account, prompt_type)).data)


class PromptView(SystemSettingsView):
    """One prompt type: the text in use (the account's own, else the default) beside the default."""

    @extend_schema(tags=["system"], parameters=[PROMPT_TYPE_PARAMETER], responses={200: s.PromptSerializer})
    def get(self, request, prompt_type: str):
        return _prompt_answer(request, _known_prompt_type(prompt_type))

    @extend_schema(tags=["system"], parameters=[PROMPT_TYPE_PARAMETER], request=s.PromptInputSerializer, responses={200: s.PromptSerializer})
    def put(self, request, prompt_type: str):
        prompt_type = _known_prompt_type(prompt_type)
        text = validated(s.PromptInputSerializer, request)["prompt_value"]
        services.prompt_save(account=request.account, prompt_type=prompt_type, text=text, user=request.user)
        return _prompt_answer(request, prompt_type)


class PromptResetView(SystemSettingsView):
    """Deletes the account's text of a prompt type, so the default applies again."""

    @extend_schema(tags=["system"], parameters=[PROMPT_TYPE_PARAMETER], request=None, responses={200: s.PromptSerializer})
    def post(self, request, prompt_type: str):
        prompt_type = _known_prompt_type(prompt_type)
        services.prompt_reset(account=request.account, prompt_type=prompt_type)
        return _prompt_answer(request, prompt_type)


# Modules.


class ModulesView(SystemSettingsView):
    """Which modules are enabled for the account (all, until switched off). A save switches the
    modules it names; the endpoints of a disabled module answer 403 ``module_disabled``."""

    def _answer(self, request):
        return ok({"modules": selectors.module_states(request.account)})

    @extend_schema(tags=["system"], responses={200: s.ModulesSerializer})
    def get(self, request):
        return self._answer(request)

    @extend_schema(tags=["system"], request=s.ModulesInputSerializer, responses={200: s.ModulesSerializer})
    def put(self, request):
        services.modules_save(account=request.account, modules=validated(s.ModulesInputSerializer, request)["modules"])
        return self._answer(request)


# The AI model catalogue.




@extend_schema(tags=["system"])
class AIModelViewSet(mixins.ListModelMixin, ApiGenericViewSet):
    """The models a site may choose in its settings (``ai_settings`` of the unified site
    settings): the same catalogue for every account, kept by staff."""

    tenant_scope = "global"
    queryset = AIModel.objects.all()
    serializer_class = s.AIModelSerializer
    filterset_class = AIModelFilter
