"""What every console page shares: who may see it, how it finds its rows, how a refusal looks.

Console views check the same rules as the API, by running the API's own permission classes
(``IsAccountMember`` with the view's ``read_roles``/``write_roles``, then ``ModuleEnabled``), and
find rows the way ``AccountScopedViewSet`` does (the account's rows, narrowed to the sites the
caller may touch), so another account's id is a 404. Services raise the API's exceptions; here
they become a page (or, for htmx, a fragment swapped into the flash region) with the same status
and the same messages.
"""

import functools
import json
import hashlib
from pathlib import Path

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import quote_etag, url_has_allowed_host_and_scheme
from django.views import View
from django_filters.utils import translate_validation
from django_htmx.http import HttpResponseClientRedirect
from rest_framework import exceptions

from inkwell.api import throttling
from inkwell.api.exceptions import GENERAL_MESSAGES, flatten_errors
from inkwell.billing import selectors as billing
from inkwell.notifications import selectors as notifications
from inkwell.system.permissions import ModuleEnabled
from inkwell.tenancy import principal
from inkwell.tenancy.access import accessible_site_ids, restrict_to_accessible_sites
from inkwell.tenancy.models import CONTENT_WRITER_ROLES, MANAGER_ROLES, Site
from inkwell.tenancy.permissions import ALL_ROLES, IsAccountMember

SITE_SESSION_KEY = "console_site_id"
TEMPLATES_DIRECTORY = Path(__file__).resolve().parent / "templates"


def rate_limited(request, view) -> bool:
    """Whether the caller is over the API's rate limit of the view's ``throttle_scope`` (the same
    counters as the API's: a person cannot get around a limit by switching to the console)."""
    request._request = request  # the throttle records its state where a DRF request keeps the Django one
    return not throttling.ScopedRateThrottle().allow_request(request, view)


def signed_in(request, view) -> bool:
    """Whether the session's user is signed in. On Redis the user's principal is read in the round
    trip that counts the request's rate-limit hit (``principal.counting_hit``), and
    ``rate_limited`` takes that count instead of counting again."""
    user_id = request.session.get(SESSION_KEY)
    if not isinstance(user_id, str) or not user_id.isdigit():
        return request.user.is_authenticated
    key = throttling.user_counter_key(view, user_id=int(user_id))
    with principal.counting_hit(key) as counted:
        authenticated = request.user.is_authenticated
    if counted and authenticated:
        request.counted_hit = throttling.CountedHit(key, counted[0])
    return authenticated


def scoped(model, request):
    """``model``'s rows the caller may see: the same queryset an ``AccountScopedViewSet`` starts from."""
    return restrict_to_accessible_sites(model.objects.all().for_account(request.account), request)


def get_scoped(model, request, pk, queryset=None):
    """One of the caller's rows by id; another account's id (or a site not granted) is a 404."""
    try:
        return (queryset if queryset is not None else scoped(model, request)).get(pk=pk)
    except (model.DoesNotExist, ValueError, TypeError):
        raise Http404() from None


def remember_site(request, site_id: int) -> None:
    """The site the header's switcher shows next time (the session is written only when it changes)."""
    if request.session.get(SITE_SESSION_KEY) != site_id:
        request.session[SITE_SESSION_KEY] = site_id


def render_page(request, template: str, context: dict, *, status: int = 200) -> HttpResponse:
    return HttpResponse(render_to_string(template, context, request=request), status=status)


def _once(read):
    """``read`` called when a template first uses the value, and its answer kept for the render:
    Django's templates call a callable variable."""
    return functools.cache(read)


def header_sites(request) -> list[dict]:
    """The sites of the header's switcher: those the caller may see, by name."""
    return list(scoped(Site, request).order_by("name", "id").values("id", "name", "time_zone"))


def current_site_id(request, sites: list[dict]) -> int | None:
    """The site the switcher shows: the one the session remembers while the caller still sees it,
    else the first of ``sites``; None when there is none."""
    current = request.session.get(SITE_SESSION_KEY)
    if current not in {site["id"] for site in sites}:
        current = sites[0]["id"] if sites else None
    return current


def display_zone(site, shell: dict) -> str:
    """The time zone a page shows its times in: that of the site the page is about (``site``),
    else that of the site in the header's switcher (``shell``); UTC for an account with no site."""
    if isinstance(site, Site):
        return site.time_zone
    sites, current = shell["sites"](), shell["current_site_id"]()
    return next((entry["time_zone"] for entry in sites if entry["id"] == current), "UTC")


def shell_context(request) -> dict:
    """The header every signed-in page shows: the sites, the credit balance, the unread count.

    Each is read from the database or the cache only when the template uses it: a polled fragment
    (the bell, a job's progress) shows one of them or none, and the page around it all."""
    sites = _once(lambda: header_sites(request))
    return {
        "account": request.account,
        "role": request.user.role_name,
        "may_write": request.user.role_name in CONTENT_WRITER_ROLES,
        "may_manage": request.user.role_name in MANAGER_ROLES,
        "sites": sites,
        "current_site_id": _once(lambda: current_site_id(request, sites())),
        "credits_available": _once(lambda: billing.available_credits(request.account)),
        # Read by ModuleEnabled for the page's own module: buttons of switched-off modules are left out.
        "disabled_modules": getattr(request, "disabled_modules", frozenset()),
        "unread_count": _once(lambda: notifications.unread_count(request.account, user=request.user, site_ids=accessible_site_ids(request))),
    }


class ConsoleView(View):
    """A signed-in page of the console.

    ``read_roles`` may GET it, ``write_roles`` may POST to it (the API's defaults: every role
    reads, owners, admins and editors write); ``module`` names the switchable module it belongs to.
    ``model`` is what its ``pk`` names (the cross-account matrix reads it).
    """

    module: str | None = None
    read_roles = ALL_ROLES
    write_roles = CONTENT_WRITER_ROLES
    model = None
    template_name = ""
    credit_cost: int | None = None
    throttle_scope = "general"

    def dispatch(self, request, *args, **kwargs):
        if not signed_in(request, self):
            if request.htmx:
                return HttpResponseClientRedirect(reverse("console:signin"))
            return redirect_to_login(request.get_full_path(), reverse("console:signin"))
        request.auth = None  # a session, never an API key: the permission classes read it
        try:
            IsAccountMember().has_permission(request, self)
            ModuleEnabled().has_permission(request, self)
            if rate_limited(request, self):
                return self.refusal(request, 429, GENERAL_MESSAGES[429], {})
            if request.method == "GET" and request.htmx and not request.htmx.boosted:
                return self.poll(request, *args, **kwargs)
            return super().dispatch(request, *args, **kwargs)
        except (Http404, ObjectDoesNotExist):
            return self.refusal(request, 404, GENERAL_MESSAGES[404], {})
        except exceptions.APIException as exc:
            return self.refusal(request, exc.status_code, *refusal_messages(exc))

    def poll_state(self, request, *args, **kwargs):
        """For a fragment htmx polls: the values it shows, read for less than rendering it costs;
        None to render as usual. A poll whose ``If-None-Match`` names them gets a 304."""
        return None

    def poll(self, request, *args, **kwargs) -> HttpResponse:
        """An htmx request for the fragment, answered ``304 Not Modified`` when what it shows is
        what the browser already has (``fragment_etag``); a 200 carries that ETag, and asks the
        browser to keep it and check it on the next poll (``private, no-cache``)."""
        state = self.poll_state(request, *args, **kwargs)
        if state is None:
            return super().dispatch(request, *args, **kwargs)
        etag = fragment_etag(request, state)
        response = get_conditional_response(request, etag=etag)
        if response is None:
            response = super().dispatch(request, *args, **kwargs)
            if response.status_code != 200:
                return response
        response["ETag"] = etag
        patch_cache_control(response, private=True, no_cache=True)
        patch_vary_headers(response, ["HX-Request"])
        return response

    def page(self, request, context: dict, *, template: str | None = None, status: int = 200) -> HttpResponse:
        """The full page, or for an htmx request that targets a fragment, that fragment alone."""
        shell = shell_context(request)
        context = {**shell, **context, "view": self}
        context["display_zone"] = _once(lambda: display_zone(context.get("site"), shell))
        if request.htmx and not request.htmx.boosted and getattr(self, "fragment_template", None):
            return render_page(request, self.fragment_template, context, status=status)
        return render_page(request, template or self.template_name, context, status=status)

    def refusal(self, request, status: int, error: str, errors: dict, **extra) -> HttpResponse:
        context = {"status": status, "error": error, "errors": errors, **extra}
        if status == 402:
            context["credits_needed"] = self.credit_cost
            context["credits_available"] = billing.available_credits(request.account)
        if request.htmx:
            response = render_page(request, "console/components/refusal.html", context, status=status)
            response["HX-Retarget"] = "#flash"
            response["HX-Reswap"] = "innerHTML"
            return response
        if getattr(request, "account", None) is None:
            return render_page(request, "console/pages/refusal.html", context, status=status)
        return render_page(request, "console/pages/refusal.html", {**shell_context(request), **context}, status=status)

    def done_back(self, request, *, default: str) -> HttpResponse:
        """After a change: back to the page the form names in ``back`` (a list with its filters
        and page), when that is one of the console's own paths, else to ``default``."""
        return self.done(request, console_path(request.POST.get("back", ""), default=default))

    def done(self, request, url: str) -> HttpResponse:
        """After a change: back to the page (a full redirect without JavaScript, a client redirect with htmx)."""
        if request.htmx:
            return HttpResponseClientRedirect(url)
        return redirect(url)


JOB_CHANGED = "jobchange"


def job_changed(response: HttpResponse, job) -> HttpResponse:
    """Raises ``jobchange`` in the browser (htmx's ``HX-Trigger``) because a job started or ended:
    every fragment that shows a job's subject (task cards, keyword rows, clusters, the header's
    credits, the bell) listens for it (``data-refresh-on-job``, console.js; the bell's own htmx trigger) and fetches itself
    again. The one way a screen learns that a job changed something (issue 30, case 1)."""
    response["HX-Trigger"] = json.dumps({JOB_CHANGED: {"job_id": job.pk, "kind": job.kind, "status": job.status}})
    return response


def console_path(target: str, *, default: str) -> str:
    """``target`` when it is a path of the console's own, else ``default``: the only way a value
    from a request becomes a redirect, so none leads to another host (``//host``, ``/\\host``),
    another scheme or the API."""
    if target.startswith(reverse("console:home")) and "\\" not in target and url_has_allowed_host_and_scheme(target, allowed_hosts=None):
        return target
    return default


@functools.cache
def templates_digest() -> str:
    """A digest of the console's templates, the same in every process of a deploy: a fragment's
    ETag changes with them, so a browser never keeps a fragment an upgrade has redrawn."""
    digest = hashlib.sha256()
    for path in sorted(TEMPLATES_DIRECTORY.rglob("*.html")):
        digest.update(path.relative_to(TEMPLATES_DIRECTORY).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fragment_etag(request, state) -> str:
    """The ETag of a polled fragment: what it shows (``state``), the URL that asked for it (its
    query chooses the page and the filter), who asks (their role) and the templates that draw it."""
    signature = repr((state, request.get_full_path(), request.user.pk, request.user.role_name, templates_digest()))
    return quote_etag(hashlib.sha256(signature.encode()).hexdigest()[:32])


def refusal_messages(exc: exceptions.APIException) -> tuple[str, dict]:
    """A refusal as the API words it: its general message and its field messages by path."""
    status = exc.status_code
    errors = getattr(exc, "errors", None)
    if errors is None and isinstance(exc, exceptions.ValidationError):
        errors = flatten_errors(exc.detail)
    error = getattr(exc, "error", None) or GENERAL_MESSAGES.get(status, "Error")
    return error, errors or {}


def validated(serializer_class, request, data: dict, *, partial: bool = False) -> dict:
    """Console input validated by the API's own input serializer (its rules and its messages)."""
    serializer = serializer_class(data=data, partial=partial, context={"request": request})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def filtered(filterset_class, request, data: dict, queryset):
    """A console list narrowed by the API's own FilterSet (its rules and its messages): invalid
    filters are the same 400 as on the API's list."""
    filterset = filterset_class(data, queryset=queryset, request=request)
    if not filterset.is_valid():
        raise translate_validation(filterset.errors)
    return filterset.qs


def ids_from(request, name: str) -> list[int]:
    """The checked boxes of a list (``name`` repeated); what is not a number is dropped."""
    return [int(value) for value in request.POST.getlist(name) if value.isdigit()]
