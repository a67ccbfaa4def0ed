"""Mounted at /api/v1/writer/ before the writer's routes (inkwell/api/urls.py): an article's search
performance and review, at the addresses of contract section 12."""

from django.urls import re_path

from inkwell.performance import views

urlpatterns = [
    re_path(r"^content/(?P<pk>[^/.]+)/performance/$", views.ContentPerformanceViewSet.as_view({"get": "performance"}), name="writer-content-performance"),
    re_path(r"^content/(?P<pk>[^/.]+)/reviewed/$", views.ContentPerformanceViewSet.as_view({"post": "reviewed"}), name="writer-content-reviewed"),
]
