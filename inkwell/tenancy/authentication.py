"""The three credential forms of the spec: Bearer JWT, ``ApiKey`` and the session cookie."""

from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied

from inkwell.api import throttling
from inkwell.api.exceptions import CsrfFailed
from inkwell.tenancy import api_keys, tokens
from inkwell.tenancy.models import ApiKey

API_KEY_TOUCH_INTERVAL = timedelta(minutes=1)


def _credential(request, keyword: str) -> str | None:
    header = authentication.get_authorization_header(request).decode("latin-1")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != keyword.lower():
        return None
    value = value.strip()
    if not value or " " in value:
        raise AuthenticationFailed("Invalid token", code="invalid_token")
    return value


class BearerTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        token = _credential(request, "Bearer")
        if token is None:
            return None
        payload = tokens.decode(token, tokens.ACCESS)
        view = request.parser_context.get("view") if request.parser_context else None
        counter_key = throttling.counter_key(view, user_id=payload["user_id"]) if view is not None else None
        user, count = tokens.user_for_payload_counting_hit(payload, counter_key=counter_key)
        if count is not None:  # counted with the principal: the throttle uses this count
            request._request.counted_hit = throttling.CountedHit(counter_key, count)
        return user, payload

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: ApiKey <key>``: acts as the key's creator, limited to the key's site."""

    def authenticate(self, request):
        raw_key = _credential(request, "ApiKey")
        if raw_key is None:
            return None
        key = api_keys.find_active_key(raw_key)
        if key is None:
            raise AuthenticationFailed("Invalid API key", code="invalid_token")
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at > API_KEY_TOUCH_INTERVAL:
            ApiKey.dangerously_unscoped.filter(pk=key.pk).update(last_used_at=now)
        return key.user, key

    def authenticate_header(self, request):
        return 'ApiKey realm="api"'


class SessionAuthentication(authentication.SessionAuthentication):
    """Django's session cookie, with CSRF enforced on unsafe methods."""

    def enforce_csrf(self, request):
        try:
            super().enforce_csrf(request)
        except PermissionDenied:
            # Same answer as Django's own CSRF failure view (inkwell.api.exceptions.csrf_failure).
            raise CsrfFailed() from None
