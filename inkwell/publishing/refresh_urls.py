"""Mounted at /api/v1/writer/ beside the writer's refreshes (inkwell/api/urls.py): sending a
refresh of a live article, now or on the schedule, is publishing's (issue #37)."""

from django.urls import re_path

from inkwell.publishing import views

urlpatterns = [
    re_path(r"^refreshes/(?P<pk>[^/.]+)/send/$", views.RefreshPublishViewSet.as_view({"post": "send"}), name="writer-refresh-send"),
    re_path(r"^refreshes/(?P<pk>[^/.]+)/schedule/$", views.RefreshPublishViewSet.as_view({"post": "schedule"}), name="writer-refresh-schedule"),
    re_path(r"^refreshes/(?P<pk>[^/.]+)/unschedule/$", views.RefreshPublishViewSet.as_view({"post": "unschedule"}), name="writer-refresh-unschedule"),
]
