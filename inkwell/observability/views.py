"""``GET /metrics``: the Prometheus text format, for the bearer of ``METRICS_TOKEN`` only.

Unset, the endpoint does not exist (404, like any unknown path); set, a request without the
token is refused (401). What it serves: the counters and histograms of every process of this
host that shares ``PROMETHEUS_MULTIPROC_DIR`` (the gunicorn workers and the Celery workers), or
of this process alone when that folder is not set, and the state read at scrape time
(``inkwell.observability.state``).
"""

import hmac

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from inkwell.api.exceptions import error_body
from inkwell.observability.state import state_registry
from inkwell.observability.worker import worker_registry


def _authorized(request) -> bool:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), settings.METRICS_TOKEN.encode())


@require_GET
def metrics(request):
    if not settings.METRICS_TOKEN:
        return JsonResponse(error_body(404), status=404)
    if not _authorized(request):
        response = JsonResponse(error_body(401), status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    body = generate_latest(worker_registry()) + generate_latest(state_registry)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
