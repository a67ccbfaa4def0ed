"""Template helpers of the console's form pages (settings, team)."""

from django import template

register = template.Library()


@register.simple_tag
def errors_at(errors: dict, *path) -> list:
    """The messages the API gave for one entry of a list field: ``errors_at errors "publish_time_slots" 0 "end"``
    reads ``publish_time_slots.0.end``."""
    return (errors or {}).get(".".join(str(part) for part in path), [])


@register.filter
def get_item(mapping: dict, key):
    return (mapping or {}).get(key)
