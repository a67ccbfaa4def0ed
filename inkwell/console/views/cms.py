"""A site's CMS connection: connect WordPress (address, user, application password), test the
connection with the reason it failed, change the credentials, sync, the content types, the sync
health, and the signed webhook's setup with what to paste into WordPress.

Roles as the API's integration endpoints: everyone reads; owners and admins connect, change
credentials and set up the webhook (credentials are theirs); editors may also test, read the
content types again and sync, which change no credentials.
"""

from rest_framework import exceptions

from inkwell.console.base import ConsoleView, refusal_messages, get_scoped, scoped, validated
from inkwell.console.views.library import SiteView
from inkwell.console.views.planner import job_started
from inkwell.integration import selectors, services
from inkwell.integration import serializers as s
from inkwell.integration.models import Platform, SiteIntegration
from inkwell.tenancy.models import CONTENT_WRITER_ROLES, MANAGER_ROLES

CONNECTION_FIELDS = ("base_url", "username", "app_password")
# What a failed connection test means, in the words of someone fixing it (by the CMS error's code).
FAILURE_REASONS = {
    "cms_unreachable": "WordPress could not be reached at this address. Check the address, and that the site is up.",
    "cms_timeout": "WordPress did not answer in time. Try again; if it keeps happening, the site is too slow or blocks Inkwell.",
    "cms_unavailable": "WordPress answered with a server error. Try again later.",
    "cms_auth_failed": "WordPress refused the user name or the application password. Make a new application password for this user and enter it here.",
    "cms_forbidden": "WordPress let the user in but refused what Inkwell asked. The user needs the Editor or Administrator role.",
    "cms_not_found": "No WordPress REST API answered at this address. Check the address, and that the REST API is not switched off.",
    "cms_address_not_allowed": "This address points to a private or local network, which Inkwell does not call.",
}
CANNOT_PUBLISH = "The user signed in but may not publish posts (publish_posts). Give them the Author, Editor or Administrator role in WordPress."
WEBHOOK_PATH = "/api/v1/integration/webhook/cms/"


def integration_of(request, pk) -> SiteIntegration:
    return get_scoped(SiteIntegration, request, pk, queryset=scoped(SiteIntegration, request).select_related("site", "sync_job"))


def connection_outcome(result: dict) -> dict:
    """A connection test's answer, with the reason to show when it failed or the user may not publish."""
    reason = ""
    if not result["connected"]:
        reason = FAILURE_REASONS.get(result["error_code"], "")
    elif not result["user"]["can_publish"]:
        reason = CANNOT_PUBLISH
    return {**result, "ok": result["connected"] and not reason, "reason": reason}


class CmsView(SiteView):
    """The site's CMS page; POST connects WordPress and tests the connection at once."""

    module = "integration"
    write_roles = MANAGER_ROLES
    template_name = "console/publishing/cms.html"

    def show(self, request, site, *, integration: SiteIntegration | None = None, status: int = 200, **extra):
        integration = integration or scoped(SiteIntegration, request).select_related("sync_job").filter(site=site).order_by("id").first()
        context = {
            "site": site,
            "integration": integration,
            "values": {"base_url": "https://", "username": ""},
            "errors": {},
            "may_test": request.user.role_name in CONTENT_WRITER_ROLES,
            "webhook_url": request.build_absolute_uri(WEBHOOK_PATH),
        }
        if integration is not None:
            context["health"] = selectors.sync_health(integration)
            context["sync"] = selectors.sync_status(integration)
            context["content_types"] = integration.structure.get("content_types", [])
        return self.page(request, {**context, **extra}, status=status)

    def get(self, request, site_id):
        return self.show(request, self.site_of(request, site_id))

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        values = {name: request.POST.get(name, "") for name in CONNECTION_FIELDS}
        try:
            data = validated(s.IntegrationCreateInputSerializer, request, {**values, "site_id": site.pk, "platform": Platform.WORDPRESS})
            integration = services.integration_create(account=request.account, **data)
        except exceptions.APIException as exc:
            error, errors = refusal_messages(exc)
            shown = {name: values[name] for name in ("base_url", "username")}
            return self.show(request, site, status=exc.status_code, values=shown, errors=errors or {"non_field_errors": [error]})
        result = connection_outcome(services.check_connection(integration=integration))
        return self.show(request, site, integration=integration, test_result=result, created=True)


class IntegrationAction(ConsoleView):
    """A button of the CMS page that acts on the site's integration (``pk``)."""

    module = "integration"
    model = SiteIntegration

    def post(self, request, pk):
        integration = integration_of(request, pk)
        return self.act(request, integration)

    def back(self, request, integration, **extra):
        return CmsView().show(request, integration.site, integration=integration, **extra)


class CmsCredentialsView(IntegrationAction):
    """New address, user or application password (the stored password kept when left empty), tested at once."""

    write_roles = MANAGER_ROLES

    def act(self, request, integration):
        values = {name: request.POST.get(name, "") for name in CONNECTION_FIELDS}
        if not values["app_password"]:
            values.pop("app_password")
        try:
            data = validated(s.IntegrationUpdateInputSerializer, request, values)
        except exceptions.APIException as exc:
            error, errors = refusal_messages(exc)
            return self.back(request, integration, status=exc.status_code, credential_errors=errors or {"non_field_errors": [error]})
        services.integration_update(integration=integration, **data)
        return self.back(request, integration, test_result=connection_outcome(services.check_connection(integration=integration)))


class CmsTestView(IntegrationAction):
    write_roles = CONTENT_WRITER_ROLES

    def act(self, request, integration):
        return self.back(request, integration, test_result=connection_outcome(services.check_connection(integration=integration)))


class CmsStructureView(IntegrationAction):
    """Reads the CMS's content types again (the stored ones stay, with the reason, when it cannot be read)."""

    write_roles = CONTENT_WRITER_ROLES

    def act(self, request, integration):
        return self.back(request, integration, structure_result=services.update_structure(integration=integration))


class CmsSyncView(IntegrationAction):
    """Starts a sync in the background: its live progress on the page (409 while one runs)."""

    write_roles = CONTENT_WRITER_ROLES

    def act(self, request, integration):
        job = services.start_sync(account=request.account, integration=integration, user=request.user)
        return job_started(self, request, job)


class CmsWebhookView(IntegrationAction):
    """A new webhook secret and a site API key, shown once in the snippet for wp-config.php."""

    write_roles = MANAGER_ROLES

    def act(self, request, integration):
        setup = services.webhook_setup(integration=integration, user=request.user)
        response = self.back(request, integration, webhook=setup, plugin_source=selectors.wordpress_plugin_source())
        response["Cache-Control"] = "no-store"  # the secret and the key must not stay in a cache
        return response
