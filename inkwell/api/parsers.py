"""The one way request bodies are read: JSON only, at most
``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (413) and never deeper than ``MAX_JSON_DEPTH``.

Python's decoder recurses once per level: a body nested a thousand levels deep exhausts the stack
(``RecursionError``) while a request is already some hundred frames deep. Such a body, and any
body deeper than the limit (which no request of this API needs), is a 400 ``parse_error``, so
nothing deeper ever reaches a serializer, a stored JSON field or an error message.
"""

import json

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from inkwell.api.exceptions import PayloadTooLarge

MAX_JSON_DEPTH = 32
TOO_DEEP = f"The JSON is nested more than {MAX_JSON_DEPTH} levels deep"


def check_json_depth(value) -> None:
    """Raise ``ParseError`` when ``value`` nests lists and objects deeper than ``MAX_JSON_DEPTH``
    (walked without recursion)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > MAX_JSON_DEPTH:
            raise ParseError(TOO_DEEP)
        pending.extend((child, depth + 1) for child in children)


def loads(raw: bytes | str):
    """``raw`` decoded as JSON, or ``ParseError`` (not JSON, or nested too deeply)."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise ParseError(TOO_DEEP) from None
    except ValueError:
        raise ParseError("The body is not valid JSON") from None
    check_json_depth(value)
    return value


def check_body_size(request) -> None:
    """``PayloadTooLarge`` for a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes, before it is
    read (DRF reads the body as a stream, which Django's own check never sees)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return  # no readable length: DRF reads no body either
    if limit is not None and length > limit:
        raise PayloadTooLarge()


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser (strict: no NaN or Infinity), bounded in size and depth."""

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        if request is not None:
            check_body_size(request)
        try:
            value = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(TOO_DEEP) from None
        check_json_depth(value)
        return value
