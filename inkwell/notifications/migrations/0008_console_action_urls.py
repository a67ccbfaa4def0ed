"""Notifications stored before action URLs were console addresses lead to the console too: each
old path (API-shaped, such as ``/writer/content/7``) is rewritten to the console page of the same
subject; a path this list does not know is left as it was."""

import re

from django.db import migrations

OLD_PATHS = [
    (re.compile(r"^/writer/content/(?P<id>\d+)/?$"), "/app/content/{id}/"),
    (re.compile(r"^/planner/(?P<page>clusters|keywords|ideas)/\?site_id=(?P<site>\d+)(?:&sector_id=(?P<sector>\d+))?$"), "/app/sites/{site}/{page}/"),
    (re.compile(r"^/webhooks/(?P<id>\d+)/?$"), "/app/settings/webhooks/{id}/"),
    (re.compile(r"^/sites/(?P<id>\d+)/?$"), "/app/sites/{id}/library/"),
    (re.compile(r"^/billing/balance/?$"), "/app/credits/"),
    (re.compile(r"^/automation/runs/(?P<id>\d+)/?$"), "/app/automation/runs/{id}/"),
]
INTEGRATION = re.compile(r"^/integration/\d+/?$")


def console_action_url(old: str, site_id: int | None) -> str:
    """The console address of what ``old`` pointed at."""
    for pattern, new in OLD_PATHS:
        match = pattern.match(old)
        if match:
            parts = match.groupdict()
            url = new.format(**parts)
            return url + f"?sector_id={parts['sector']}" if parts.get("sector") else url
    if INTEGRATION.match(old):
        return f"/app/sites/{site_id}/cms/" if site_id else ""
    return old


def rewrite_action_urls(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    stored = Notification._default_manager.exclude(action_url="").exclude(action_url__startswith="/app/")
    for notification in stored.only("pk", "action_url", "site_id").iterator():
        new = console_action_url(notification.action_url, notification.site_id)
        if new != notification.action_url:
            Notification._default_manager.filter(pk=notification.pk).update(action_url=new)


class Migration(migrations.Migration):
    dependencies = [("notifications", "0007_event_types_of_review_and_webhooks")]

    operations = [migrations.RunPython(rewrite_action_urls, migrations.RunPython.noop)]
