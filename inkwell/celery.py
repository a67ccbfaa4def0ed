"""The one Celery application: Redis broker in production, filesystem transport embedded."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inkwell.settings")

app = Celery("inkwell")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
