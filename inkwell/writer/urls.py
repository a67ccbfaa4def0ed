"""Mounted at /api/v1/writer/ (inkwell/api/urls.py)."""

from rest_framework.routers import SimpleRouter

from inkwell.writer import image_views, refresh_views, views

router = SimpleRouter()
router.register("tasks", views.TaskViewSet, basename="writer-task")
router.register("content", views.ContentViewSet, basename="writer-content")
router.register("taxonomies", views.TaxonomyViewSet, basename="writer-taxonomy")
router.register("images", image_views.ImageViewSet, basename="writer-image")
router.register("refreshes", refresh_views.RefreshViewSet, basename="writer-refresh")

urlpatterns = router.urls
