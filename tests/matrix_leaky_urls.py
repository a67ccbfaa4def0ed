"""A URL conf with an endpoint that forgets tenancy, to prove the matrix notices (never mounted)."""

from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from inkwell.tenancy.models import Site


class LeakySiteList(APIView):
    def get(self, request):
        return Response(list(Site.dangerously_unscoped.values("id", "name")))


urlpatterns = [
    path("api/v1/", include("inkwell.api.urls")),
    path("api/v1/leaky/sites/", LeakySiteList.as_view(), name="leaky-sites"),
]
