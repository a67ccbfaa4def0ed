"""Times of the publishing calendar, in the zone the value carries.

Django's ``T`` format leaves the zone out of a time the clocks repeat (01:30 on a fall-back night
happens twice); the calendar must tell the two apart, so it formats with Python's own ``%Z``,
which reads the value's ``fold``.
"""

from datetime import datetime

from django import template

register = template.Library()


@register.filter
def clock(value: datetime) -> str:
    """09:00 CET; 01:30 EDT and 01:30 EST on the night New York falls back."""
    return value.strftime("%H:%M %Z")


@register.filter
def clock_day(value: datetime) -> str:
    """Mon 2 Nov 09:00 EST."""
    return f"{value:%a} {value.day} {value:%b %H:%M %Z}"


@register.filter
def hhmm(value: datetime) -> str:
    """09:00, as the wall clock of the value's zone shows it."""
    return value.strftime("%H:%M")


@register.filter
def local_input(value: datetime) -> str:
    """2026-11-02T09:00: the value of a datetime-local field."""
    return value.strftime("%Y-%m-%dT%H:%M")
