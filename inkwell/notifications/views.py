from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound

from inkwell.api.envelope import ok
from inkwell.api.views import ApiView, validated
from inkwell.notifications import selectors, services
from inkwell.notifications import serializers as s
from inkwell.notifications.filters import NotificationFilter
from inkwell.notifications.models import Notification
from inkwell.tenancy.access import accessible_site_ids
from inkwell.tenancy.permissions import ALL_ROLES
from inkwell.tenancy.viewsets import AccountScopedViewSet


@extend_schema(tags=["notifications"])
class NotificationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    """The caller's notifications: the account's own plus those addressed to the caller, minus those
    of sites the caller cannot access and those the caller deleted. Every role reads them and keeps
    its own inbox: reading and deleting change the caller's view only."""

    queryset = Notification.objects.all()
    serializer_class = s.NotificationSerializer
    throttle_scope = "general"
    write_roles = ALL_ROLES
    filterset_class = NotificationFilter

    def scoped_queryset(self, queryset):
        return selectors.visible(queryset, user=self.request.user, site_ids=accessible_site_ids(self.request))

    def perform_destroy(self, instance):
        services.delete(account=self.request.account, notification_id=instance.pk, user=self.request.user)

    @extend_schema(request=None, responses={200: s.NotificationSerializer})
    @action(detail=True, methods=["post"])
    def read(self, request, pk=None):
        try:
            notification = services.mark_read(account=request.account, notification_id=self.get_object().pk, user=request.user)
        except Notification.DoesNotExist:
            # Deleted by the same caller in a concurrent request, after get_object found it.
            raise NotFound from None
        return ok(self.get_serializer(notification).data)

    @extend_schema(request=None, responses={200: s.ReadAllResultSerializer})
    @action(detail=False, methods=["post"], url_path="read-all", url_name="read-all")
    def read_all(self, request):
        updated = services.mark_all_read(account=request.account, user=request.user, site_ids=accessible_site_ids(request))
        return ok({"updated": updated})

    @extend_schema(responses={200: s.UnreadCountSerializer})
    @action(detail=False, methods=["get"], url_path="unread-count", url_name="unread-count", pagination_class=None)
    def unread_count(self, request):
        return ok({"count": selectors.unread_count(request.account, user=request.user, site_ids=accessible_site_ids(request))})


@extend_schema(tags=["notifications"])
class PreferencesView(ApiView):
    """The caller's own choice of channels (in the app, by e-mail) for the events addressed to
    them personally, such as being @mentioned in a comment (default: both)."""

    tenant_scope = "own_account"
    write_roles = ALL_ROLES
    human_only = True

    @extend_schema(responses={200: s.PreferenceSerializer(many=True)})
    def get(self, request):
        return ok(selectors.preferences_of(user=request.user))

    @extend_schema(request=s.PreferencesInputSerializer, responses={200: s.PreferenceSerializer(many=True)})
    def patch(self, request):
        """``{"preferences": [...]}``, or the list as the GET answers it (each item's label ignored)."""
        body = {"preferences": request.data} if isinstance(request.data, list) else None
        changes = validated(s.PreferencesInputSerializer, request, data=body)["preferences"]
        services.preferences_update(account=request.account, user=request.user, changes=changes)
        return ok(selectors.preferences_of(user=request.user))
