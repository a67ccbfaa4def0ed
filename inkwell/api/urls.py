"""The v1 API: every domain mounts its routes here, under /api/v1/."""

from django.urls import include, path

urlpatterns = [
    path("auth/", include("inkwell.tenancy.urls")),
    path("system/", include("inkwell.system.urls")),
]
