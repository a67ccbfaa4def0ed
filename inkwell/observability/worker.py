"""A Celery worker's own metrics endpoint, for workers on a host where no web process serves
``/metrics`` (docs/operations.md, "Metrics and logs"). ``WORKER_METRICS_ADDRESS=host:port`` turns it on; it is plain
HTTP with no token, so bind it to an address only the Prometheus server reaches (the default
host is 127.0.0.1). Read from the environment, not Django's settings: it starts with the worker,
before Django is set up."""

import os

from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
from prometheus_client.multiprocess import MultiProcessCollector


def worker_registry() -> CollectorRegistry:
    """Every process's values when they share PROMETHEUS_MULTIPROC_DIR, else this process's."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    return registry


def serve_worker_metrics(address: str):
    """Serves the metrics on ``host:port`` in a background thread; returns the HTTP server."""
    host, _, port = address.rpartition(":")
    server, _thread = start_http_server(int(port), addr=host or "127.0.0.1", registry=worker_registry())
    return server


def serve_worker_metrics_from_environment(**_) -> None:
    """Connected to Celery's ``worker_init`` in inkwell/celery.py."""
    address = os.environ.get("WORKER_METRICS_ADDRESS")
    if address:
        serve_worker_metrics(address)
