"""The cached principal (inkwell.tenancy.principal): served without a query, and forgotten on every
change that matters, so that no request is ever answered with the user, account, plan or role as
they were before a change."""

import json

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from inkwell.tenancy import principal, tokens
from inkwell.tenancy.models import Plan, Role, RoleName, Subscription, SubscriptionStatus, User
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.test import APIClient

ME = "/api/v1/auth/me/"
ACCOUNT = "/api/v1/auth/account/"


@pytest.fixture(autouse=True)
def principal_cache_on(settings):
    """On, as in the production profile, whichever profile the tests run on."""
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300


def bearer_client(user: User, *, access: str | None = None) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {access or tokens.issue_access_token(user).token}")
    return client


def owner_changes(tenant, user: User, **fields) -> None:
    """The owner changes ``user`` through the API (``PATCH /auth/users/{id}/``)."""
    response = bearer_client(tenant.owner).patch(f"/api/v1/auth/users/{user.pk}/", fields, format="json")
    assert response.status_code == 200


def me(client) -> dict:
    response = client.get(ME)
    assert response.status_code == 200, response.content
    return response.json()["data"]


def cached(user: User) -> bool:
    return cache.get(principal.cache_key(user.pk)) is not None


def test_a_cached_principal_authenticates_without_a_query_of_its_rows(tenant):
    payload = tokens.decode(tokens.issue_access_token(tenant.owner).token, tokens.ACCESS)
    tokens.user_for_payload(payload)  # the first request reads the database and caches
    plan_slug = Subscription.objects.for_account(tenant.account).get().plan.slug

    with CaptureQueriesContext(connection) as queries:
        user = tokens.user_for_payload(payload)
        # Everything a permission check or /auth/me reads is there, loaded.
        assert (user.role_name, user.account.name, user.account.subscription.plan.slug) == ("owner", tenant.account.name, plan_slug)
        assert user.account.subscription.is_active

    # On the embedded profile the cache is itself a table; no query reads the principal's rows.
    assert [query["sql"] for query in queries if "tenancy_" in query["sql"]] == []
    assert user.pk == tenant.owner.pk and user.email == tenant.owner.email


def test_the_principal_answers_me_exactly_as_the_database_does(tenant):
    client = bearer_client(tenant.editor)
    from_database = me(client)
    assert cached(tenant.editor)

    assert me(client) == from_database


def test_logout_everywhere_refuses_the_old_token_at_once(tenant):
    client = bearer_client(tenant.owner)
    me(client)

    assert client.post("/api/v1/auth/logout/", {}, format="json").status_code == 200

    assert client.get(ME).status_code == 401
    assert User.dangerously_unscoped.get(pk=tenant.owner.pk).token_version == 1


def test_a_password_change_refuses_the_old_token_at_once(tenant):
    client = bearer_client(tenant.owner)
    me(client)

    response = client.post("/api/v1/auth/password/change/", {"old_password": "correct-horse-1", "new_password": "another-horse-2"}, format="json")
    assert response.status_code == 200

    assert client.get(ME).status_code == 401
    assert bearer_client(tenant.owner, access=response.json()["data"]["access"]).get(ME).status_code == 200


def test_a_role_change_shows_on_the_next_request(tenant):
    editor = bearer_client(tenant.editor)
    assert me(editor)["role"] == "editor"
    # Renaming the account is for owners and admins.
    assert editor.patch(ACCOUNT, {"name": "By the editor"}, format="json").status_code == 403

    owner_changes(tenant, tenant.editor, role="admin")

    assert me(editor)["role"] == "admin"
    assert editor.patch(ACCOUNT, {"name": "By the new admin"}, format="json").status_code == 200


def test_deactivation_refuses_the_users_token_at_once(tenant):
    viewer = bearer_client(tenant.viewer)
    me(viewer)

    owner_changes(tenant, tenant.viewer, is_active=False)

    assert viewer.get(ME).status_code == 401
    assert not cached(tenant.viewer)


def test_a_deactivation_by_save_alone_is_seen_even_with_the_same_token_version(tenant):
    viewer = bearer_client(tenant.viewer)
    me(viewer)

    user = User.dangerously_unscoped.get(pk=tenant.viewer.pk)
    user.is_active = False
    user.save(update_fields=["is_active"])

    assert viewer.get(ME).status_code == 401


def test_a_lapsed_subscription_closes_the_api_on_the_next_request(tenant):
    owner = bearer_client(tenant.owner)
    assert owner.get("/api/v1/notifications/unread-count/").status_code == 200

    subscription = Subscription.objects.for_account(tenant.account).get()
    subscription.status = SubscriptionStatus.CANCELLED
    subscription.save(update_fields=["status", "updated_at"])

    response = owner.get("/api/v1/notifications/unread-count/")
    assert response.status_code == 403
    assert response.json()["code"] == "plan_inactive"


def test_a_plan_change_shows_its_limits_on_the_next_request(tenant):
    owner = bearer_client(tenant.owner)
    me(owner)
    subscription = Subscription.objects.for_account(tenant.account).get()
    other_plan = Plan.objects.exclude(pk=subscription.plan_id).order_by("id").first()

    subscription.plan = other_plan
    subscription.save(update_fields=["plan", "updated_at"])

    assert not cached(tenant.owner)
    payload = tokens.decode(owner._credentials["HTTP_AUTHORIZATION"].split()[1], tokens.ACCESS)
    assert tokens.user_for_payload(payload).account.subscription.plan.slug == other_plan.slug


def test_an_edited_plan_is_forgotten_for_every_account_on_it(tenant, other_tenant):
    for user in (tenant.owner, tenant.viewer, other_tenant.owner):
        me(bearer_client(user))
    plan = Subscription.objects.for_account(tenant.account).get().plan
    assert Subscription.objects.for_account(other_tenant.account).get().plan_id == plan.pk

    plan.max_sites += 1
    plan.save(update_fields=["max_sites"])

    assert not any(cached(user) for user in (tenant.owner, tenant.viewer, other_tenant.owner))
    payload = tokens.decode(tokens.issue_access_token(other_tenant.owner).token, tokens.ACCESS)
    assert tokens.user_for_payload(payload).account.subscription.plan.max_sites == plan.max_sites


def test_an_account_rename_shows_on_the_next_request(tenant):
    owner, viewer = bearer_client(tenant.owner), bearer_client(tenant.viewer)
    me(viewer)

    assert owner.patch(ACCOUNT, {"name": "Renamed account"}, format="json").status_code == 200

    assert me(viewer)["account"]["name"] == "Renamed account"


def test_an_edited_role_is_forgotten_for_its_users(tenant):
    me(bearer_client(tenant.editor))
    role = Role.objects.get(name=RoleName.EDITOR)

    role.description = "Edits content"
    role.save(update_fields=["description"])

    assert not cached(tenant.editor)


def test_a_deleted_user_is_forgotten(tenant):
    editor = bearer_client(tenant.editor)
    me(editor)

    assert bearer_client(tenant.owner).delete(f"/api/v1/auth/users/{tenant.editor.pk}/").status_code == 204

    assert not cached(tenant.editor)
    assert editor.get(ME).status_code == 401


@pytest.mark.django_db(transaction=True)
def test_a_principal_cached_during_the_changing_transaction_is_forgotten_at_commit(tenant):
    payload = tokens.decode(tokens.issue_access_token(tenant.owner).token, tokens.ACCESS)
    with transaction.atomic():
        user = User.dangerously_unscoped.get(pk=tenant.owner.pk)
        user.first_name = "Changed"
        user.save(update_fields=["first_name"])
        # A concurrent request that read the committed (old) rows caches them after the delete.
        cache.set(principal.cache_key(user.pk), principal._rows(principal._load(user.pk)))
        assert cached(user)

    assert not cached(user)
    assert tokens.user_for_payload(payload).first_name == "Changed"


def test_a_token_of_a_newer_version_than_the_cache_reads_the_database(tenant):
    """A cache that missed an invalidation never refuses (or accepts) by its stale version."""
    old = tokens.decode(tokens.issue_access_token(tenant.owner).token, tokens.ACCESS)
    tokens.user_for_payload(old)
    User.dangerously_unscoped.filter(pk=tenant.owner.pk).update(token_version=5)  # behind the cache's back
    tenant.owner.refresh_from_db()

    new = tokens.decode(tokens.issue_access_token(tenant.owner).token, tokens.ACCESS)
    assert tokens.user_for_payload(new).token_version == 5
    with pytest.raises(AuthenticationFailed):
        tokens.user_for_payload(old)


@pytest.mark.parametrize("role", ["owner", "viewer"])
def test_me_is_what_the_user_serializer_wrote(tenant, role):
    from inkwell.api.renderers import EnvelopeJSONRenderer
    from inkwell.tenancy.selectors import own_user
    from inkwell.tenancy.serializers import UserSerializer

    client = bearer_client(tenant.user(role))
    client.login(email=tenant.user(role).email, password="correct-horse-1")  # sets last_login
    user = User.dangerously_unscoped.select_related("account", "role").get(pk=tenant.user(role).pk)
    assert user.last_login is not None

    assert me(client) == json.loads(EnvelopeJSONRenderer().render(UserSerializer(user).data))["data"]
    assert list(own_user(user)) == list(UserSerializer(user).data)


def test_with_the_cache_off_every_request_reads_the_database_and_nothing_is_cached(tenant, settings):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 0
    payload = tokens.decode(tokens.issue_access_token(tenant.owner).token, tokens.ACCESS)

    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert tokens.user_for_payload(payload).account.subscription.plan is not None
        assert [query["sql"] for query in queries if "inkwell_cache" in query["sql"]] == []
        assert len([query for query in queries if '"tenancy_user"' in query["sql"]]) == 1
    assert not cached(tenant.owner)


def session_client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_session_reads_its_user_from_the_cached_principal_without_a_query_of_its_rows(tenant):
    client = session_client(tenant.editor)
    assert me(client)["role"] == "editor"  # the first request reads the database and caches

    with CaptureQueriesContext(connection) as queries:
        assert me(client)["role"] == "editor"

    assert [query["sql"] for query in queries if "tenancy_" in query["sql"]] == []


def test_a_sessions_role_change_shows_on_its_next_request(tenant):
    editor = session_client(tenant.editor)
    assert me(editor)["role"] == "editor"

    owner_changes(tenant, tenant.editor, role="admin")

    assert me(editor)["role"] == "admin"


def test_a_deactivated_users_session_is_refused_on_its_next_request(tenant):
    viewer = session_client(tenant.viewer)
    me(viewer)

    owner_changes(tenant, tenant.viewer, is_active=False)

    assert viewer.get(ME).status_code == 401
    assert viewer.get("/app/notifications/bell/").status_code == 302  # to the sign-in page


def test_a_password_change_ends_the_users_other_sessions(tenant):
    other_session = session_client(tenant.owner)
    me(other_session)

    response = bearer_client(tenant.owner).post("/api/v1/auth/password/change/", {"old_password": "correct-horse-1", "new_password": "another-horse-2"}, format="json")
    assert response.status_code == 200

    assert other_session.get(ME).status_code == 401
