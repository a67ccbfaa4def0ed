"""Signals the writer sends for other domains to act on without the writer importing them, and
the writer's receivers of the planner's signals."""

from django.dispatch import Signal, receiver

from inkwell.planner.models import ContentIdea
from inkwell.planner.overlaps import Piece, site_pieces_wanted
from inkwell.writer.overlaps import site_writer_pieces

# Sent inside the transaction that moves content into ``approved`` (keyword argument ``content``);
# publishing places it on the schedule when the site auto-publishes.
content_approved = Signal()


@receiver(site_pieces_wanted, sender=ContentIdea, dispatch_uid="writer.site_pieces")
def answer_site_pieces(sender, account, site_id: int, **kwargs) -> list[Piece]:
    """The site's tasks and contents, for the cannibalization guard."""
    return site_writer_pieces(account=account, site_id=site_id)
