"""A refresh's review in the console (#37 with #36's roles): a reviewer approves a refresh in
review or sends it back, as they do an article, and does nothing else with it."""

import pytest

from inkwell.tenancy.models import Role, RoleName, SiteUserAccess, User
from inkwell.writer.models import ContentRefresh, ContentStatus
from inkwell.writer.tests.factories import make_refresh

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer(tenant):
    user = User.dangerously_unscoped.create_user("reviewer-a@example.com", "correct-horse-1", account=tenant.account, role=Role.objects.get(name=RoleName.REVIEWER))
    SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return user


def _status(tenant, refresh):
    return ContentRefresh.objects.for_account(tenant.account).get(pk=refresh.pk).status


def test_a_reviewer_approves_a_refresh_in_review_from_its_page(tenant, console_client, reviewer):
    refresh = make_refresh(tenant, status=ContentStatus.REVIEW)
    client = console_client(reviewer)

    page = client.get(f"/app/refreshes/{refresh.pk}/").content.decode()
    response = client.post(f"/app/refreshes/{refresh.pk}/status/", {"status": "approved"})

    assert f'action="/app/refreshes/{refresh.pk}/status/"' in page and 'name="title"' not in page
    assert response.status_code == 302 and _status(tenant, refresh) == ContentStatus.APPROVED


def test_a_reviewer_sends_a_refresh_back_to_draft(tenant, console_client, reviewer):
    refresh = make_refresh(tenant, status=ContentStatus.REVIEW)

    console_client(reviewer).post(f"/app/refreshes/{refresh.pk}/status/", {"status": "draft"})

    assert _status(tenant, refresh) == ContentStatus.DRAFT


def test_a_reviewer_may_not_send_a_draft_refresh_to_review_nor_change_its_text(tenant, console_client, reviewer):
    refresh = make_refresh(tenant, status=ContentStatus.DRAFT)
    client = console_client(reviewer)

    page = client.get(f"/app/refreshes/{refresh.pk}/").content.decode()
    moved = client.post(f"/app/refreshes/{refresh.pk}/status/", {"status": "review"})
    edited = client.post(f"/app/refreshes/{refresh.pk}/", {"title": "Not theirs to write"})

    assert f'action="/app/refreshes/{refresh.pk}/status/"' not in page
    assert (moved.status_code, edited.status_code) == (403, 403)
    assert _status(tenant, refresh) == ContentStatus.DRAFT


def test_a_viewer_may_not_approve_a_refresh(tenant, granted, console_client):
    refresh = make_refresh(tenant, status=ContentStatus.REVIEW)

    assert console_client(tenant.viewer).post(f"/app/refreshes/{refresh.pk}/status/", {"status": "approved"}).status_code == 403
    assert _status(tenant, refresh) == ContentStatus.REVIEW
