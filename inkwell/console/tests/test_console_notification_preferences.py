"""Each person's own channels for the events addressed to them (#36), on a console screen beside
the notifications: the API's rules (``/notifications/preferences/``) and its services."""

import pytest

from inkwell.notifications.models import NotificationPreference, NotificationType
from inkwell.notifications.selectors import channels_for

pytestmark = pytest.mark.django_db

URL = "/app/notifications/preferences/"
MENTION = NotificationType.COMMENT_MENTION


def test_the_screen_shows_each_personal_event_with_its_channels_on_by_default(tenant, console_client):
    page = console_client(tenant.editor).get(URL).content.decode()

    assert "Mentioned in a comment" in page or NotificationType(MENTION).label in page
    assert f'name="{MENTION}-in_app"' in page and f'name="{MENTION}-email"' in page
    assert page.count("checked") >= 2


def test_a_person_turns_the_mention_email_off_and_only_their_own_choice_changes(tenant, console_client):
    response = console_client(tenant.viewer).post(URL, {f"{MENTION}-in_app": "on"})

    assert response.status_code == 302 and response["Location"].endswith(URL + "?saved=1")
    assert channels_for(user=tenant.viewer, notification_type=MENTION) == frozenset({"in_app"})
    assert channels_for(user=tenant.owner, notification_type=MENTION) == frozenset({"in_app", "email"})
    page = console_client(tenant.viewer).get(URL + "?saved=1").content.decode()
    assert "Saved" in page and f'name="{MENTION}-email" value="on">' in page


def test_every_channel_off_is_kept_and_turned_on_again(tenant, console_client):
    client = console_client(tenant.admin)

    client.post(URL, {})
    off = channels_for(user=tenant.admin, notification_type=MENTION)
    client.post(URL, {f"{MENTION}-in_app": "on", f"{MENTION}-email": "on"})

    assert off == frozenset()
    assert channels_for(user=tenant.admin, notification_type=MENTION) == frozenset({"in_app", "email"})
    assert NotificationPreference.objects.for_account(tenant.account).filter(user=tenant.admin).count() == 1


def test_the_notifications_page_leads_to_the_preferences(tenant, console_client):
    assert f'href="{URL}"' in console_client(tenant.owner).get("/app/notifications/").content.decode()
