"""Celery glue of search performance: the daily review reminder (beat)."""

from celery import shared_task

from inkwell.performance import services


@shared_task(name="inkwell.performance.remind_due_reviews", ignore_result=True)
def remind_due_reviews() -> int:
    return services.remind_due_reviews()
