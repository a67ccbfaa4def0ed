"""The team screens through the console's pages: the tenancy services and their role rules, and
API keys shown once."""

import re

import pytest
from rest_framework.test import APIClient

from inkwell.tenancy import services
from inkwell.tenancy.models import ApiKey, Plan, RoleName, Site, SiteUserAccess, Subscription, User

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def _person(**changes) -> dict:
    return {"form": "person", "email": "new-writer@example.com", "password": "a long password", "role": "editor", **changes}


@pytest.fixture
def roomy(tenant):
    """The tenant on the scale plan, so that the plan's user limit stays out of the way."""
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug="scale"))
    return tenant


def test_an_admin_adds_an_editor_with_the_sites_they_work_on(console_client, roomy):
    response = console_client(roomy.admin).post("/app/team/", _person(first_name="Ada", site_ids=[roomy.site.pk]))
    added = User.objects.for_account(roomy.account).get(email="new-writer@example.com")
    assert response.headers["Location"] == f"/app/team/users/{added.pk}/?added=1"
    assert (added.role_name, added.first_name, added.check_password("a long password")) == ("editor", "Ada", True)
    assert list(SiteUserAccess.objects.for_account(roomy.account).filter(user=added).values_list("site_id", flat=True)) == [roomy.site.pk]


def test_adding_shows_the_apis_messages_beside_the_fields_and_never_the_password(console_client, roomy):
    client = console_client(roomy.owner)
    taken = client.post("/app/team/", _person(email=roomy.editor.email))
    assert taken.status_code == 409
    field = re.search(r'<label for="id_email">.*?</div>', _text(taken)).group(0)
    assert "User with this email already exists" in field
    assert "a long password" not in taken.content.decode()
    short = client.post("/app/team/", _person(password="short"))
    assert short.status_code == 400 and "Password must be at least 8 characters" in _text(short)
    assert not User.objects.for_account(roomy.account).filter(email="new-writer@example.com").exists()


def test_the_plans_user_limit_is_shown_on_the_form(console_client, tenant):
    response = console_client(tenant.owner).post("/app/team/", _person())
    assert response.status_code == 403
    assert "Your plan allows at most" in _text(response)


def test_an_admin_may_not_make_an_owner_nor_is_it_offered(console_client, roomy):
    client = console_client(roomy.admin)
    assert 'value="owner"' not in client.get("/app/team/").content.decode()
    assert client.post("/app/team/", _person(role="owner")).status_code == 403
    assert client.post(f"/app/team/users/{roomy.editor.pk}/", {"form": "role", "role": "owner"}).status_code == 403
    roomy.editor.refresh_from_db()
    assert roomy.editor.role_name == "editor"


def test_an_admin_does_not_change_an_owner(console_client, roomy):
    client = console_client(roomy.admin)
    page = client.get(f"/app/team/users/{roomy.owner.pk}/").content.decode()
    assert 'name="form" value="role"' not in page
    assert client.post(f"/app/team/users/{roomy.owner.pk}/", {"form": "active", "is_active": "false"}).status_code == 403
    roomy.owner.refresh_from_db()
    assert roomy.owner.is_active


def test_the_last_owner_keeps_the_role_with_the_apis_message(console_client, roomy):
    response = console_client(roomy.owner).post(f"/app/team/users/{roomy.owner.pk}/", {"form": "role", "role": "admin"})
    assert response.status_code == 409
    assert "An account needs at least one owner" in _text(response)
    roomy.owner.refresh_from_db()
    assert roomy.owner.role_name == "owner"


def test_an_owner_changes_a_role(console_client, roomy):
    response = console_client(roomy.owner).post(f"/app/team/users/{roomy.viewer.pk}/", {"form": "role", "role": "editor"})
    assert response.headers["Location"].endswith("?saved=role")
    roomy.viewer.refresh_from_db()
    assert roomy.viewer.role_name == "editor"


def test_deactivating_signs_a_person_out_of_the_console_and_reactivating_lets_them_back(console_client, roomy):
    SiteUserAccess.objects.create(account=roomy.account, user=roomy.editor, site=roomy.site)
    editor = console_client(roomy.editor)
    assert editor.get(f"/app/sites/{roomy.site.pk}/keywords/").status_code == 200
    url = f"/app/team/users/{roomy.editor.pk}/"
    console_client(roomy.admin).post(url, {"form": "active", "is_active": "false"})
    roomy.editor.refresh_from_db()
    assert not roomy.editor.is_active
    assert editor.get(f"/app/sites/{roomy.site.pk}/keywords/").status_code == 302  # back to sign-in
    console_client(roomy.admin).post(url, {"form": "active", "is_active": "true"})
    roomy.editor.refresh_from_db()
    assert roomy.editor.is_active


def test_nobody_deactivates_themselves(console_client, roomy):
    client = console_client(roomy.admin)
    assert 'value="active"' not in client.get(f"/app/team/users/{roomy.admin.pk}/").content.decode()
    response = client.post(f"/app/team/users/{roomy.admin.pk}/", {"form": "active", "is_active": "false"})
    assert response.status_code == 409 and "This user cannot be deactivated" in _text(response)


def test_site_access_is_granted_and_taken_back(console_client, roomy):
    other = Site.objects.create(account=roomy.account, name="Other", domain="other.example.com", slug=f"other-{roomy.site.slug}")
    client = console_client(roomy.owner)
    url = f"/app/team/users/{roomy.viewer.pk}/"
    client.post(url, {"form": "sites", "site_ids": [roomy.site.pk, other.pk]})
    granted = SiteUserAccess.objects.for_account(roomy.account).filter(user=roomy.viewer)
    assert sorted(granted.values_list("site_id", flat=True)) == sorted([roomy.site.pk, other.pk])
    client.post(url, {"form": "sites"})
    assert not granted.exists()


def test_a_site_of_another_account_is_not_granted(console_client, roomy, other_tenant):
    response = console_client(roomy.owner).post(f"/app/team/users/{roomy.viewer.pk}/", {"form": "sites", "site_ids": [other_tenant.site.pk]})
    assert response.status_code == 400
    assert not SiteUserAccess.objects.for_account(roomy.account).filter(user=roomy.viewer).exists()


def test_a_person_is_removed_but_not_oneself(console_client, roomy):
    client = console_client(roomy.admin)
    assert client.post(f"/app/team/users/{roomy.viewer.pk}/", {"form": "delete"}).headers["Location"] == "/app/team/?removed=1"
    assert not User.objects.for_account(roomy.account).filter(pk=roomy.viewer.pk).exists()
    assert client.post(f"/app/team/users/{roomy.admin.pk}/", {"form": "delete"}).status_code == 409


def test_every_role_sees_the_team_but_only_owners_and_admins_change_it(console_client, roomy):
    for role in ("editor", "viewer"):
        client = console_client(roomy.user(role))
        page = client.get("/app/team/").content.decode()
        assert roomy.owner.email in page and 'action="/app/team/"' not in page
        assert client.post("/app/team/", _person(email=f"by-{role}@example.com")).status_code == 403
        assert client.post(f"/app/team/users/{roomy.viewer.pk}/", {"form": "role", "role": "admin"}).status_code == 403
    assert not User.objects.for_account(roomy.account).filter(email__startswith="by-").exists()
    roomy.viewer.refresh_from_db()
    assert roomy.viewer.role_name == "viewer"


# API keys.


def test_a_new_api_key_is_shown_once_works_and_stops_working_when_revoked(console_client, roomy):
    client = console_client(roomy.admin)
    created = client.post("/app/team/api-keys/", {"form": "key", "name": "Zapier", "site_id": ""})
    assert created.status_code == 201 and created["Cache-Control"] == "no-store"
    raw_key = re.search(r'id="new-key" class="new-key__value" readonly value="([^"]+)"', created.content.decode()).group(1)
    key = ApiKey.objects.for_account(roomy.account).get(name="Zapier")
    assert raw_key.startswith(key.prefix + ".")
    listing = client.get("/app/team/api-keys/").content.decode()
    assert key.prefix in listing and raw_key not in listing
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"ApiKey {raw_key}")
    assert api.get("/api/v1/auth/me/").status_code == 200
    assert client.post(f"/app/team/api-keys/{key.pk}/revoke/").headers["Location"] == "/app/team/api-keys/?revoked=1"
    assert api.get("/api/v1/auth/me/").status_code == 401


def test_a_key_bound_to_a_site_says_so(console_client, roomy):
    client = console_client(roomy.owner)
    client.post("/app/team/api-keys/", {"form": "key", "name": "Site bot", "site_id": str(roomy.site.pk)})
    key = ApiKey.objects.for_account(roomy.account).get(name="Site bot")
    assert key.site_id == roomy.site.pk
    row = re.search(r"<td>Site bot</td>.*?</tr>", _text(client.get("/app/team/api-keys/"))).group(0)
    assert roomy.site.name in row


def test_a_key_without_a_name_is_refused_beside_the_field(console_client, roomy):
    response = console_client(roomy.owner).post("/app/team/api-keys/", {"form": "key", "name": "", "site_id": ""})
    assert response.status_code == 400
    assert "This field is required" in re.search(r'<label for="id_name">.*?</div>', _text(response)).group(0)
    assert not ApiKey.objects.for_account(roomy.account).exists()


@pytest.mark.parametrize("role", [RoleName.EDITOR, RoleName.VIEWER])
def test_only_owners_and_admins_see_and_manage_api_keys(console_client, roomy, role):
    key, raw_key = services.api_key_create(account=roomy.account, user=roomy.owner, name="Owner's key")
    client = console_client(roomy.user(role))
    page = client.get("/app/team/api-keys/").content.decode()
    assert "Only owners and admins see and manage API keys" in page and key.prefix not in page
    assert client.post("/app/team/api-keys/", {"form": "key", "name": "Mine"}).status_code == 403
    assert client.post(f"/app/team/api-keys/{key.pk}/revoke/").status_code == 403
    assert list(ApiKey.objects.for_account(roomy.account).values_list("name", flat=True)) == ["Owner's key"]
