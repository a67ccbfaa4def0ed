"""The envelope renderer encodes with orjson: its output must mean exactly what DRF's JSON renderer
wrote (same keys, same date and number formats), byte for byte where both are compact."""

import datetime
import decimal
import json
import uuid
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from inkwell.api.envelope import Enveloped, success_body
from inkwell.api.renderers import EnvelopeJSONRenderer

UTC = datetime.UTC


def payload() -> dict:
    return {
        "aware": datetime.datetime(2026, 11, 24, 23, 41, 21, 123456, tzinfo=UTC),
        "aware_whole_second": datetime.datetime(2026, 11, 24, 23, 41, 21, tzinfo=UTC),
        "other_zone": datetime.datetime(2026, 7, 1, 9, 0, tzinfo=ZoneInfo("Europe/Berlin")),
        "naive": datetime.datetime(2026, 1, 2, 3, 4, 5, 6),
        "date": datetime.date(2026, 2, 28),
        "time": datetime.time(8, 30, 15, 250),
        "duration": datetime.timedelta(minutes=90),
        "money": decimal.Decimal("12.50"),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "lazy": gettext_lazy("Permission denied"),
        "by_id": {3: 30, 7: 70},
        "unicode": "café ☕ line\u2028para\u2029",
        "nested": [{"a": None, "b": True, "c": 1.5, "d": -7}, (1, 2)],
        "empty": {},
    }


def drf_bytes(data, status: int = 200) -> bytes:
    context = {"response": SimpleNamespace(status_code=status)}
    if status < 400 and not isinstance(data, Enveloped):
        data = success_body(data)
    return JSONRenderer().render(data, "application/json", context)


def rendered(data, status: int = 200, accepted: str = "application/json") -> bytes:
    return EnvelopeJSONRenderer().render(data, accepted, {"response": SimpleNamespace(status_code=status)})


def test_the_envelope_is_byte_for_byte_what_drf_wrote():
    assert rendered(payload()) == drf_bytes(payload())
    assert json.loads(rendered(payload()))["data"]["aware"] == "2026-11-24T23:41:21.123456Z"


def test_an_error_envelope_is_sent_untouched_and_identical():
    error = {"success": False, "error": "Validation failed", "errors": {"name": ["This field is required."]}, "request_id": str(uuid.uuid4())}

    assert rendered(error, status=400) == drf_bytes(error, status=400)
    assert json.loads(rendered(error, status=400)) == error


def test_an_already_enveloped_list_is_not_wrapped_again():
    page = Enveloped(success=True, count=1, next=None, previous=None, results=[{"id": 1}])

    assert json.loads(rendered(page)) == {"success": True, "count": 1, "next": None, "previous": None, "results": [{"id": 1}]}


def test_no_content_stays_empty_and_none_is_a_null_data():
    assert EnvelopeJSONRenderer().render(None, "application/json", {"response": SimpleNamespace(status_code=204)}) == b""
    assert json.loads(rendered(None)) == {"success": True, "data": None}


def test_an_indented_answer_asked_for_is_still_indented():
    accepted = "application/json; indent=2"
    body = rendered({"a": 1}, accepted=accepted)

    assert body == JSONRenderer().render(success_body({"a": 1}), accepted, {})
    assert body.startswith(b'{\n  "success": true')
