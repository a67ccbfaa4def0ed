"""Mounted at /api/v1/automation/ (inkwell/api/urls.py): the site-level endpoints at the root
(``config/``, ``update_config/``, ``run_now/``, ``logs/``...), the runs under ``runs/``."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.automation import views

router = SimpleRouter()
router.register("runs", views.RunViewSet, basename="automation-run")
router.register("", views.SiteAutomationViewSet, basename="automation")

urlpatterns = [
    path("config/", views.ConfigView.as_view(), name="automation-config"),
    path("update_config/", views.UpdateConfigView.as_view(), name="automation-update-config"),
    path("logs/", views.LogViewSet.as_view({"get": "list"}), name="automation-logs"),
    *router.urls,
]
