"""Cached principals (``inkwell.tenancy.principal``) are forgotten when a row they hold changes;
``account_opened`` tells the domains above tenancy that a new account exists."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import Signal, receiver

from inkwell.tenancy import principal
from inkwell.tenancy.models import Account, Plan, Role, Subscription, User

# Sent by ``account_register`` inside its transaction, with ``account`` and ``signup_credits``:
# billing opens the account's ledger (a receiver that fails undoes the sign-up).
account_opened = Signal()


@receiver([post_save, post_delete], sender=User, dispatch_uid="principal_user_changed")
def user_changed(sender, instance: User, **kwargs) -> None:
    principal.forget([instance.pk])


@receiver([post_save, post_delete], sender=Account, dispatch_uid="principal_account_changed")
def account_changed(sender, instance: Account, **kwargs) -> None:
    principal.forget(User.dangerously_unscoped.filter(account_id=instance.pk).values_list("pk", flat=True))


@receiver([post_save, post_delete], sender=Subscription, dispatch_uid="principal_subscription_changed")
def subscription_changed(sender, instance: Subscription, **kwargs) -> None:
    principal.forget(User.dangerously_unscoped.filter(account_id=instance.account_id).values_list("pk", flat=True))


@receiver([post_save, post_delete], sender=Plan, dispatch_uid="principal_plan_changed")
def plan_changed(sender, instance: Plan, **kwargs) -> None:
    principal.forget(User.dangerously_unscoped.filter(account__subscription__plan_id=instance.pk).values_list("pk", flat=True))


@receiver([post_save, post_delete], sender=Role, dispatch_uid="principal_role_changed")
def role_changed(sender, instance: Role, **kwargs) -> None:
    principal.forget(User.dangerously_unscoped.filter(role_id=instance.pk).values_list("pk", flat=True))

# Sent by ``site_create`` inside its transaction (keyword argument ``site``): a site made through
# the API or the console. The writer gives it its editorial rules (a brief before each draft).
site_created = Signal()
