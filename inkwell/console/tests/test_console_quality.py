"""The editor's quality report (issue 35): each finding marked in the text, listed with its fix."""

import re

import pytest
from django.urls import reverse

from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

INVENTED = (
    "<p>Growing tomatoes for beginners starts with a sunny spot. Last spring our editor grew twelve varieties on a small "
    "balcony; here is what worked. You will find plenty of conflicting advice about tomatoes, so this guide sorts the "
    "useful from the noise. You will find plenty of conflicting advice about tomatoes, so this guide sorts the useful "
    "from the noise.</p><h2>Growing tomatoes in pots</h2><p>Water the soil, not the leaves.</p>"
)


def test_the_editor_marks_each_finding_in_the_text_and_lists_its_fix(console_client, tenant):
    content = make_content(tenant, html=INVENTED, focus_keyword="growing tomatoes", meta_title="Growing tomatoes", meta_description="Growing tomatoes made simple.")

    page = console_client(tenant.owner).get(reverse("console:content", kwargs={"pk": content.pk})).content.decode()

    marks = re.findall(r'<mark class="quality-mark" id="finding-(\d+)" data-kind="(\w+)"[^>]*>(.*?)<span', page)
    assert [(kind, text[:28]) for _number, kind, text in marks] == [
        ("unsupported_claim", "Last spring our editor grew "),
        ("repetition", "You will find plenty of confl"[:28]),
    ]
    for number, _kind, _text in marks:
        assert f'href="#finding-{number}"' in page
    assert "Does not pass" in page and "Fix: Link a source for it, add the source to the brief, or remove the claim." in page
    assert "<script" not in page.split('<section class="card quality-text"')[1]
