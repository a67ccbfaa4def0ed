"""Mounted at /api/v1/webhooks/ (inkwell/api/urls.py)."""

from rest_framework.routers import SimpleRouter

from inkwell.webhooks import views

router = SimpleRouter()
router.register("", views.WebhookEndpointViewSet, basename="webhook")

urlpatterns = router.urls
