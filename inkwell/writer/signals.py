"""Signals the writer sends for other domains to act on without the writer importing them."""

from django.dispatch import Signal

# Sent inside the transaction that moves content into ``approved`` (keyword argument ``content``);
# publishing places it on the schedule when the site auto-publishes.
content_approved = Signal()
