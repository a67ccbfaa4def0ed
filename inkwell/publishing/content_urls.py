"""Mounted at /api/v1/writer/ beside the writer's routes (inkwell/api/urls.py): publishing a content
now and its schedule are publishing's, at the addresses clients know."""

from django.urls import re_path

from inkwell.publishing import views

urlpatterns = [
    re_path(
        r"^content/(?P<pk>[^/.]+)/publish_to_cms/$",
        views.ContentPublishViewSet.as_view({"post": "publish_to_cms"}),
        name="writer-content-publish-to-cms",
    ),
    re_path(r"^content/(?P<pk>[^/.]+)/schedule/$", views.ContentPublishViewSet.as_view({"post": "schedule"}), name="writer-content-schedule"),
    re_path(r"^content/(?P<pk>[^/.]+)/unschedule/$", views.ContentPublishViewSet.as_view({"post": "unschedule"}), name="writer-content-unschedule"),
]
