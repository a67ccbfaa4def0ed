"""Settings → Webhooks: the account's outbound webhook endpoints, the events each receives, its
delivery log with every attempt, the test ping, secret rotation and redelivery by hand.

The rules are the API's (``/webhooks/``) and so are the serializers and services: owners and
admins, the roles that manage integrations, see and manage them; other roles are told so and see
none (an endpoint receives the events of every site). A secret is shown once, in the page that
answers its creation or rotation (``Cache-Control: no-store``), and never again.
"""

from django.core.paginator import Paginator
from django.http import Http404
from django.urls import reverse

from inkwell.console.base import get_scoped, validated
from inkwell.console.views.forms import FormsView, submitted_values
from inkwell.tenancy.models import MANAGER_ROLES
from inkwell.webhooks import selectors, services
from inkwell.webhooks import serializers as s
from inkwell.webhooks.models import DeliveryStatus, EventType, WebhookDelivery, WebhookEndpoint

ENDPOINTS_PAGE_SIZE = 50
DELIVERIES_PAGE_SIZE = 20
EVENT_HINTS = {
    EventType.CONTENT_APPROVED: "An article was approved for publishing.",
    EventType.CONTENT_SCHEDULED: "An article was put on the publishing schedule.",
    EventType.CONTENT_PUBLISHED: "An article went live on its CMS.",
    EventType.CONTENT_PUBLISH_FAILED: "Publishing an article failed for good.",
    EventType.CONTENT_UPDATED: "An article's text, fields or status changed.",
    EventType.AUTOMATION_RUN_COMPLETED: "An automation run finished.",
    EventType.AUTOMATION_RUN_FAILED: "An automation run failed.",
}


def event_choices() -> list[dict]:
    return [{"value": value, "label": label, "hint": EVENT_HINTS[value]} for value, label in EventType.choices]


def read_endpoint(post) -> dict:
    """The endpoint form as typed (the secret is never part of it)."""
    return {"url": post.get("url", "").strip(), "description": post.get("description", "").strip(), "events": post.getlist("events")}


def shown_once(response):
    response["Cache-Control"] = "no-store"  # a secret must not stay in a cache
    return response


class WebhooksMixin:
    write_roles = MANAGER_ROLES

    def page(self, request, context, **kwargs):
        return super().page(request, {**context, "may_manage": request.user.role_name in MANAGER_ROLES, "event_choices": event_choices()}, **kwargs)


class WebhooksView(WebhooksMixin, FormsView):
    """The account's endpoints and, for owners and admins, registering one."""

    template_name = "console/pages/webhooks.html"

    def context(self, request, *, submitted=None) -> dict:
        if request.user.role_name not in MANAGER_ROLES:
            return {}
        endpoints = WebhookEndpoint.objects.for_account(request.account).defer("secret", "previous_secret").order_by("-created_at", "-id")
        page = Paginator(endpoints, ENDPOINTS_PAGE_SIZE).get_page(request.GET.get("page"))
        new = submitted_values(submitted, "endpoint", read_endpoint, {"url": "", "description": "", "events": []})
        return {"page_obj": page, "new": new}

    def save(self, request):
        data = validated(s.WebhookEndpointCreateInputSerializer, request, read_endpoint(request.POST))
        endpoint, secret = services.endpoint_create(account=request.account, **data)
        return shown_once(self.page(request, {**self.context(request), "form": "", "form_errors": {}, "created": {"endpoint": endpoint, "secret": secret}}, status=201))


class WebhookView(WebhooksMixin, FormsView):
    """One endpoint: its URL, events and switch, its delivery log (a page of deliveries, each with
    every attempt), and its actions: a test ping, a new secret, redelivering a failed delivery,
    removal."""

    model = WebhookEndpoint
    template_name = "console/pages/webhook.html"

    def endpoint(self, request, pk) -> WebhookEndpoint:
        return get_scoped(WebhookEndpoint, request, pk)

    def context(self, request, *, pk, submitted=None) -> dict:
        endpoint = self.endpoint(request, pk)
        if request.user.role_name not in MANAGER_ROLES:
            return {"endpoint": None}
        log = Paginator(selectors.delivery_log(endpoint=endpoint), DELIVERIES_PAGE_SIZE).get_page(request.GET.get("page"))
        values = submitted_values(submitted, "endpoint", read_endpoint, {"url": endpoint.url, "description": endpoint.description, "events": endpoint.events})
        return {"endpoint": endpoint, "page_obj": log, "values": values, "failed": DeliveryStatus.FAILED}

    def save(self, request, pk):
        endpoint = self.endpoint(request, pk)
        form = request.POST.get("form")
        here = reverse("console:webhook", kwargs={"pk": endpoint.pk})
        if form == "endpoint":
            data = validated(s.WebhookEndpointUpdateInputSerializer, request, read_endpoint(request.POST), partial=True)
            services.endpoint_update(endpoint=endpoint, **data)
            return self.done(request, here + "?saved=1")
        if form == "switch":
            services.endpoint_update(endpoint=endpoint, is_active=not endpoint.is_active)
            return self.done(request, here + ("?switched=on" if not endpoint.is_active else "?switched=off"))
        if form == "test":
            delivery = services.endpoint_test(endpoint=endpoint)
            return self.done(request, here + f"?tested={delivery.status}")
        if form == "redeliver":
            delivery_id = request.POST.get("delivery_id", "")
            try:
                delivery = selectors.delivery_of(endpoint=endpoint, delivery_id=int(delivery_id))
            except (WebhookDelivery.DoesNotExist, ValueError):
                raise Http404() from None
            services.delivery_redeliver(delivery=delivery)
            return self.done(request, here + "?redelivered=1")
        if form == "rotate":
            endpoint, secret = services.secret_rotate(endpoint=endpoint)
            context = {**self.context(request, pk=pk), "form": "", "form_errors": {}, "rotated": {"secret": secret, "until": endpoint.previous_secret_expires_at}}
            return shown_once(self.page(request, context))
        if form == "delete":
            services.endpoint_delete(endpoint=endpoint)
            return self.done(request, reverse("console:webhooks") + "?removed=1")
        raise Http404()
