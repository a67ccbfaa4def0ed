"""The one Celery application: Redis broker in production, filesystem transport embedded."""

import os

from celery import Celery
from celery.signals import worker_init

from inkwell.observability.worker import serve_worker_metrics_from_environment

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inkwell.settings")

app = Celery("inkwell")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The worker's own metrics endpoint, when WORKER_METRICS_ADDRESS is set.
worker_init.connect(serve_worker_metrics_from_environment)
