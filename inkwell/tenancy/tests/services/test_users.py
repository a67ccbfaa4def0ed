"""services.user_create, user_update and user_delete: plan limits, owner guards, access grants."""

import pytest
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied

from inkwell.api.exceptions import Conflict, PlanLimitReached
from inkwell.tenancy import services, tokens
from inkwell.tenancy.models import ApiKey, Plan, RefreshToken, Role, RoleName, Site, SiteUserAccess, Subscription, User

pytestmark = pytest.mark.django_db


def _second_site(tenant) -> Site:
    return Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")


def _grants(user) -> set[int]:
    return set(SiteUserAccess.objects.for_account(user.account).filter(user=user).values_list("site_id", flat=True))


def _co_owner(tenant, *, is_active=True) -> User:
    return User.dangerously_unscoped.create_user(
        f"co-owner-{tenant.account.pk}@example.com",
        "correct-horse-1",
        account=tenant.account,
        role=Role.objects.get(name=RoleName.OWNER),
        is_active=is_active,
    )


# user_create ----------------------------------------------------------------------------------


def test_a_new_user_joins_the_account_with_the_role_and_the_granted_sites(big_tenant):
    second = _second_site(big_tenant)

    user = services.user_create(
        account=big_tenant.account,
        actor=big_tenant.admin,
        email=" Writer@Example.com",
        password="long-enough-1",
        role=RoleName.EDITOR,
        first_name="W",
        sites=[big_tenant.site, second],
    )

    user = User.objects.for_account(big_tenant.account).get(pk=user.pk)
    assert user.email == "writer@example.com"
    assert user.check_password("long-enough-1")
    assert user.role_name == RoleName.EDITOR
    assert user.first_name == "W"
    assert _grants(user) == {big_tenant.site.pk, second.pk}
    assert set(SiteUserAccess.objects.for_account(big_tenant.account).filter(user=user).values_list("granted_by", flat=True)) == {
        big_tenant.admin.pk
    }


def test_the_plans_max_users_is_enforced():
    owner = services.account_register(email="solo@example.com", password="long-enough-1")
    account = owner.account
    assert account.subscription.plan.max_users == 2

    services.user_create(account=account, actor=owner, email="second@example.com", password="long-enough-1", role=RoleName.VIEWER)
    with pytest.raises(PlanLimitReached) as raised:
        services.user_create(account=account, actor=owner, email="third@example.com", password="long-enough-1", role=RoleName.VIEWER)

    assert raised.value.code == "plan_limit_reached"
    assert raised.value.status_code == 403
    assert raised.value.errors == {"max_users": ["Your plan allows at most 2"]}
    assert not User.dangerously_unscoped.filter(email="third@example.com").exists()


def test_deactivated_users_do_not_count_against_max_users():
    owner = services.account_register(email="solo@example.com", password="long-enough-1")
    second = services.user_create(
        account=owner.account, actor=owner, email="second@example.com", password="long-enough-1", role=RoleName.VIEWER
    )
    services.user_update(user=second, actor=owner, is_active=False)

    third = services.user_create(
        account=owner.account, actor=owner, email="third@example.com", password="long-enough-1", role=RoleName.VIEWER
    )

    assert third.pk is not None


def test_a_duplicate_email_is_a_conflict_case_insensitively_across_accounts(big_tenant, other_tenant):
    with pytest.raises(Conflict) as raised:
        services.user_create(
            account=big_tenant.account,
            actor=big_tenant.owner,
            email=other_tenant.editor.email.upper(),
            password="long-enough-1",
            role=RoleName.VIEWER,
        )

    assert raised.value.errors == {"email": ["User with this email already exists"]}
    assert User.objects.for_account(big_tenant.account).count() == 4


def test_only_an_owner_may_create_an_owner(big_tenant):
    with pytest.raises(PermissionDenied):
        services.user_create(
            account=big_tenant.account, actor=big_tenant.admin, email="boss@example.com", password="long-enough-1", role=RoleName.OWNER
        )
    assert not User.dangerously_unscoped.filter(email="boss@example.com").exists()

    boss = services.user_create(
        account=big_tenant.account, actor=big_tenant.owner, email="boss@example.com", password="long-enough-1", role=RoleName.OWNER
    )
    assert boss.role_name == RoleName.OWNER


# user_update ----------------------------------------------------------------------------------


def test_an_admin_changes_names_roles_and_site_access_of_non_owners(big_tenant):
    second = _second_site(big_tenant)
    services.site_access_grant(account=big_tenant.account, actor=big_tenant.owner, user=big_tenant.editor, site=big_tenant.site)

    services.user_update(
        user=big_tenant.editor, actor=big_tenant.admin, first_name="E", last_name="D", role=RoleName.VIEWER, sites=[second]
    )

    editor = User.objects.for_account(big_tenant.account).get(pk=big_tenant.editor.pk)
    assert (editor.first_name, editor.last_name, editor.role_name) == ("E", "D", RoleName.VIEWER)
    assert _grants(editor) == {second.pk}


def test_leaving_sites_out_keeps_the_grants(big_tenant):
    services.site_access_grant(account=big_tenant.account, actor=big_tenant.owner, user=big_tenant.viewer, site=big_tenant.site)

    services.user_update(user=big_tenant.viewer, actor=big_tenant.admin, first_name="V")

    assert _grants(big_tenant.viewer) == {big_tenant.site.pk}


def test_an_empty_site_list_revokes_every_grant(big_tenant):
    services.site_access_grant(account=big_tenant.account, actor=big_tenant.owner, user=big_tenant.viewer, site=big_tenant.site)

    services.user_update(user=big_tenant.viewer, actor=big_tenant.admin, sites=[])

    assert _grants(big_tenant.viewer) == set()


@pytest.mark.parametrize(
    "change",
    [{"first_name": "Renamed"}, {"role": RoleName.ADMIN}, {"is_active": False}, {"sites": []}],
    ids=["rename", "demote", "deactivate", "site access"],
)
def test_user_update_an_admin_cannot_touch_an_owner(tenant, change):
    _co_owner(tenant)

    with pytest.raises(PermissionDenied):
        services.user_update(user=tenant.owner, actor=tenant.admin, **change)

    owner = User.objects.for_account(tenant.account).get(pk=tenant.owner.pk)
    assert (owner.first_name, owner.role_name, owner.is_active) == ("", RoleName.OWNER, True)


def test_user_update_an_admin_cannot_promote_to_owner(tenant):
    with pytest.raises(PermissionDenied):
        services.user_update(user=tenant.editor, actor=tenant.admin, role=RoleName.OWNER)

    assert User.objects.for_account(tenant.account).get(pk=tenant.editor.pk).role_name == RoleName.EDITOR


def test_user_update_an_owner_can_demote_another_owner(tenant):
    co_owner = _co_owner(tenant)

    services.user_update(user=co_owner, actor=tenant.owner, role=RoleName.ADMIN)

    assert User.objects.for_account(tenant.account).get(pk=co_owner.pk).role_name == RoleName.ADMIN


def test_user_update_the_last_owner_cannot_be_demoted(tenant):
    with pytest.raises(Conflict) as raised:
        services.user_update(user=tenant.owner, actor=tenant.owner, role=RoleName.ADMIN)

    assert raised.value.errors == {"role": ["An account needs at least one owner"]}
    assert User.objects.for_account(tenant.account).get(pk=tenant.owner.pk).role_name == RoleName.OWNER


def test_user_update_an_inactive_co_owner_does_not_make_the_owner_dispensable(tenant):
    inactive_owner = _co_owner(tenant, is_active=False)

    with pytest.raises(Conflict):
        services.user_update(user=tenant.owner, actor=tenant.owner, role=RoleName.ADMIN)
    # The last active owner cannot be deactivated, whoever asks.
    with pytest.raises(Conflict) as raised:
        services.user_update(user=tenant.owner, actor=inactive_owner, is_active=False)

    assert raised.value.errors == {"is_active": ["This user cannot be deactivated"]}
    assert User.objects.for_account(tenant.account).get(pk=tenant.owner.pk).is_active


def test_user_update_nobody_can_deactivate_themselves(tenant):
    with pytest.raises(Conflict):
        services.user_update(user=tenant.admin, actor=tenant.admin, is_active=False)

    assert User.objects.for_account(tenant.account).get(pk=tenant.admin.pk).is_active


def test_deactivating_a_user_revokes_tokens(tenant):
    pair = tokens.token_pair(tenant.editor)
    access_payload = tokens.decode(pair["access"], tokens.ACCESS)
    version_before = tenant.editor.token_version

    services.user_update(user=tenant.editor, actor=tenant.admin, is_active=False)

    editor = User.dangerously_unscoped.get(pk=tenant.editor.pk)
    assert not editor.is_active
    assert editor.token_version == version_before + 1
    assert not RefreshToken.objects.filter(user=editor, revoked_at__isnull=True).exists()
    with pytest.raises(AuthenticationFailed):
        tokens.user_for_payload(access_payload)
    # Reactivating (on a plan with room for the user) does not bring the old tokens back.
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug="scale"))
    services.user_update(user=User.objects.for_account(tenant.account).select_related("account__subscription__plan").get(pk=editor.pk), actor=tenant.admin, is_active=True)
    with pytest.raises(AuthenticationFailed):
        tokens.user_for_payload(access_payload)
    with pytest.raises(AuthenticationFailed):
        tokens.rotate_refresh_token(pair["refresh"])


def test_renaming_an_active_user_keeps_their_tokens(tenant):
    pair = tokens.token_pair(tenant.editor)

    services.user_update(user=tenant.editor, actor=tenant.admin, first_name="Still here")

    assert tokens.user_for_payload(tokens.decode(pair["access"], tokens.ACCESS)) == tenant.editor
    assert RefreshToken.objects.filter(user=tenant.editor, revoked_at__isnull=True).count() == 1


# user_delete ----------------------------------------------------------------------------------


def test_user_delete_removes_the_user_with_grants_and_keys(tenant):
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.editor, site=tenant.site)
    services.api_key_create(account=tenant.account, user=tenant.editor, name="editor key")

    services.user_delete(user=tenant.editor, actor=tenant.admin)

    assert not User.dangerously_unscoped.filter(pk=tenant.editor.pk).exists()
    assert not SiteUserAccess.objects.for_account(tenant.account).exists()
    assert not ApiKey.objects.for_account(tenant.account).exists()


def test_user_delete_keeps_grants_the_deleted_user_made(tenant):
    grant = services.site_access_grant(account=tenant.account, actor=tenant.admin, user=tenant.viewer, site=tenant.site)
    _co_owner(tenant)

    services.user_delete(user=tenant.admin, actor=tenant.owner)

    grant = SiteUserAccess.objects.for_account(tenant.account).get(pk=grant.pk)
    assert grant.granted_by is None


def test_user_delete_an_admin_cannot_delete_an_owner(tenant):
    _co_owner(tenant)

    with pytest.raises(PermissionDenied):
        services.user_delete(user=tenant.owner, actor=tenant.admin)

    assert User.objects.for_account(tenant.account).filter(pk=tenant.owner.pk).exists()


def test_user_delete_an_owner_can_delete_another_owner(tenant):
    co_owner = _co_owner(tenant)

    services.user_delete(user=co_owner, actor=tenant.owner)

    assert not User.dangerously_unscoped.filter(pk=co_owner.pk).exists()


def test_user_delete_nobody_can_delete_themselves(tenant):
    _co_owner(tenant)

    for user in (tenant.owner, tenant.admin):
        with pytest.raises(Conflict) as raised:
            services.user_delete(user=user, actor=user)
        assert raised.value.errors == {"user": ["This user cannot be deleted"]}

    assert User.objects.for_account(tenant.account).count() == 5


def test_user_delete_the_last_active_owner_cannot_be_deleted(tenant):
    inactive_owner = _co_owner(tenant, is_active=False)

    with pytest.raises(Conflict):
        services.user_delete(user=tenant.owner, actor=inactive_owner)

    assert User.objects.for_account(tenant.account).filter(pk=tenant.owner.pk).exists()
