"""Mounted at /api/v1/notifications/ (inkwell/api/urls.py)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.notifications import views

router = SimpleRouter()
router.register("", views.NotificationViewSet, basename="notification")
urlpatterns = [path("preferences/", views.PreferencesView.as_view(), name="notification-preferences"), *router.urls]
