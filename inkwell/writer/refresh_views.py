"""Refreshes of live articles (issue #37): ``/writer/refreshes/``. Sending one (now or on the
schedule) is publishing's, at ``/writer/refreshes/{id}/send/``, ``schedule/`` and ``unschedule/``."""

from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action

from inkwell.api.envelope import created, ok
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import validated
from inkwell.writer import refresh_serializers as s
from inkwell.writer import services
from inkwell.writer.filters import RefreshFilter
from inkwell.writer.models import ContentRefresh
from inkwell.tenancy.models import CONTENT_REVIEWER_ROLES
from inkwell.writer.views import WriterViewSet


@extend_schema(tags=["writer"])
class RefreshViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, WriterViewSet):
    """New revisions of live articles. A refresh goes through review and approval like a draft;
    the live post and the article's row stay as they are until the refresh is sent."""

    queryset = ContentRefresh.objects.all()
    serializer_class = s.RefreshSerializer
    filterset_class = RefreshFilter

    @extend_schema(request=s.RefreshCreateInputSerializer, responses={201: s.RefreshSerializer, 409: ErrorEnvelopeSerializer})
    def create(self, request):
        """A draft refresh of a live article, starting from the article as it is. An article that
        is not live, or that has a refresh in the works already, is a 409."""
        values = validated(s.RefreshCreateInputSerializer, request)
        refresh = services.refresh_create(account=request.account, user=request.user, **values)
        return created(s.RefreshSerializer(refresh).data)

    @extend_schema(request=s.RefreshUpdateInputSerializer, responses={200: s.RefreshSerializer, 409: ErrorEnvelopeSerializer})
    def partial_update(self, request, pk=None):
        """Changes the text or moves the status (draft → review → approved, back to draft or
        review). A text change of an approved refresh sends it back to review. Scheduled, sending
        or sent: 409."""
        refresh = services.refresh_update(account=request.account, refresh=self.get_object(), user=request.user, **validated(s.RefreshUpdateInputSerializer, request, partial=True))
        return ok(s.RefreshSerializer(refresh).data)

    @extend_schema(request=None, responses={200: s.RefreshSerializer, 409: ErrorEnvelopeSerializer, 422: ErrorEnvelopeSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_REVIEWER_ROLES)
    def approve(self, request, pk=None):
        """Approves a refresh in review, as owners, admins, editors and reviewers may, under the
        site's four-eyes rule (422 ``four_eyes``); not in review: 409."""
        refresh = services.refresh_approve(account=request.account, refresh=self.get_object(), user=request.user)
        return ok(s.RefreshSerializer(refresh).data)

    @extend_schema(request=None, responses={200: s.RefreshSerializer, 409: ErrorEnvelopeSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_REVIEWER_ROLES)
    def request_changes(self, request, pk=None):
        """Sends a refresh in review back to draft, as owners, admins, editors and reviewers may; not in review: 409."""
        refresh = services.refresh_request_changes(account=request.account, refresh=self.get_object(), user=request.user)
        return ok(s.RefreshSerializer(refresh).data)
