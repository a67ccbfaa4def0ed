"""Single-row writes (admin edits, the shell) refresh the totals of the sectors they touch.

Refreshes are coalesced: every save or delete adds its sectors to a pending set, and the first
commit callback rebuilds them all once, so deleting thousands of keywords in one transaction
costs one rebuild per sector, not one per keyword. Ids left pending by a rolled-back transaction
are rebuilt with the next commit; a rebuild is exact, so an extra one is harmless. Bulk imports
bypass signals and call ``refresh_library_stats`` themselves, once per import.
"""

import threading

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.stats import refresh_library_stats

_pending = threading.local()


def _refresh_pending() -> None:
    sector_ids, _pending.sector_ids = getattr(_pending, "sector_ids", set()), set()
    if sector_ids:
        refresh_library_stats(sector_ids)


@receiver(pre_save, sender=SeedKeyword)
def _remember_previous_sector(sender, instance: SeedKeyword, **kwargs):
    instance._previous_sector_id = (
        SeedKeyword.objects.filter(pk=instance.pk).values_list("industry_sector_id", flat=True).first() if instance.pk else None
    )


@receiver(post_save, sender=SeedKeyword)
@receiver(post_delete, sender=SeedKeyword)
def _refresh_totals(sender, instance: SeedKeyword, **kwargs):
    sector_ids = {instance.industry_sector_id, getattr(instance, "_previous_sector_id", None)} - {None}
    if not hasattr(_pending, "sector_ids"):
        _pending.sector_ids = set()
    _pending.sector_ids |= sector_ids
    transaction.on_commit(_refresh_pending)
