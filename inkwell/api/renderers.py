import orjson
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.renderers import JSONRenderer

from inkwell.api.envelope import Enveloped, success_body

# Datetimes as DRF writes them (ISO 8601, "Z" for UTC); integer dict keys as strings, as json does.
ORJSON_OPTIONS = orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY
LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))


def _drf_default(value):
    """What orjson does not encode itself (Decimal, timedelta, lazy strings, querysets...), as DRF does."""
    return JSONEncoder().default(value)


class EnvelopeJSONRenderer(JSONRenderer):
    """Wraps every successful body in the success envelope; 204 and empty bodies stay empty.

    Encodes with orjson: the same JSON as DRF's renderer in meaning (keys, date formats, numbers)
    at a fraction of the cost. An ``Accept: application/json; indent=N`` still gets DRF's indented output.
    """

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None and response.status_code == 204:
            return b""
        if not isinstance(data, Enveloped) and (response is None or response.status_code < 400):
            data = success_body(data)
        if self.get_indent(accepted_media_type, renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        body = orjson.dumps(data, default=_drf_default, option=ORJSON_OPTIONS)
        # As DRF: JSON that is also valid JavaScript.
        for raw, escaped in LINE_SEPARATORS:
            if raw in body:
                body = body.replace(raw, escaped)
        return body
