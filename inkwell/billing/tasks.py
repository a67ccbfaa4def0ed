from celery import shared_task

from inkwell.billing import services


@shared_task(name="inkwell.billing.renew_monthly_credits", ignore_result=True)
def renew_monthly_credits() -> int:
    return services.renew_monthly_credits()
