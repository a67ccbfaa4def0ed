"""Billing's receivers of other domains' signals."""

from django.dispatch import receiver

from inkwell.billing import services
from inkwell.billing.models import CreditReservation, ReservationStatus
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.signals import job_finished
from inkwell.tenancy.models import Account
from inkwell.tenancy.signals import account_opened


@receiver(account_opened, sender=Account, dispatch_uid="billing.open_ledger_at_sign_up")
def open_ledger_at_sign_up(sender, account: Account, signup_credits: int, **kwargs) -> None:
    """Every new account has a ledger from its first moment, holding its sign-up credits."""
    services.open_ledger(account=account, initial_credits=signup_credits)


@receiver(job_finished, dispatch_uid="billing.close_job_reservations")
def close_job_reservations(sender, job: Job, **kwargs) -> None:
    """A job's held credits are charged when it succeeds and freed when it fails or is cancelled."""
    for reservation in CreditReservation.objects.for_account(job.account).filter(job=job, status=ReservationStatus.HELD):
        if job.status == JobStatus.SUCCEEDED:
            services.settle(reservation=reservation)
        else:
            services.release(reservation=reservation)
