"""``Idempotency-Key``: a POST that starts AI work, sent again with the same key by the same
account, answers with the first answer and does nothing (and charges nothing) a second time.

Only a successful first answer is kept: a request that failed (402, 400, a provider error)
did nothing, so sending it again with the same key tries again. A key reused for a different
request, or sent again while the first is still being handled, answers 409.
"""

import hashlib
import json
import re
from datetime import timedelta
from functools import wraps

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from inkwell.api.envelope import Enveloped
from inkwell.api.exceptions import Conflict
from inkwell.api.models import IdempotencyRecord

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
# Printable ASCII without spaces, as UUIDs and the usual client-generated keys are.
KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,255}")
INVALID_KEY = "Idempotency-Key must be 1 to 255 printable characters without spaces"
KEY_REUSED = "This Idempotency-Key was already used for a different request"
KEY_IN_FLIGHT = "A request with this Idempotency-Key is still being processed"


def fingerprint(method: str, path: str, data) -> str:
    """What makes two requests "the same request" for one key."""
    payload = json.dumps([method, path, data], sort_keys=True, cls=JSONEncoder, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def expired_before():
    """Records older than this are forgotten: the key may be used afresh."""
    return timezone.now() - timedelta(hours=settings.INKWELL_IDEMPOTENCY_TTL_HOURS)


def _claim(request, key: str, request_fingerprint: str) -> tuple[IdempotencyRecord, bool]:
    """The record for this key: a new one (True) that this request now owns, or the existing one.

    A record older than the TTL is forgotten here, only when its key comes back (the periodic
    purge removes the rest), so a new key costs one INSERT.
    """
    fields = {"account_id": request.account.pk, "key": key}
    for _ in range(2):
        try:
            with transaction.atomic():
                return IdempotencyRecord.objects.create(**fields, method=request.method, path=request.path[:500], fingerprint=request_fingerprint), True
        except IntegrityError:
            if not IdempotencyRecord.objects.filter(**fields, created_at__lt=expired_before()).delete()[0]:
                break
    return IdempotencyRecord.objects.get(**fields), False


def _replay(record: IdempotencyRecord, request_fingerprint: str) -> Response:
    if record.fingerprint != request_fingerprint:
        raise Conflict({HEADER: [KEY_REUSED]})
    if record.status_code is None:
        raise Conflict({HEADER: [KEY_IN_FLIGHT]})
    body = Enveloped(record.body) if record.body_is_envelope else record.body
    return Response(body, status=record.status_code, headers={REPLAYED_HEADER: "true"})


def idempotent(handler):
    """Decorates a view method (``post`` or an ``@action``) so that it honours ``Idempotency-Key``."""

    @wraps(handler)
    def wrapper(view, request, *args, **kwargs):
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        if not KEY_PATTERN.fullmatch(key):
            raise ValidationError({HEADER: [INVALID_KEY]})
        # The query string is part of the request: the same key for another ?site_id= is refused.
        request_fingerprint = fingerprint(request.method, request.get_full_path(), request.data)
        record, owned = _claim(request, key, request_fingerprint)
        if not owned:
            return _replay(record, request_fingerprint)
        try:
            response = handler(view, request, *args, **kwargs)
        except BaseException:
            record.delete()
            raise
        if 200 <= response.status_code < 300:
            record.status_code = response.status_code
            record.body = json.loads(json.dumps(response.data, cls=JSONEncoder))
            record.body_is_envelope = isinstance(response.data, Enveloped)
            record.save(update_fields=["status_code", "body", "body_is_envelope"])
        else:
            record.delete()
        return response

    wrapper.idempotent = True
    return wrapper
