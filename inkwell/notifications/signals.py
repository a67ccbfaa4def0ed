"""Kept unread counts (``selectors.unread_count``) are forgotten when a cascade deletes notifications."""

from django.db.models.signals import post_delete
from django.dispatch import receiver

from inkwell.notifications import services
from inkwell.tenancy.models import Site


@receiver(post_delete, sender=Site, dispatch_uid="notifications_site_deleted")
def site_deleted(sender, instance: Site, **kwargs) -> None:
    # The site's notifications went with it, unread ones included.
    services.forget_unread_counts(account_ids=[instance.account_id])
