"""Site settings, mounted at /api/v1/integration/ beside the integrations (inkwell/api/urls.py)."""

from django.urls import path

from inkwell.sitesettings import views

urlpatterns = [
    path(
        "sites/<int:site_id>/unified-settings/",
        views.UnifiedSettingsViewSet.as_view({"get": "retrieve", "patch": "partial_update"}),
        name="site-unified-settings",
    ),
    path("sites/<int:site_id>/unified-settings/reset/", views.UnifiedSettingsViewSet.as_view({"post": "reset"}), name="site-unified-settings-reset"),
    path(
        "sites/<int:site_id>/publishing-settings/",
        views.PublishingSettingsViewSet.as_view({"get": "retrieve", "put": "update", "patch": "partial_update"}),
        name="site-publishing-settings",
    ),
    path("settings/defaults/", views.DefaultSettingsView.as_view(), name="site-settings-defaults"),
]
