"""Mounted at /api/v1/integration/ beside the site settings (inkwell/api/urls.py): a site's search
performance, at the address of contract section 12."""

from django.urls import path

from inkwell.performance import views

urlpatterns = [
    path(
        "sites/<int:site_id>/search-performance/import/",
        views.SiteSearchPerformanceViewSet.as_view({"post": "import_export"}),
        name="site-search-performance-import",
    ),
    path("sites/<int:site_id>/search-performance/", views.SiteSearchPerformanceViewSet.as_view({"get": "summary"}), name="site-search-performance"),
]
