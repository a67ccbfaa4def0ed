from django.urls import path, register_converter

from inkwell.system import views


class ContentSettingsKeyConverter:
    """Only the known content settings keys are routes: any other key answers 404."""

    regex = "|".join(views.CONTENT_SETTINGS_SERIALIZERS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ContentSettingsKeyConverter, "content_settings_key")

urlpatterns = [
    path("health/", views.HealthView.as_view(), name="system-health"),
    path("settings/integrations/ai_provider/", views.AIProviderSettingsView.as_view(), name="system-ai-provider-settings"),
    path("settings/integrations/image_generation/", views.ImageGenerationSettingsView.as_view(), name="system-image-generation-settings"),
    path("settings/integrations/test/", views.IntegrationTestView.as_view(), name="system-integration-test"),
    path("settings/content/<content_settings_key:key>/", views.ContentSettingsView.as_view(), name="system-content-settings"),
    path("settings/content/<content_settings_key:key>/save/", views.ContentSettingsSaveView.as_view(), name="system-content-settings-save"),
    path("prompts/", views.PromptListView.as_view(), name="system-prompt-list"),
    path("prompts/<str:prompt_type>/", views.PromptView.as_view(), name="system-prompt-detail"),
    path("prompts/<str:prompt_type>/reset/", views.PromptResetView.as_view(), name="system-prompt-reset"),
    path("modules/", views.ModulesView.as_view(), name="system-modules"),
    path("ai-models/", views.AIModelViewSet.as_view({"get": "list"}), name="system-ai-model-list"),
]
