"""Billing's receivers of other domains' signals."""

from django.dispatch import receiver

from inkwell.billing.services import open_ledger
from inkwell.tenancy.models import Account
from inkwell.tenancy.signals import account_opened


@receiver(account_opened, sender=Account, dispatch_uid="billing.open_ledger_at_sign_up")
def open_ledger_at_sign_up(sender, account: Account, signup_credits: int, **kwargs) -> None:
    """Every new account has a ledger from its first moment, holding its sign-up credits."""
    open_ledger(account=account, initial_credits=signup_credits)
