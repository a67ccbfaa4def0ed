"""The fail-closed tenancy mechanism: scoped managers, the scoped viewset base and site access."""

from types import SimpleNamespace

import pytest
from rest_framework import mixins

from inkwell.tenancy import access, services
from inkwell.tenancy.models import ApiKey, IndustrySector, Sector, Site, SiteUserAccess, User
from inkwell.tenancy.scoping import UnscopedQueryError
from inkwell.tenancy.viewsets import AccountScopedViewSet

pytestmark = pytest.mark.django_db


def _second_site(tenant, label="second"):
    return Site.objects.create(
        account=tenant.account, name=f"{label} site", domain=f"{label}.{tenant.site.domain}", slug=f"{label}-{tenant.site.slug}"
    )


# Managers ------------------------------------------------------------------------------------

UNSCOPED_OPERATIONS = {
    "evaluated with list()": lambda qs: list(qs),
    "evaluated with len()": lambda qs: len(qs),
    "evaluated with bool()": lambda qs: bool(qs),
    "iterated": lambda qs: [row for row in qs],
    "indexed": lambda qs: qs[0],
    "first()": lambda qs: qs.first(),
    "get()": lambda qs: qs.get(pk=1),
    "count()": lambda qs: qs.count(),
    "exists()": lambda qs: qs.exists(),
    "contains()": lambda qs: qs.contains(Site.dangerously_unscoped.first()),
    "aggregate()": lambda qs: qs.aggregate(),
    "in_bulk()": lambda qs: qs.in_bulk(),
    "iterator()": lambda qs: qs.iterator(),
    "update()": lambda qs: qs.update(name="hijacked"),
    "delete()": lambda qs: qs.delete(),
    "values() evaluated": lambda qs: list(qs.values("id")),
    "values_list() evaluated": lambda qs: list(qs.values_list("id", flat=True)),
    "filtered then evaluated": lambda qs: list(qs.filter(is_active=True)),
    "ordered then evaluated": lambda qs: list(qs.order_by("-id")),
}


@pytest.mark.parametrize("operation", UNSCOPED_OPERATIONS.values(), ids=UNSCOPED_OPERATIONS.keys())
def test_an_unscoped_query_raises_instead_of_leaking_rows(tenant, other_tenant, operation):
    with pytest.raises(UnscopedQueryError, match="dangerously_unscoped"):
        operation(Site.objects.all())
    # Nothing was changed by the refused update() or delete().
    assert sorted(Site.dangerously_unscoped.values_list("name", flat=True)) == ["Site a", "Site b"]


@pytest.mark.parametrize("model", [Site, Sector, SiteUserAccess, ApiKey, User])
def test_every_account_owned_manager_is_fail_closed(db, model):
    with pytest.raises(UnscopedQueryError):
        model.objects.count()


def test_for_account_returns_only_that_accounts_rows(tenant, other_tenant):
    extra = _second_site(tenant)

    assert list(Site.objects.for_account(tenant.account)) == [tenant.site, extra]
    assert list(Site.objects.for_account(other_tenant.account)) == [other_tenant.site]
    assert Site.objects.for_account(tenant.account).count() == 2
    assert not Site.objects.for_account(tenant.account).filter(pk=other_tenant.site.pk).exists()


def test_chaining_keeps_the_scope(tenant, other_tenant):
    extra = _second_site(tenant)
    scoped = Site.objects.for_account(tenant.account)

    assert list(scoped.filter(is_active=True).order_by("-id")) == [extra, tenant.site]
    assert list(scoped.exclude(pk=extra.pk)) == [tenant.site]
    assert sorted(scoped.values_list("id", flat=True)) == sorted([tenant.site.pk, extra.pk])
    assert [row["name"] for row in scoped.order_by("-id").values("name")] == [extra.name, tenant.site.name]
    assert list(scoped.select_related("account").only("id", "account__name")) == [tenant.site, extra]
    assert scoped.filter(pk=other_tenant.site.pk).first() is None
    assert list(scoped.all().all()) == [tenant.site, extra]
    # for_account may also come after other filters.
    assert list(Site.objects.filter(is_active=True).for_account(other_tenant.account)) == [other_tenant.site]


def test_writes_through_a_scoped_queryset_touch_only_that_account(tenant, other_tenant):
    assert Site.objects.for_account(tenant.account).update(name="renamed") == 1
    assert Site.dangerously_unscoped.get(pk=other_tenant.site.pk).name == "Site b"

    Site.objects.for_account(tenant.account).delete()
    assert list(Site.dangerously_unscoped.all()) == [other_tenant.site]


def test_dangerously_unscoped_sees_every_account(tenant, other_tenant):
    assert set(Site.dangerously_unscoped.all()) == {tenant.site, other_tenant.site}
    assert Site.dangerously_unscoped.filter(is_active=True).count() == 2
    assert User.dangerously_unscoped.filter(account__in=[tenant.account, other_tenant.account]).count() == 8


def test_an_empty_queryset_needs_no_scope(tenant):
    empty = Site.objects.none()

    assert list(empty) == []
    assert empty.count() == 0
    assert not empty.exists()
    assert empty.update(name="x") == 0
    assert list(Site.objects.filter(is_active=True).none()) == []


def test_related_managers_of_a_scoped_object_work_without_a_new_scope(tenant, industry_sector):
    sector = Sector.objects.create(account=tenant.account, site=tenant.site, industry_sector=industry_sector, name="S")
    site = Site.objects.for_account(tenant.account).get(pk=tenant.site.pk)

    assert list(site.sectors.all()) == [sector]
    assert sector.site == site


# The viewset base -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["get_queryset", "get_object"])
def test_a_scoped_viewset_cannot_override_the_scoping_methods(method):
    with pytest.raises(TypeError, match=f"must not override {method}"):
        type("LeakyViewSet", (mixins.ListModelMixin, AccountScopedViewSet), {method: lambda self: None, "queryset": Site.objects.all()})


@pytest.mark.parametrize("method", ["get_queryset", "get_object"])
def test_a_grandchild_viewset_cannot_override_the_scoping_methods_either(method):
    class SiteViews(mixins.ListModelMixin, AccountScopedViewSet):
        queryset = Site.objects.all()

    with pytest.raises(TypeError, match=method):
        type("LeakyChild", (SiteViews,), {method: lambda self: None})


@pytest.mark.parametrize("method", ["get_queryset", "get_object"])
def test_a_mixin_cannot_slip_an_override_in_ahead_of_the_base(method):
    mixin = type("LeakyMixin", (), {method: lambda self: None})

    with pytest.raises(TypeError, match=method):
        type("LeakyViewSet", (mixin, mixins.ListModelMixin, AccountScopedViewSet), {"queryset": Site.objects.all()})


def test_refining_the_scoped_queryset_hook_is_allowed():
    class ActiveSites(mixins.ListModelMixin, AccountScopedViewSet):
        queryset = Site.objects.all()

        def scoped_queryset(self, queryset):
            return queryset.filter(is_active=True)

    assert ActiveSites.get_queryset is AccountScopedViewSet.get_queryset


def test_the_viewset_queryset_is_scoped_to_the_request_account(tenant, other_tenant):
    class SiteViews(mixins.ListModelMixin, AccountScopedViewSet):
        queryset = Site.objects.all()

    view = SiteViews()
    view.request = SimpleNamespace(user=tenant.owner, account=tenant.account, auth=None)
    assert list(view.get_queryset()) == [tenant.site]


# Site access ---------------------------------------------------------------------------------


def _request(user, *, auth=None):
    return SimpleNamespace(user=user, account=user.account, auth=auth)


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_owners_and_admins_may_touch_every_site(tenant, role, django_assert_num_queries):
    request = _request(tenant.user(role))

    with django_assert_num_queries(0):
        assert access.accessible_site_ids(request) is None
    assert access.can_access_site(request, tenant.site.pk)


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_editors_and_viewers_may_touch_only_granted_sites(tenant, role):
    user = tenant.user(role)
    extra = _second_site(tenant)
    assert access.accessible_site_ids(_request(user)) == frozenset()

    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=user, site=extra)
    request = _request(user)

    assert access.accessible_site_ids(request) == frozenset({extra.pk})
    assert access.can_access_site(request, extra.pk)
    assert not access.can_access_site(request, tenant.site.pk)


def test_grants_in_another_account_do_not_count(tenant, other_tenant):
    # A grant row pointing at this account's editor but recorded under another account is ignored.
    SiteUserAccess.objects.create(account=other_tenant.account, user=tenant.editor, site=other_tenant.site)

    assert access.accessible_site_ids(_request(tenant.editor)) == frozenset()


def test_the_answer_is_computed_once_per_request(tenant, django_assert_num_queries):
    request = _request(tenant.viewer)
    with django_assert_num_queries(1):
        access.accessible_site_ids(request)
        access.accessible_site_ids(request)
        access.can_access_site(request, tenant.site.pk)


def test_a_site_bound_key_of_a_manager_is_limited_to_its_site(tenant):
    extra = _second_site(tenant)
    key, _ = services.api_key_create(account=tenant.account, user=tenant.owner, name="bound", site=extra)
    unbound, _ = services.api_key_create(account=tenant.account, user=tenant.owner, name="unbound")

    assert access.accessible_site_ids(_request(tenant.owner, auth=key)) == frozenset({extra.pk})
    assert access.accessible_site_ids(_request(tenant.owner, auth=unbound)) is None


def test_a_site_bound_key_of_an_editor_is_limited_to_its_site_and_the_grants(tenant):
    extra = _second_site(tenant)
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.editor, site=tenant.site)
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.editor, site=extra)
    key_for_granted, _ = services.api_key_create(account=tenant.account, user=tenant.editor, name="granted", site=extra)

    assert access.accessible_site_ids(_request(tenant.editor, auth=key_for_granted)) == frozenset({extra.pk})

    SiteUserAccess.objects.for_account(tenant.account).filter(user=tenant.editor, site=extra).delete()
    # The grant was revoked after the key was made: the key reaches nothing any more.
    assert access.accessible_site_ids(_request(tenant.editor, auth=key_for_granted)) == frozenset()


def test_restricting_a_queryset_follows_the_models_site_field(tenant, industry_sector):
    extra = _second_site(tenant)
    other_sector = IndustrySector.objects.exclude(pk=industry_sector.pk).order_by("id").first()
    on_granted = Sector.objects.create(account=tenant.account, site=extra, industry_sector=industry_sector, name="granted")
    Sector.objects.create(account=tenant.account, site=tenant.site, industry_sector=other_sector, name="hidden")
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.viewer, site=extra)
    request = _request(tenant.viewer)

    sites = access.restrict_to_accessible_sites(Site.objects.for_account(tenant.account), request)
    sectors = access.restrict_to_accessible_sites(Sector.objects.for_account(tenant.account), request)
    users = access.restrict_to_accessible_sites(User.objects.for_account(tenant.account), request)

    assert list(sites) == [extra]
    assert list(sectors) == [on_granted]
    # Account-wide rows (site_field None) are not narrowed by site grants.
    assert users.count() == 4


def test_restricting_leaves_a_managers_queryset_alone(tenant):
    queryset = Site.objects.for_account(tenant.account)
    assert access.restrict_to_accessible_sites(queryset, _request(tenant.admin)) is queryset
