"""What operators read: ``GET /metrics`` and the browsers' reports of ``POST /csp-report/``.

``GET /metrics``: the Prometheus text format, for the bearer of ``METRICS_TOKEN`` only.

Unset, the endpoint does not exist (404, like any unknown path); set, a request without the
token is refused (401). What it serves: the counters and histograms of every process of this
host that shares ``PROMETHEUS_MULTIPROC_DIR`` (the gunicorn workers and the Celery workers), or
of this process alone when that folder is not set, and the state read at scrape time
(``inkwell.observability.state``).
"""

import hmac
import json
import logging
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
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


csp_logger = logging.getLogger("inkwell.csp")
CSP_REPORT_MAX_BYTES = 16 * 1024
CSP_REPORT_FIELDS = ("document-uri", "effective-directive", "violated-directive", "blocked-uri", "source-file", "line-number")


def _without_query(value: object) -> str:
    """A reported address without its query and fragment (they may carry a token), at most 200 characters."""
    text = str(value)[:500]
    try:
        parts = urlsplit(text)
    except ValueError:
        return text[:200]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))[:200]


@csrf_exempt
@require_POST
def csp_report(request):
    """A browser's report of a Content-Security-Policy violation, written to the log (logger
    ``inkwell.csp``) as one line of its main fields; anything else is ignored. Always 204."""
    if len(request.body) <= CSP_REPORT_MAX_BYTES:
        try:
            report = json.loads(request.body).get("csp-report")
        except (ValueError, AttributeError):
            report = None
        if isinstance(report, dict):
            fields = {name: _without_query(report[name]) for name in CSP_REPORT_FIELDS if name in report}
            csp_logger.warning("content security policy violation %s", json.dumps(fields, sort_keys=True))
    return HttpResponse(status=204)
