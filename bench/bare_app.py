"""The reference points of bench/light_endpoints.py: a bare Django JSON view and a bare DRF view.

One module is the settings, the URL conf and the WSGI/ASGI application: the middleware of a new
``startproject`` and nothing of Inkwell. Both views answer the same small envelope as
``/notifications/unread-count/``. Served as ``bench.bare_app:application`` (gunicorn) or
``bench.bare_app:asgi_application`` (uvicorn).
"""

import django
from django.conf import settings
from django.http import JsonResponse
from django.urls import path

settings.configure(
    DEBUG=False,
    SECRET_KEY="bench-bare-app-not-secret",  # serves two constant views on loopback; signs nothing
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.sessions",
        "django.contrib.messages",
        "rest_framework",
    ],
    # Django's startproject middleware.
    MIDDLEWARE=[
        "django.middleware.security.SecurityMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ],
    DATABASES={},
    USE_TZ=True,
    REST_FRAMEWORK={
        "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": [],
        "UNAUTHENTICATED_USER": None,
    },
)
django.setup()

from rest_framework.response import Response  # noqa: E402  (DRF reads the settings configured above)
from rest_framework.views import APIView  # noqa: E402

BODY = {"success": True, "data": {"count": 0}}


def bare_django(request):
    return JsonResponse(BODY)


class BareDrf(APIView):
    def get(self, request):
        return Response(BODY)


urlpatterns = [path("django/", bare_django), path("drf/", BareDrf.as_view())]

from django.core.asgi import get_asgi_application  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
asgi_application = get_asgi_application()
