"""The one Celery application: Redis broker in production, filesystem transport embedded."""

import fcntl
import logging
import os

from celery import Celery
from celery.signals import beat_init, worker_init, worker_process_init

from inkwell.observability.worker import serve_worker_metrics_from_environment

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inkwell.settings")

app = Celery("inkwell")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The worker's own metrics endpoint, when WORKER_METRICS_ADDRESS is set.
worker_init.connect(serve_worker_metrics_from_environment)




def import_provider_sdk_at_start(**_):
    """The provider SDK is imported when a worker starts (in its pool's processes too, where they
    are forked), not by its first AI job."""
    from inkwell.ai.providers import import_provider_sdk

    seconds = import_provider_sdk()
    logging.getLogger("inkwell.ai").info("AI provider SDK imported at worker start in %.2f s", seconds)


worker_init.connect(import_provider_sdk_at_start)
worker_process_init.connect(import_provider_sdk_at_start)

logger = logging.getLogger("inkwell.beat")
_beat_lock = None  # the open lock file: the lock lasts as long as this beat's process


@beat_init.connect
def hold_the_only_beat_lock(sender=None, **_):
    """One beat per schedule file: a second one (say, next to a beat left running after its worker
    was killed) refuses to start, since two would dispatch every schedule twice. The lock is the
    kernel's (``flock``): it is released when its process ends, however it ends, so a crash leaves
    nothing to clean up."""
    global _beat_lock
    from django.conf import settings

    lock = open(f"{settings.CELERY_BEAT_SCHEDULE_FILENAME}.lock", "a+")  # kept open: closing it would release the lock
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        lock.close()
        logger.error("another beat (process %s) already runs on this schedule; this one does not start", holder)
        raise SystemExit(1) from None
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()))
    lock.flush()
    _beat_lock = lock
