"""Single-row writes (admin edits, the shell) refresh the totals of the sectors they touch.

Bulk imports bypass signals and call ``refresh_library_stats`` themselves, once per import.
"""

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.stats import refresh_library_stats


@receiver(pre_save, sender=SeedKeyword)
def _remember_previous_sector(sender, instance: SeedKeyword, **kwargs):
    instance._previous_sector_id = (
        SeedKeyword.objects.filter(pk=instance.pk).values_list("industry_sector_id", flat=True).first() if instance.pk else None
    )


@receiver(post_save, sender=SeedKeyword)
@receiver(post_delete, sender=SeedKeyword)
def _refresh_totals(sender, instance: SeedKeyword, **kwargs):
    sector_ids = {instance.industry_sector_id, getattr(instance, "_previous_sector_id", None)} - {None}
    transaction.on_commit(lambda: refresh_library_stats(sector_ids))
