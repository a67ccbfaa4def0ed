"""Celery glue of publishing: the scheduler's sweep (beat, every PUBLISH_SWEEP_SECONDS) fans due
content out as one task each; each task's claim makes a duplicate delivery harmless."""

from celery import shared_task

from inkwell.publishing import definition, services


@shared_task(name="inkwell.publishing.publish_due", ignore_result=True)
def publish_due() -> int:
    services.recover_stalled()
    due = services.due_content_ids()
    for content_id in due:
        publish_scheduled.delay(content_id)
    refreshes = services.due_refresh_ids()
    for refresh_id in refreshes:
        send_scheduled_refresh.delay(refresh_id)
    return len(due) + len(refreshes)


@shared_task(name="inkwell.publishing.publish_scheduled", ignore_result=True)
def publish_scheduled(content_id: int) -> None:
    services.publish_scheduled(content_id=content_id)


@shared_task(name="inkwell.publishing.deploy_changed_sites", ignore_result=True)
def deploy_changed_sites() -> int:
    return definition.deploy_changed_sites()


@shared_task(name="inkwell.publishing.send_scheduled_refresh", ignore_result=True)
def send_scheduled_refresh(refresh_id: int) -> None:
    services.send_scheduled_refresh(refresh_id=refresh_id)
