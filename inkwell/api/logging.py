"""What every log line carries: the current request id, and the account, job or run it concerns
(``bind``); and the JSON-lines format (``LOG_FORMAT=json``)."""

import contextvars
import json
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from types import MappingProxyType

from django.utils.functional import LazyObject

current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
# The request being answered (set by inkwell.observability.middleware), for its account.
current_request: contextvars.ContextVar = contextvars.ContextVar("current_request", default=None)
# account_id, job_id, run_id of the work in hand outside a request (a job, an automation run).
_bound: contextvars.ContextVar[Mapping] = contextvars.ContextVar("log_fields", default=MappingProxyType({}))

CONTEXT_FIELDS = ("account_id", "job_id", "run_id")
# Attributes every LogRecord has; anything else on a record was passed with ``extra``.
_RECORD_ATTRIBUTES = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "request_id", *CONTEXT_FIELDS}


@contextmanager
def bind(**fields) -> Iterator[None]:
    """Adds ``fields`` (account_id, job_id, run_id) to every log line written inside the block."""
    token = _bound.set({**_bound.get(), **fields})
    try:
        yield
    finally:
        _bound.reset(token)


def _request_account_id() -> int | None:
    """The account of the current request once authentication has resolved its user; Django's
    lazy user is left alone (evaluating it in a log call would query the database)."""
    request = current_request.get()
    user = request.__dict__.get("user") if request is not None else None
    if user is None or isinstance(user, LazyObject):
        return None
    return getattr(user, "account_id", None)


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        fields = _bound.get()
        for name in CONTEXT_FIELDS:
            setattr(record, name, fields.get(name))
        if record.account_id is None:
            record.account_id = _request_account_id()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line. An exception is named by its type and where it was raised,
    never printed as a traceback (its text may carry data that has no place in a log)."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        for name in CONTEXT_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        line.update((key, value) for key, value in record.__dict__.items() if key not in _RECORD_ATTRIBUTES)
        if record.exc_info and record.exc_info[1] is not None:
            error, traceback = record.exc_info[1], record.exc_info[2]
            while traceback is not None and traceback.tb_next is not None:
                traceback = traceback.tb_next
            line["error_type"] = type(error).__name__
            if traceback is not None:
                line["error_at"] = f"{traceback.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{traceback.tb_lineno}"
        return json.dumps(line, default=str)
