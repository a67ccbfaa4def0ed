"""Metrics read at scrape time rather than counted: the queue depth (jobs waiting in the
database, messages waiting in the broker) and the automation runs by status. A component that
cannot be read (the database restarting) is left out of that scrape, never an error."""

import logging

from celery import current_app
from django.conf import settings
from django.db.models import Count
from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily

from inkwell.automation.models import AutomationRun
from inkwell.jobs.models import ACTIVE_JOB_STATUSES, Job

logger = logging.getLogger("inkwell.observability")


def _broker_queue_length() -> int:
    # The current app is inkwell.celery's, which the inkwell package loads first.
    with current_app.connection_for_read(connect_timeout=2) as connection:
        connection.ensure_connection(max_retries=1)
        # Not passive: an empty Redis queue is no list at all, which a passive declare refuses.
        return connection.default_channel.queue_declare(queue=settings.CELERY_TASK_DEFAULT_QUEUE).message_count


class StateCollector:
    def collect(self):
        jobs = GaugeMetricFamily("inkwell_jobs", "Jobs queued or running now, by job kind and status", labels=["kind", "status"])
        runs = GaugeMetricFamily("inkwell_automation_runs", "Automation runs, by status", labels=["status"])
        broker = GaugeMetricFamily("inkwell_queue_depth", "Messages waiting in the broker queue", labels=["queue"])
        try:
            for row in Job.dangerously_unscoped.filter(status__in=ACTIVE_JOB_STATUSES).values("kind", "status").annotate(n=Count("id")).order_by():
                jobs.add_metric([row["kind"], row["status"]], row["n"])
            for row in AutomationRun.dangerously_unscoped.values("status").annotate(n=Count("id")).order_by():
                runs.add_metric([row["status"]], row["n"])
        except Exception as error:  # noqa: BLE001  (a scrape during a database restart)
            logger.warning("metrics: the database could not be read: %s", type(error).__name__)
        else:
            yield jobs
            yield runs
        try:
            broker.add_metric([settings.CELERY_TASK_DEFAULT_QUEUE], _broker_queue_length())
        except Exception as error:  # noqa: BLE001  (a scrape during a broker restart)
            logger.warning("metrics: the broker could not be read: %s", type(error).__name__)
        else:
            yield broker


state_registry = CollectorRegistry(auto_describe=False)
state_registry.register(StateCollector())
