"""One scheduler pass in this process, without a worker: ``manage.py publish_due``.

The beat schedule does the same through Celery; this command is for cron-style deployments and
for checking that several schedulers running at once still publish each content once."""

from django.core.management.base import BaseCommand

from inkwell.publishing.services import publish_due


class Command(BaseCommand):
    help = "Publishes the scheduled content that is due, exactly once even beside other schedulers."

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=1000, help="At most this many contents in this pass.")

    def handle(self, *args, limit: int, **options):
        handled = publish_due(limit=limit)
        self.stdout.write(f"{handled} due content handled")
