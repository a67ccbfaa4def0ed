"""Test-only URL conf: the project's routes plus views that exist only to exercise the platform.

Use with ``@pytest.mark.urls("inkwell.api.tests.urls_for_tests")``. The error handlers are the
project's own, so unknown routes and crashes answer exactly as in production.
"""

from django.db import OperationalError
from django.urls import path
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny

from inkwell.api.envelope import ok
from inkwell.api.views import ApiView, CountRefusedRequestsMixin
from inkwell import urls as project_urls

PREFIX = "/api/v1/_test/"
SECRET_CRASH_TEXT = "secret-internal-detail-7f3a"
NUMBER_COUNT = 250


class CrashView(ApiView):
    """A DRF view failing unexpectedly."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    def get(self, request):
        raise RuntimeError(SECRET_CRASH_TEXT)


def plain_crash_view(request):
    """A plain Django view failing unexpectedly (handled by ``handler500``, not DRF)."""
    raise RuntimeError(SECRET_CRASH_TEXT)


class DatabaseDownView(ApiView):
    """A DRF view meeting a database that is down (restarting)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    def get(self, request):
        raise OperationalError(f"connection to server failed: {SECRET_CRASH_TEXT}")


def plain_database_down_view(request):
    """A plain Django view meeting a database that is down."""
    raise OperationalError(f"connection to server failed: {SECRET_CRASH_TEXT}")


class NumbersView(CountRefusedRequestsMixin, GenericAPIView):
    """A public list of NUMBER_COUNT items ``{"n": 1}`` .. ``{"n": NUMBER_COUNT}``, paginated by the default paginator."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    def get(self, request):
        page = self.paginate_queryset(list(range(1, NUMBER_COUNT + 1)))
        return self.get_paginated_response([{"n": n} for n in page])


class ScopedPingView(ApiView):
    """An authenticated endpoint whose rate-limit scope is set per route."""

    throttle_scope = "general"

    def get(self, request):
        return ok({"scope": self.throttle_scope})


# Django reads the error handlers from the URL conf in use: the project's own.
handler400, handler403, handler404, handler500 = project_urls.handler400, project_urls.handler403, project_urls.handler404, project_urls.handler500

urlpatterns = [
    path("api/v1/_test/crash/", CrashView.as_view()),
    path("api/v1/_test/plain-crash/", plain_crash_view),
    path("api/v1/_test/database-down/", DatabaseDownView.as_view()),
    path("api/v1/_test/plain-database-down/", plain_database_down_view),
    path("api/v1/_test/numbers/", NumbersView.as_view()),
    *(path(f"api/v1/_test/ping/{scope}/", ScopedPingView.as_view(throttle_scope=scope)) for scope in ("ai", "content", "auth", "general")),
    *project_urls.urlpatterns,
]
