from django.urls import path

from inkwell.system import views

urlpatterns = [
    path("health/", views.HealthView.as_view(), name="system-health"),
    path("settings/integrations/ai_provider/", views.AIProviderSettingsView.as_view(), name="system-ai-provider-settings"),
    path("settings/integrations/image_generation/", views.ImageGenerationSettingsView.as_view(), name="system-image-generation-settings"),
    path("settings/integrations/test/", views.IntegrationTestView.as_view(), name="system-integration-test"),
    # One route per content settings key: any other key is not a route, so it answers 404.
    path("settings/content/content_generation/", views.ContentGenerationSettingsView.as_view(), name="system-content-generation-settings"),
    path(
        "settings/content/content_generation/save/",
        views.ContentGenerationSettingsSaveView.as_view(),
        name="system-content-generation-settings-save",
    ),
    path("settings/content/publishing/", views.PublishingContentSettingsView.as_view(), name="system-publishing-content-settings"),
    path("settings/content/publishing/save/", views.PublishingContentSettingsSaveView.as_view(), name="system-publishing-content-settings-save"),
    path("prompts/", views.PromptListView.as_view(), name="system-prompt-list"),
    path("prompts/<str:prompt_type>/", views.PromptView.as_view(), name="system-prompt-detail"),
    path("prompts/<str:prompt_type>/reset/", views.PromptResetView.as_view(), name="system-prompt-reset"),
    path("modules/", views.ModulesView.as_view(), name="system-modules"),
    path("ai-models/", views.AIModelViewSet.as_view({"get": "list"}), name="system-ai-model-list"),
]
