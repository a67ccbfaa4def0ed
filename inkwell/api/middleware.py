import uuid

from django.urls import Resolver404, resolve

from inkwell.api.logging import current_request_id


def _valid_uuid(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


class TrailingSlashForWritesMiddleware:
    """A write (POST, PUT, PATCH, DELETE) to a path without its trailing slash reaches the route
    with it. Django's APPEND_SLASH would answer a redirect with no body, which clients follow as
    a GET, losing the write; GET and HEAD keep that redirect, which is harmless for them."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path_info
        if request.method not in ("GET", "HEAD") and not path.endswith("/") and not _resolves(path) and _resolves(f"{path}/"):
            request.path_info, request.path = f"{path}/", f"{request.path}/"
        return self.get_response(request)


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


class RequestIdMiddleware:
    """Gives every request an id: the caller's ``X-Request-ID`` if it is a UUID, else a new one.

    The id is echoed on every response, put in every error body and on every log line.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = _valid_uuid(request.headers.get("X-Request-ID")) or str(uuid.uuid4())
        request.request_id = request_id
        token = current_request_id.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            current_request_id.reset(token)
        response["X-Request-ID"] = request_id
        return response


class RateLimitHeadersMiddleware:
    """Copies the rate-limit state the throttle measured onto the response, whatever its status."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        state = getattr(request, "rate_limit", None)
        if state is not None:
            response["X-RateLimit-Limit"] = str(state.limit)
            response["X-RateLimit-Remaining"] = str(state.remaining)
            response["X-RateLimit-Reset"] = str(state.reset)
        return response
