"""Times of the publishing calendar, in the zone the value carries.

Django's ``T`` format leaves the zone out of a time the clocks repeat (01:30 on a fall-back night
happens twice); the calendar must tell the two apart, so it formats with Python's own ``%Z``,
which reads the value's ``fold``.
"""

from datetime import date, datetime

from django import template
from django.utils.html import format_html

register = template.Library()


@register.filter
def wall(value: date | datetime, pattern: str) -> str:
    """The value as the wall clock of its own zone shows it, by a ``strftime`` pattern:
    ``"%H:%M %Z"`` is 09:00 CET, and 01:30 EDT and 01:30 EST on the night New York falls back."""
    return value.strftime(pattern)


@register.simple_tag
def slot_chip(slot, *, day_label: str, here: str, may_write: bool, at_limit: bool, now: datetime) -> str:
    """One publishing slot of a day: a link that picks it when it is free and the reader may
    schedule, else its state. Formatted here rather than in the template: a month shows a hundred."""
    start = slot.local_start.strftime("%H:%M")
    if slot.free and may_write:
        return format_html(
            '<a class="cal-slot cal-slot--free" href="?{}&amp;at={}#schedule" aria-label="Free slot {} {}: schedule here">{} free</a>',
            here, slot.local_start.strftime("%Y-%m-%dT%H:%M"), day_label, start, start,
        )
    if slot.free:
        return format_html('<span class="cal-slot cal-slot--free">{} free</span>', start)
    state = "limit reached" if at_limit else "past" if slot.starts < now else "taken"
    return format_html('<span class="cal-slot">{} {}</span>', start, state)
