"""Mounted at /api/v1/writer/ (inkwell/api/urls.py)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.writer import image_views, views

router = SimpleRouter()
router.register("tasks", views.TaskViewSet, basename="writer-task")
router.register("content", views.ContentViewSet, basename="writer-content")
router.register("taxonomies", views.TaxonomyViewSet, basename="writer-taxonomy")
router.register("images", image_views.ImageViewSet, basename="writer-image")

urlpatterns = [
    path("sites/<int:site_id>/editorial/", views.SiteEditorialViewSet.as_view({"get": "retrieve", "patch": "partial_update"}), name="writer-site-editorial"),
    path("sites/<int:site_id>/voice/", views.SiteVoiceViewSet.as_view({"get": "retrieve", "patch": "partial_update"}), name="writer-site-voice"),
    path("sites/<int:site_id>/voice/propose/", views.SiteVoiceViewSet.as_view({"post": "propose"}), name="writer-site-voice-propose"),
    *router.urls,
]
