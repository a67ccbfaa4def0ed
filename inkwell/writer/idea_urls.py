"""Mounted at /api/v1/planner/ before the planner's routes (inkwell/api/urls.py): what the writer
does with the planner's ideas, at the addresses clients know."""

from django.urls import path

from inkwell.writer import views

urlpatterns = [
    path("ideas/overlaps/", views.IdeaWorkViewSet.as_view({"get": "overlaps"}), name="planner-idea-overlaps"),
    path("ideas/create_tasks/", views.IdeaWorkViewSet.as_view({"post": "create_tasks"}), name="planner-idea-create-tasks"),
]
