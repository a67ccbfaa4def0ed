"""Mounted at /api/v1/publisher/ (inkwell/api/urls.py)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.publishing import views

router = SimpleRouter()
router.register("records", views.PublishingRecordViewSet, basename="publisher-record")
router.register("deployments", views.DeploymentViewSet, basename="publisher-deployment")

urlpatterns = [
    path("publish/", views.PublishView.as_view(), name="publisher-publish"),
    path("publish/status/", views.PublishStatusView.as_view(), name="publisher-publish-status"),
    path("site-definition/", views.SiteDefinitionView.as_view(), name="publisher-site-definition"),
    *router.urls,
]

