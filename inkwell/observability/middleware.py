"""One middleware per request: its latency and status into the metrics, and its response line
into the log (the line every other line of the request can be matched with by ``request_id``).
Kept to a clock read, two metric updates and one log call: it runs on every request."""

import logging
import time

from inkwell.api.logging import current_request
from inkwell.observability.metrics import record_request

access_log = logging.getLogger("inkwell.request")

KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED_ROUTE = "unmatched"


def route_of(request) -> str:
    """The URL pattern's name (``content-detail``), or its pattern when it has none; never the
    path itself, which carries ids."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return UNMATCHED_ROUTE
    return match.view_name or match.route or UNMATCHED_ROUTE


class RequestMetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        token = current_request.set(request)
        try:
            response = self.get_response(request)
            seconds = time.perf_counter() - started
            route = route_of(request)
            method = request.method if request.method in KNOWN_METHODS else "OTHER"
            record_request(route=route, method=method, status=response.status_code, seconds=seconds)
            access_log.info(
                "%s %s %s %.1fms",
                method,
                route,
                response.status_code,
                seconds * 1000,
                extra={"event": "response", "method": method, "route": route, "path": request.path, "status": response.status_code, "duration_ms": round(seconds * 1000, 1)},
            )
        finally:
            current_request.reset(token)
        return response
