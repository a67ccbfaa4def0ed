"""One rule for time: the console shows every time in the zone of the site in view, names the zone,
and gives the UTC time on hover."""

import re
from datetime import UTC, datetime

import pytest
from django.template import Context, Template

from inkwell.writer.models import Content

pytestmark = pytest.mark.django_db

MOMENT = datetime(2026, 11, 27, 19, 26, tzinfo=UTC)


def _render(source: str, **context) -> str:
    return Template("{% load console %}" + source).render(Context(context))


def test_a_time_is_shown_in_the_display_zone_with_the_zone_named_and_utc_on_hover():
    html = _render('{% when moment "j M Y, H:i" %}', moment=MOMENT, display_zone=lambda: "Europe/Paris")
    assert html == '<time datetime="2026-11-27T19:26:00Z" title="27 Nov 2026, 19:26:00 UTC">27 Nov 2026, 20:26 CET</time>'


def test_no_time_shows_what_the_template_says_instead():
    assert _render('{% when moment empty="never" %}', moment=None) == "never"


def test_without_a_display_zone_a_time_is_utc_and_says_so():
    assert ">27 Nov 2026, 19:26 UTC</time>" in _render("{% when moment %}", moment=MOMENT)


def test_the_content_list_shows_changes_in_the_sites_zone(console_client, tenant):
    tenant.site.time_zone = "America/New_York"
    tenant.site.save(update_fields=["time_zone"])
    content = Content.objects.create(account=tenant.account, site=tenant.site, title="Tomatoes", html="<p>Sun.</p>")
    Content.objects.for_account(tenant.account).filter(pk=content.pk).update(updated_at=MOMENT)

    page = console_client(tenant.owner).get(f"/app/sites/{tenant.site.pk}/content/").content.decode()

    assert re.search(r'<time datetime="2026-11-27T19:26:00Z" title="27 Nov 2026, 19:26:00 UTC">Nov 27, 14:26 EST</time>', page)
