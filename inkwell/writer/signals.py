"""Signals the writer sends for other domains to act on without the writer importing them, and
the writer's receivers of the planner's signals."""

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import Signal, receiver

from inkwell.planner.models import ContentIdea
from inkwell.planner.overlaps import Piece, site_pieces_wanted
from inkwell.writer.models import Image
from inkwell.writer.overlaps import site_writer_pieces

# Sent inside the transaction that moves content into ``approved`` (keyword argument ``content``);
# publishing places it on the schedule when the site auto-publishes.
content_approved = Signal()


@receiver(site_pieces_wanted, sender=ContentIdea, dispatch_uid="writer.site_pieces")
def answer_site_pieces(sender, account, site_id: int, **kwargs) -> list[Piece]:
    """The site's tasks and contents, for the cannibalization guard."""
    return site_writer_pieces(account=account, site_id=site_id)


# Image files


@receiver(post_delete, sender=Image, dispatch_uid="writer.images.delete_file")
def _delete_file_with_image(sender, instance: Image, **kwargs) -> None:
    """A deleted image (itself, or with its content, site or account) leaves no file behind."""
    if instance.file.name:
        name, storage = instance.file.name, instance.file.storage
        transaction.on_commit(lambda: storage.delete(name))
