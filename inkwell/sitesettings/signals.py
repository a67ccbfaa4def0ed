"""The site settings' receivers of other domains' signals."""

from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.selectors import next_scheduled_run
from inkwell.tenancy.models import Site


@receiver(post_save, sender=Site, dispatch_uid="sitesettings.follow_time_zone")
def follow_time_zone(sender, instance: Site, created: bool, **kwargs) -> None:
    """A site saved with another time zone runs its automation at the same local time in the new
    one. A run that is already due is left to the dispatcher, which computes the one after it in
    the new zone; for a site whose zone did not change, the next run after now is the stored one,
    so saving it changes nothing."""
    if created:
        return
    now = timezone.now()
    row = SiteSettings.objects.for_account(instance.account_id).filter(site=instance, next_run_at__gt=now).first()
    if row is None:
        return
    next_run_at = next_scheduled_run(row=row, site=instance, after=now)
    if next_run_at != row.next_run_at:
        SiteSettings.objects.for_account(instance.account_id).filter(pk=row.pk, next_run_at=row.next_run_at).update(next_run_at=next_run_at)
