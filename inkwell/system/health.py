"""Component checks behind the health endpoint."""

import socket
import time

from django.conf import settings
from django.core.cache import cache
from django.db import connection

HEARTBEAT_KEY = "worker-heartbeat"


def record_worker_heartbeat() -> None:
    cache.set(HEARTBEAT_KEY, {"at": time.time(), "host": socket.gethostname()}, timeout=None)


def _timed(check) -> dict:
    started = time.perf_counter()
    try:
        check()
    except Exception as error:  # reported, not raised: health must answer when a component is down
        return {"status": "unavailable", "error": type(error).__name__}
    return {"status": "ok", "latency_ms": round((time.perf_counter() - started) * 1000, 2)}


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _cache() -> None:
    cache.set("health-probe", 1, timeout=10)
    if cache.get("health-probe") != 1:
        raise RuntimeError("cache did not return what was stored")


def _worker() -> dict:
    """The worker is alive when the heartbeat that the scheduler sends it is recent."""
    try:
        beat = cache.get(HEARTBEAT_KEY)
    except Exception as error:
        return {"status": "unknown", "error": type(error).__name__}
    if beat is None:
        return {"status": "unavailable", "last_heartbeat_age_s": None}
    age = time.time() - beat["at"]
    fresh = age <= 3 * settings.WORKER_HEARTBEAT_SECONDS
    return {"status": "ok" if fresh else "unavailable", "last_heartbeat_age_s": round(age, 1), "host": beat["host"]}


def system_health() -> dict:
    components = {"database": _timed(_database), "cache": _timed(_cache), "worker": _worker()}
    healthy = all(component["status"] == "ok" for component in components.values())
    return {
        "status": "ok" if healthy else "degraded",
        "version": settings.INKWELL_VERSION,
        "database_engine": connection.vendor,
        "components": components,
    }
