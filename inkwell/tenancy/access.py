"""Which sites a request may touch: owners and admins every site of the account; editors and
viewers the sites granted to them; a site-bound API key only its site."""

from inkwell.tenancy.models import MANAGER_ROLES, ApiKey, SiteUserAccess


def accessible_site_ids(request) -> frozenset[int] | None:
    """The ids of the sites the caller may touch, or None for every site of the account."""
    django_request = getattr(request, "_request", request)
    if hasattr(django_request, "accessible_site_ids"):
        return django_request.accessible_site_ids
    user = request.user
    site_ids: frozenset[int] | None = None
    if user.role_name not in MANAGER_ROLES:
        site_ids = frozenset(
            SiteUserAccess.objects.for_account(request.account).filter(user=user).values_list("site_id", flat=True)
        )
    key = request.auth if isinstance(request.auth, ApiKey) else None
    if key is not None and key.site_id is not None:
        site_ids = frozenset({key.site_id}) if site_ids is None else site_ids & {key.site_id}
    django_request.accessible_site_ids = site_ids
    return site_ids


def can_access_site(request, site_id: int) -> bool:
    site_ids = accessible_site_ids(request)
    return site_ids is None or site_id in site_ids


def restrict_to_accessible_sites(queryset, request):
    site_field = getattr(queryset.model, "site_field", None)
    if site_field is None:
        return queryset
    site_ids = accessible_site_ids(request)
    if site_ids is None:
        return queryset
    return queryset.filter(**{f"{site_field}__in": site_ids})
