"""Every notification the domains raise leads to its subject in the console."""

import inspect
from datetime import date

import pytest
from django.urls import resolve

from inkwell.notifications import events
from inkwell.notifications.models import Notification, NotificationType
from inkwell.notifications.services import Delivery

pytestmark = pytest.mark.django_db

SUBJECT_ID = 7

BUILDERS = [
    function
    for name, function in inspect.getmembers(events, inspect.isfunction)
    if function.__module__ == events.__name__ and not name.startswith("_") and inspect.signature(function).return_annotation in (Notification, Delivery)
]


def _arguments(function, tenant) -> dict:
    """Plausible facts for each parameter of a builder, by its name or its type."""
    by_name = {
        "account": tenant.account,
        "site": tenant.site,
        "site_id": tenant.site.pk,
        "user": tenant.editor,
        "review_by": date(2026, 12, 1),
        "event": NotificationType.AUTOMATION_RUN_COMPLETED,
        "severity": "success",
        "decision": "approved",
        "origin": "",
        "url": "https://a.example.com/tomatoes/",
        "percent": 10,
    }
    arguments = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if name in by_name:
            arguments[name] = by_name[name]
        elif name.endswith("_id") or parameter.annotation is int or "int" in str(parameter.annotation):
            arguments[name] = SUBJECT_ID
        else:
            arguments[name] = "Tomatoes on a balcony"
    return arguments


def test_every_public_function_but_the_address_helpers_is_a_checked_builder():
    public = {name for name, function in inspect.getmembers(events, inspect.isfunction) if function.__module__ == events.__name__ and not name.startswith("_")}
    assert public - {function.__name__ for function in BUILDERS} == {"site_page_url", "content_url", "comment_url"}


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda function: function.__name__)
def test_a_notification_leads_to_a_console_page_of_its_subject(builder, tenant):
    builder(**_arguments(builder, tenant))
    notification = Notification.objects.for_account(tenant.account).latest("id")
    if not notification.action_url:
        assert not notification.action_label, "a label with nowhere to go"
        return
    path = notification.action_url.split("#")[0].split("?")[0]
    match = resolve(path)
    assert match.namespace == "console", notification.action_url
    subject_ids = {value for name, value in match.kwargs.items() if name in ("pk", "site_id")}
    assert subject_ids <= {SUBJECT_ID, tenant.site.pk}, notification.action_url
