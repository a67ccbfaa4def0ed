"""The service's Prometheus metrics, and the one function per event that records them.

Each event is recorded where it happens, once: requests in ``RequestMetricsMiddleware``, jobs in
the jobs engine (``inkwell.jobs.services``), credits in billing's charge, publish attempts in
publishing's finish, automation runs in the run log's transitions. Labels are bounded sets (a
URL pattern's name, a job kind, a status, an operation) and never carry an account's data.

Processes started with ``PROMETHEUS_MULTIPROC_DIR`` (gunicorn workers, Celery workers) write
their values to files in that folder, which ``/metrics`` reads together (docs/operations.md, "Metrics and logs").
"""

from prometheus_client import Counter, Histogram

# Latency buckets from a cached list (5 ms) to a slow AI call answered inline (30 s).
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
JOB_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0)

http_requests = Counter("inkwell_http_requests", "HTTP requests answered, by route (URL pattern name), method and status", ["route", "method", "status"])
http_request_duration = Histogram(
    "inkwell_http_request_duration_seconds", "Time to answer an HTTP request, by route, method and status", ["route", "method", "status"], buckets=REQUEST_BUCKETS
)
jobs_started = Counter("inkwell_jobs_started", "Job attempts claimed by a worker, by job kind", ["kind"])
jobs_succeeded = Counter("inkwell_jobs_succeeded", "Jobs that succeeded, by job kind", ["kind"])
jobs_failed = Counter("inkwell_jobs_failed", "Jobs that failed (or were cancelled: status=cancelled), by job kind", ["kind", "status"])
jobs_retried = Counter("inkwell_jobs_retried", "Jobs queued again after a transient error or a lost worker, by job kind and reason", ["kind", "reason"])
job_duration = Histogram("inkwell_job_duration_seconds", "Run time of a job's last attempt, by job kind and final status", ["kind", "status"], buckets=JOB_BUCKETS)
publish_attempts = Counter("inkwell_publish_attempts", "Attempts to publish a content to its CMS, by outcome", ["outcome"])
credits_spent = Counter("inkwell_credits_spent", "Credits charged, by operation", ["operation"])
automation_runs = Counter("inkwell_automation_run_transitions", "Automation runs entering a status", ["status"])


def record_request(*, route: str, method: str, status: int, seconds: float) -> None:
    labels = (route, method, str(status))
    http_requests.labels(*labels).inc()
    http_request_duration.labels(*labels).observe(seconds)


def record_job_started(kind: str) -> None:
    jobs_started.labels(kind).inc()


def record_job_retried(kind: str, reason: str) -> None:
    jobs_retried.labels(kind, reason).inc()


def record_job_finished(kind: str, status: str, seconds: float | None) -> None:
    if status == "succeeded":
        jobs_succeeded.labels(kind).inc()
    else:
        jobs_failed.labels(kind, status).inc()
    if seconds is not None:
        job_duration.labels(kind, status).observe(max(0.0, seconds))


def record_publish_attempt(outcome: str) -> None:
    publish_attempts.labels(outcome).inc()


def record_credits_spent(operation: str, credits: int) -> None:
    credits_spent.labels(operation).inc(credits)


def record_automation_run(status: str) -> None:
    automation_runs.labels(status).inc()
