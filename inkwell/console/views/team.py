"""The team: the account's people with their roles and the sites they may work on, and its API keys.

The rules are the API's (``/auth/users/``, ``/auth/site-access/``, ``/auth/api-keys/``) and so are
the services: every role sees who is on the team; owners and admins add people, change roles,
grant sites, deactivate, and manage API keys; only an owner makes an owner or changes one, and an
account keeps at least one active owner. There is no e-mail invitation in the tenancy services: a
person is added with a first password to pass on. An API key is shown once, in the answer that
creates it, and never again.
"""

from django.core.paginator import Paginator
from django.http import Http404
from django.urls import reverse

from inkwell.console.base import ConsoleView, get_scoped, scoped, validated
from inkwell.console.views.forms import FormsView, submitted_values
from inkwell.tenancy import selectors as tenancy
from inkwell.tenancy import serializers as s
from inkwell.tenancy import services
from inkwell.tenancy.models import MANAGER_ROLES, ApiKey, RoleName, Site, User

PAGE_SIZE = 50
ROLE_HINTS = {
    RoleName.OWNER: "Everything, including the owners and the plan.",
    RoleName.ADMIN: "Everything but the owners: people, sites, settings, keys.",
    RoleName.EDITOR: "Plans, writes and publishes on the sites granted, and changes their settings.",
    RoleName.VIEWER: "Reads the sites granted; changes nothing.",
    RoleName.REVIEWER: "Reads the sites granted, comments on articles and approves them or sends them back; edits and publishes nothing.",
}
USER_FIELDS = ("email", "first_name", "last_name", "role")


def offered_roles(actor: User) -> list[tuple[str, str]]:
    """The roles the actor may give: only an owner makes an owner."""
    return [(role, label) for role, label in RoleName.choices if role != RoleName.OWNER or actor.role_name == RoleName.OWNER]


def site_choices(request) -> list[dict]:
    return list(scoped(Site, request).order_by("name", "id").values("id", "name"))


def read_person(post) -> dict:
    """The add-a-person form, the password left out (it is never shown again)."""
    return {**{name: post.get(name, "").strip() for name in USER_FIELDS}, "site_ids": ids_from_post(post)}


def ids_from_post(post) -> list[int]:
    return [int(value) for value in post.getlist("site_ids") if value.isdigit()]


class TeamMixin:
    def page(self, request, context, **kwargs):
        return super().page(request, {**context, "may_manage_team": request.user.role_name in MANAGER_ROLES}, **kwargs)


class TeamView(TeamMixin, FormsView):
    """Everyone on the team (a page of them) and, for owners and admins, adding a person."""

    write_roles = MANAGER_ROLES
    template_name = "console/pages/team.html"

    def context(self, request, *, submitted=None) -> dict:
        sites = site_choices(request)
        names = {site["id"]: site["name"] for site in sites}
        page = Paginator(tenancy.account_members(request.account).order_by("-is_active", "email", "id"), PAGE_SIZE).get_page(request.GET.get("page"))
        rows = [
            {
                "user": user,
                "all_sites": user.role_name in MANAGER_ROLES,
                "sites": [names[access.site_id] for access in user.site_access.all() if access.site_id in names],
            }
            for user in page
        ]
        person = submitted_values(submitted, "person", read_person, {"role": RoleName.EDITOR, "site_ids": []})
        return {"page_obj": page, "rows": rows, "sites": sites, "roles": offered_roles(request.user), "role_hints": ROLE_HINTS, "person": person}

    def save(self, request):
        values = {**read_person(request.POST), "password": request.POST.get("password", "")}
        data = validated(s.UserCreateInputSerializer, request, values)
        user = services.user_create(account=request.account, actor=request.user, sites=data.pop("site_ids"), **data)
        return self.done(request, reverse("console:team-user", kwargs={"pk": user.pk}) + "?added=1")


class TeamUserView(TeamMixin, FormsView):
    """One person: their role, the sites they may work on, active or not (``PATCH /auth/users/{id}/``), removal."""

    model = User
    write_roles = MANAGER_ROLES
    template_name = "console/pages/team_user.html"

    def person(self, request, pk) -> User:
        return get_scoped(User, request, pk, queryset=tenancy.account_members(request.account))

    def context(self, request, *, pk, submitted=None) -> dict:
        person = self.person(request, pk)
        granted = {access.site_id for access in person.site_access.all()}
        if submitted is not None and submitted.get("form") == "sites":
            granted = set(ids_from_post(submitted))
        actor = request.user
        return {
            "person": person,
            "sites": site_choices(request),
            "granted": granted,
            "roles": offered_roles(actor),
            "role_hints": ROLE_HINTS,
            "all_sites": person.role_name in MANAGER_ROLES,
            # Only an owner changes an owner (the service refuses anyone else).
            "may_change": actor.role_name in MANAGER_ROLES and (person.role_name != RoleName.OWNER or actor.role_name == RoleName.OWNER),
            "is_self": person.pk == actor.pk,
        }

    def save(self, request, pk):
        person = self.person(request, pk)
        form = request.POST.get("form")
        if form == "delete":
            services.user_delete(user=person, actor=request.user)
            return self.done(request, reverse("console:team") + "?removed=1")
        if form == "role":
            payload = {"role": request.POST.get("role", "")}
        elif form == "active":
            payload = {"is_active": request.POST.get("is_active", "")}
        elif form == "sites":
            payload = {"site_ids": ids_from_post(request.POST)}
        else:
            raise Http404()
        data = validated(s.UserUpdateInputSerializer, request, payload, partial=True)
        sites = data.pop("site_ids", None)
        services.user_update(user=person, actor=request.user, sites=sites, **data)
        return self.done(request, reverse("console:team-user", kwargs={"pk": person.pk}) + f"?saved={form}")


class ApiKeysView(TeamMixin, FormsView):
    """The account's API keys (owners and admins, as the API): name, the site it is bound to, who
    made it, when it was last used; a new key is shown once, in the answer that creates it."""

    write_roles = MANAGER_ROLES
    template_name = "console/pages/api_keys.html"

    def context(self, request, *, submitted=None) -> dict:
        if request.user.role_name not in MANAGER_ROLES:
            return {}
        keys = tenancy.account_api_keys(request.account)
        page = Paginator(keys, PAGE_SIZE).get_page(request.GET.get("page"))
        new_key = submitted_values(submitted, "key", lambda post: {"name": post.get("name", ""), "site_id": post.get("site_id", "")}, {"name": "", "site_id": ""})
        return {"page_obj": page, "sites": site_choices(request), "new_key": new_key}

    def save(self, request):
        site_id = request.POST.get("site_id", "")
        data = validated(s.ApiKeyCreateInputSerializer, request, {"name": request.POST.get("name", ""), "site_id": int(site_id) if site_id.isdigit() else None})
        key, raw_key = services.api_key_create(account=request.account, user=request.user, **data)
        context = {**self.context(request), "form": "", "form_errors": {}, "created": {"key": key, "raw": raw_key}}
        response = self.page(request, context, status=201)
        response["Cache-Control"] = "no-store"  # the key must not stay in a cache
        return response


class ApiKeyRevokeView(ConsoleView):
    model = ApiKey
    write_roles = MANAGER_ROLES

    def post(self, request, pk):
        key = get_scoped(ApiKey, request, pk)
        services.api_key_revoke(key=key)
        return self.done(request, reverse("console:api-keys") + "?revoked=1")
