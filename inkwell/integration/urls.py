"""Mounted at /api/v1/integration/ (inkwell/api/urls.py), next to the site settings routes."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.integration import views

router = SimpleRouter()
router.register("", views.IntegrationViewSet, basename="integration")

urlpatterns = [
    path("webhook/cms/", views.CmsWebhookView.as_view(), name="integration-webhook-cms"),
    path("webhook/ghost/<int:pk>/", views.GhostWebhookView.as_view(), name="integration-webhook-ghost"),
    *router.urls,
]
