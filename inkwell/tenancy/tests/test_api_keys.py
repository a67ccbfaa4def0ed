"""API keys: created by owners and admins, shown once, stored only as a
hash, used as ``Authorization: ApiKey <key>`` with the creator's role, limited to their site."""

import hashlib

import pytest
from django.forms.models import model_to_dict

from inkwell.api.tests import assert_error
from inkwell.tenancy.models import ApiKey, Role, Site, Subscription, User

KEYS = "/api/v1/auth/api-keys/"
ME = "/api/v1/auth/me/"
SITES = "/api/v1/auth/sites/"
ACCOUNT = "/api/v1/auth/account/"


def create_key(client, **fields) -> dict:
    response = client.post(KEYS, {"name": "CMS", **fields}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]


def with_key(client, key: str):
    client.credentials(HTTP_AUTHORIZATION=f"ApiKey {key}")
    return client


def second_site(tenant) -> Site:
    # Created directly: the free plan would refuse a second site through the API.
    return Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.account.pk}")


def stored_key(key_id: int) -> ApiKey:
    return ApiKey.dangerously_unscoped.get(pk=key_id)


# Creation


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_owner_and_admin_create_a_key_shown_in_the_response(tenant, as_user, role):
    data = create_key(as_user(tenant.user(role)), name="WordPress")

    assert set(data) == {"id", "name", "prefix", "key", "site_id", "created_at"}
    assert data["name"] == "WordPress"
    assert data["site_id"] is None
    assert data["key"].startswith(data["prefix"] + ".")
    key = stored_key(data["id"])
    assert key.account_id == tenant.account.pk
    assert key.user_id == tenant.user(role).pk


def test_key_is_stored_only_as_its_hash(tenant, as_user):
    data = create_key(as_user(tenant.owner))
    secret = data["key"].split(".", 1)[1]

    key = stored_key(data["id"])

    assert key.key_hash == hashlib.sha256(data["key"].encode()).hexdigest()
    for value in model_to_dict(key).values():
        assert data["key"] not in str(value)
        assert secret not in str(value)


def test_key_is_never_shown_again(tenant, as_user):
    client = as_user(tenant.owner)
    data = create_key(client)

    listing = client.get(KEYS)
    detail = client.get(f"{KEYS}{data['id']}/")

    assert listing.status_code == detail.status_code == 200
    assert [item["id"] for item in listing.json()["results"]] == [data["id"]]
    for response in (listing, detail):
        assert data["key"].split(".", 1)[1] not in response.content.decode()
        assert '"key"' not in response.content.decode()


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_editor_and_viewer_may_not_create_keys(tenant, as_user, role):
    response = as_user(tenant.user(role)).post(KEYS, {"name": "CMS"}, format="json")

    assert_error(response, 403, "permission_denied")
    assert not ApiKey.objects.for_account(tenant.account).exists()


def test_key_bound_to_another_accounts_site_is_refused(tenant, other_tenant, as_user):
    response = as_user(tenant.owner).post(KEYS, {"name": "CMS", "site_id": other_tenant.site.pk}, format="json")

    assert_error(response, 400, "validation_error", errors={"site_id": ["Site must belong to your account"]})


def test_key_name_is_required(tenant, as_user):
    assert_error(as_user(tenant.owner).post(KEYS, {}, format="json"), 400, "validation_error", errors={"name": ["This field is required"]})


# Authentication with a key


def test_key_authenticates_as_its_creator(tenant, api_client, as_user):
    data = create_key(as_user(tenant.admin))

    response = with_key(api_client, data["key"]).get(ME)

    assert response.status_code == 200
    assert response.json()["data"]["id"] == tenant.admin.pk
    assert response.json()["data"]["role"] == "admin"


def test_key_acts_with_the_creators_current_role(tenant, api_client, as_user):
    key = create_key(as_user(tenant.admin))["key"]
    client = with_key(api_client, key)
    assert client.put(ACCOUNT, {"name": "Renamed by key"}, format="json").status_code == 200

    User.dangerously_unscoped.filter(pk=tenant.admin.pk).update(role=Role.objects.get(name="viewer"))

    assert_error(client.put(ACCOUNT, {"name": "Renamed again"}, format="json"), 403, "permission_denied")
    tenant.account.refresh_from_db()
    assert tenant.account.name == "Renamed by key"


def test_site_bound_key_sees_only_its_site(tenant, api_client, as_user):
    other_site = second_site(tenant)
    key = create_key(as_user(tenant.owner), site_id=tenant.site.pk)["key"]
    client = with_key(api_client, key)

    listing = client.get(SITES)

    assert [site["id"] for site in listing.json()["results"]] == [tenant.site.pk]
    assert client.get(f"{SITES}{tenant.site.pk}/").status_code == 200
    assert_error(client.get(f"{SITES}{other_site.pk}/"), 404, "not_found")


def test_unbound_key_of_an_owner_sees_every_site(tenant, api_client, as_user):
    other_site = second_site(tenant)
    key = create_key(as_user(tenant.owner))["key"]

    listing = with_key(api_client, key).get(SITES)

    assert {site["id"] for site in listing.json()["results"]} == {tenant.site.pk, other_site.pk}


def test_key_never_reaches_another_account(tenant, other_tenant, api_client, as_user):
    key = create_key(as_user(tenant.owner))["key"]

    assert_error(with_key(api_client, key).get(f"{SITES}{other_tenant.site.pk}/"), 404, "not_found")


def test_deleted_key_answers_401(tenant, api_client, as_user):
    owner = as_user(tenant.owner)
    data = create_key(owner)
    assert owner.delete(f"{KEYS}{data['id']}/").status_code == 204
    assert not ApiKey.dangerously_unscoped.filter(pk=data["id"]).exists()

    assert_error(with_key(api_client, data["key"]).get(ME), 401, "invalid_token")


def test_key_with_a_wrong_secret_answers_401(tenant, api_client, as_user):
    data = create_key(as_user(tenant.owner))

    assert_error(with_key(api_client, f"{data['prefix']}.wrong-secret").get(ME), 401, "invalid_token")


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["ApiKey", "ApiKey ", "ApiKey not-a-key", "ApiKey iwk_aaaaaaaa.x y", "ApiKey iwk_unknown.secret"])
def test_malformed_key_answers_401(api_client, header):
    api_client.credentials(HTTP_AUTHORIZATION=header)

    assert_error(api_client.get(ME), 401, "invalid_token")


def test_key_of_a_deactivated_creator_answers_401(tenant, api_client, as_user):
    key = create_key(as_user(tenant.admin))["key"]
    User.dangerously_unscoped.filter(pk=tenant.admin.pk).update(is_active=False)

    assert_error(with_key(api_client, key).get(ME), 401, "invalid_token")


def test_key_of_an_account_with_an_inactive_plan_answers_plan_inactive(tenant, api_client, as_user):
    key = create_key(as_user(tenant.owner))["key"]
    Subscription.dangerously_unscoped.filter(account=tenant.account).update(status="cancelled")

    assert_error(with_key(api_client, key).get(SITES), 403, "plan_inactive")


def test_using_a_key_sets_last_used_at(tenant, api_client, as_user):
    data = create_key(as_user(tenant.owner))
    assert stored_key(data["id"]).last_used_at is None

    with_key(api_client, data["key"]).get(ME)

    last_used = stored_key(data["id"]).last_used_at
    assert last_used is not None
    assert last_used >= stored_key(data["id"]).created_at


def test_key_list_shows_last_used_at(tenant, api_client, as_user):
    owner = as_user(tenant.owner)
    data = create_key(owner)
    with_key(api_client, data["key"]).get(ME)

    listed = owner.get(KEYS).json()["results"][0]

    assert listed["last_used_at"] is not None


def test_keys_of_another_account_are_invisible(tenant, other_tenant, as_user):
    foreign = create_key(as_user(other_tenant.owner))

    client = as_user(tenant.owner)

    assert client.get(KEYS).json()["results"] == []
    assert_error(client.delete(f"{KEYS}{foreign['id']}/"), 404, "not_found")
    assert ApiKey.dangerously_unscoped.filter(pk=foreign["id"]).exists()
