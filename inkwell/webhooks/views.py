"""/webhooks/: the account's outbound webhook endpoints, their delivery log, redelivery, the test
ping and secret rotation (docs/api.md, "Webhooks").

Roles: the roles that manage integrations (owners and admins) read and manage them; an endpoint
receives the events of every site of the account, so editors and viewers, who may be limited to
some sites, do not see them, and neither does an API key bound to a site.
"""

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from inkwell.api.envelope import created, ok
from inkwell.api.views import validated
from inkwell.tenancy.models import MANAGER_ROLES, ApiKey
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.webhooks import selectors, services
from inkwell.webhooks import serializers as s
from inkwell.webhooks.models import WebhookDelivery, WebhookEndpoint


class NotSiteBoundKey(BasePermission):
    """An API key bound to one site sees nothing of the account-wide webhooks."""

    def has_permission(self, request, view) -> bool:
        if isinstance(request.auth, ApiKey) and request.auth.site_id is not None:
            raise PermissionDenied()
        return True


@extend_schema(tags=["webhooks"])
class WebhookEndpointViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    """Outbound webhook endpoints of the caller's account. The secret is never shown but in the
    answers that make one (create, ``rotate_secret``)."""

    queryset = WebhookEndpoint.objects.all()
    serializer_class = s.WebhookEndpointSerializer
    throttle_scope = "general"
    read_roles = MANAGER_ROLES
    write_roles = MANAGER_ROLES

    def scoped_queryset(self, queryset):
        # Reads show no secret: none is decrypted for them.
        return queryset.defer("secret", "previous_secret") if self.action in ("list", "retrieve", "deliveries") else queryset

    def get_permissions(self):
        return [*super().get_permissions(), NotSiteBoundKey()]

    @extend_schema(request=s.WebhookEndpointCreateInputSerializer, responses={201: s.WebhookEndpointCreatedSerializer})
    def create(self, request):
        """Registers a URL for the events it names. The answer holds the endpoint's `secret`,
        which is never shown again. The URL passes the CMS's address guard (400 when refused)."""
        endpoint, secret = services.endpoint_create(account=request.account, **validated(s.WebhookEndpointCreateInputSerializer, request))
        endpoint.secret = secret
        return created(s.WebhookEndpointCreatedSerializer(endpoint).data)

    @extend_schema(request=s.WebhookEndpointUpdateInputSerializer, responses={200: s.WebhookEndpointSerializer})
    def partial_update(self, request, pk=None):
        """Changes the URL, events, description or `is_active` (what is left out stays)."""
        endpoint = services.endpoint_update(endpoint=self.get_object(), **validated(s.WebhookEndpointUpdateInputSerializer, request, partial=True))
        return ok(self.get_serializer(endpoint).data)

    def perform_destroy(self, instance):
        services.endpoint_delete(endpoint=instance)

    @extend_schema(request=None, responses={200: s.WebhookDeliverySerializer(many=True)})
    @action(detail=True, methods=["get"], filter_backends=[])
    def deliveries(self, request, pk=None):
        """The endpoint's deliveries, newest first, each with every attempt: its outcome, the
        answer's status code, how long it took and the first 500 characters of its body."""
        log = selectors.delivery_log(endpoint=self.get_object())
        return self.get_paginated_response(s.WebhookDeliverySerializer(self.paginate_queryset(log), many=True).data)

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter("delivery_id", int, OpenApiParameter.PATH)],
        responses={202: s.WebhookDeliverySerializer},
    )
    @action(detail=True, methods=["post"], url_path=r"deliveries/(?P<delivery_id>[0-9]+)/redeliver")
    def redeliver(self, request, pk=None, delivery_id=None):
        """Sends a `failed` delivery again (one more attempt, as soon as a worker takes it; the
        same `webhook-id`). 409 for a delivery that has not failed or an endpoint switched off."""
        try:
            delivery = selectors.delivery_of(endpoint=self.get_object(), delivery_id=delivery_id)
        except WebhookDelivery.DoesNotExist:
            raise Http404() from None
        delivery = services.delivery_redeliver(delivery=delivery)
        return ok(s.WebhookDeliverySerializer(selectors.delivery_of(endpoint=delivery.endpoint, delivery_id=delivery.pk)).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={200: s.WebhookDeliverySerializer})
    @action(detail=True, methods=["post"])
    def test(self, request, pk=None):
        """Sends a `webhook.test` message now and answers with its delivery and one attempt
        (200 whether the receiver accepted it or not: see `status` and `attempt_log`)."""
        endpoint = self.get_object()
        delivery = services.endpoint_test(endpoint=endpoint)
        return ok(s.WebhookDeliverySerializer(selectors.delivery_of(endpoint=endpoint, delivery_id=delivery.pk)).data)

    @extend_schema(request=None, responses={200: s.SecretRotatedSerializer})
    @action(detail=True, methods=["post"])
    def rotate_secret(self, request, pk=None):
        """A new secret, shown in this answer only. The previous one keeps signing beside it until
        `previous_secret_expires_at` (`WEBHOOK_SECRET_OVERLAP_HOURS`), then stops."""
        endpoint, secret = services.secret_rotate(endpoint=self.get_object())
        return ok(s.SecretRotatedSerializer({"secret": secret, "previous_secret_expires_at": endpoint.previous_secret_expires_at}).data)
