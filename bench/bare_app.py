"""The reference points of bench/light_endpoints.py: a bare Django JSON view, a bare DRF view, and
the floors of an authenticated endpoint.

One module is the settings, the URL conf and the WSGI/ASGI application: the middleware of a new
``startproject`` and nothing of Inkwell. Every view answers the same small envelope as
``/notifications/unread-count/``. Served as ``bench.bare_app:application`` (gunicorn) or
``bench.bare_app:asgi_application`` (uvicorn).

The floors are what no endpoint that authenticates its caller and reads its data can do without on
this stack, as a plain Django view and as a DRF view: one read of a small pickled value from Redis
on a kept connection (the round trip in which Inkwell reads its principal and counts the rate-limit
hit), and that plus one SQL statement on a kept connection (``SELECT 1``: less than any real
query). They read the ``REDIS_URL`` and ``DATABASE_URL`` that Inkwell is served with.
"""

import os
import pickle
import threading

import dj_database_url
import django
import redis
from django.conf import settings
from django.http import JsonResponse
from django.urls import path

settings.configure(
    DEBUG=False,
    SECRET_KEY="bench-bare-app-not-secret",  # serves constant views on loopback; signs nothing
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
    DATABASES={"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=None)} if "DATABASE_URL" in os.environ else {},
    USE_TZ=True,
    REST_FRAMEWORK={
        "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
        "DEFAULT_AUTHENTICATION_CLASSES": [],
        "DEFAULT_PERMISSION_CLASSES": [],
        "UNAUTHENTICATED_USER": None,
    },
)
django.setup()

from django.db import connection  # noqa: E402  (reads the settings configured above)
from rest_framework.response import Response  # noqa: E402
from rest_framework.views import APIView  # noqa: E402

BODY = {"success": True, "data": {"count": 0}}
# About the size of a cached principal: five short rows of values.
FLOOR_VALUE = tuple(tuple(range(12)) for _ in range(5))
FLOOR_KEY = "bench-bare:floor"
if "REDIS_URL" in os.environ:
    with redis.Redis.from_url(os.environ["REDIS_URL"]) as client:
        client.set(FLOOR_KEY, pickle.dumps(FLOOR_VALUE))

# One Redis connection per thread, opened after the server's fork, as Inkwell's hot path keeps one.
_redis = threading.local()


def floor_reads(*, sql: bool) -> None:
    """The Redis read of a floor, and its ``SELECT 1`` when ``sql``."""
    redis_connection = getattr(_redis, "connection", None)
    if redis_connection is None:
        redis_connection = _redis.connection = redis.Redis.from_url(os.environ["REDIS_URL"]).connection_pool.make_connection()
    redis_connection.send_command("GET", FLOOR_KEY)
    pickle.loads(redis_connection.read_response())
    if sql:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()


def bare_django(request):
    return JsonResponse(BODY)


def django_floor(request, *, sql: bool = False):
    floor_reads(sql=sql)
    return JsonResponse(BODY)


class BareDrf(APIView):
    def get(self, request):
        return Response(BODY)


class DrfFloor(APIView):
    sql = False

    def get(self, request):
        floor_reads(sql=self.sql)
        return Response(BODY)


urlpatterns = [
    path("django/", bare_django),
    path("drf/", BareDrf.as_view()),
    path("floor/django/redis/", django_floor),
    path("floor/django/redis-sql/", django_floor, {"sql": True}),
    path("floor/drf/redis/", DrfFloor.as_view()),
    path("floor/drf/redis-sql/", DrfFloor.as_view(sql=True)),
]

from django.core.asgi import get_asgi_application  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
asgi_application = get_asgi_application()
