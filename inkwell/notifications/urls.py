"""Mounted at /api/v1/notifications/ (inkwell/api/urls.py)."""

from rest_framework.routers import SimpleRouter

from inkwell.notifications import views

router = SimpleRouter()
router.register("", views.NotificationViewSet, basename="notification")
urlpatterns = router.urls
