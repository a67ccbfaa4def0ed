"""Review together (#36, contract section 12): a content's comments and review links, under
``/writer/content/{id}/``. The content is found the way every writer route finds it (the
account's, narrowed to the caller's sites), so another account's content answers 404."""

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from inkwell.api.envelope import created, ok
from inkwell.api.views import validated
from inkwell.tenancy.access import restrict_to_accessible_sites
from inkwell.tenancy.models import CONTENT_REVIEWER_ROLES, CONTENT_WRITER_ROLES
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.writer import review_serializers as s
from inkwell.writer import selectors, services
from inkwell.writer.models import Content, ContentComment, ReviewLink

CONTENT_PARAMETER = OpenApiParameter("content_pk", int, OpenApiParameter.PATH, description="The content's id.")


def review_link_url(request):
    """The absolute address of a link's public page."""
    return lambda link: request.build_absolute_uri(reverse("review:page", kwargs={"token": link.token}))


def origin_of(request) -> str:
    """The scheme and host the caller reached us on, for links in e-mails."""
    return request.build_absolute_uri("/").rstrip("/")


class ContentChildViewSet(AccountScopedViewSet):
    """Rows of one content, addressed under it."""

    module = "writer"
    throttle_scope = "content"
    write_roles = CONTENT_WRITER_ROLES

    def content(self) -> Content:
        if not hasattr(self, "_content"):
            contents = restrict_to_accessible_sites(Content.objects.for_account(self.request.account), self.request)
            self._content = get_object_or_404(contents.select_related("site"), pk=self.kwargs["content_pk"])
        return self._content

    def scoped_queryset(self, queryset):
        return queryset.filter(content=self.content())


@extend_schema(tags=["writer"], parameters=[CONTENT_PARAMETER])
class CommentViewSet(mixins.ListModelMixin, ContentChildViewSet):
    """Comments on a content: on a passage (``anchor``) or the whole article, threaded replies
    (``parent_id``), resolved and reopened (``resolved``), ``@email`` mentions of teammates.
    Owners, admins, editors and reviewers comment; every role reads."""

    queryset = ContentComment.objects.all()
    serializer_class = s.CommentSerializer
    write_roles = CONTENT_REVIEWER_ROLES
    filter_backends = []

    def scoped_queryset(self, queryset):
        queryset = super().scoped_queryset(queryset)
        if self.action == "list":
            return selectors.comments_of(account=self.request.account, content=self.content(), reader=self.request.user)
        return queryset

    def _answer(self, comment: ContentComment) -> dict:
        return s.CommentSerializer(selectors.comments_of(account=self.request.account, content=self.content(), reader=self.request.user).get(pk=comment.pk)).data

    @extend_schema(request=s.CommentCreateInputSerializer, responses={201: s.CommentSerializer})
    def create(self, request, content_pk=None):
        data = validated(s.CommentCreateInputSerializer, request)
        content = self.content()
        parent = None
        if data.get("parent_id"):
            parent = ContentComment.objects.for_account(request.account).filter(content=content, pk=data["parent_id"]).first()
            if parent is None:
                raise ValidationError({"parent_id": ["The comment replied to must be on the same content"]})
        comment = services.comment_create(
            account=request.account, content=content, body=data["body"], user=request.user, anchor=data.get("anchor"), parent=parent, origin=origin_of(request)
        )
        return created(self._answer(comment))

    @extend_schema(request=s.CommentUpdateInputSerializer, responses={200: s.CommentSerializer})
    def partial_update(self, request, content_pk=None, pk=None):
        """Change the text (its author only; ``edited_at`` records when, and teammates it newly
        @mentions are told) or resolve / reopen the thread (``resolved``)."""
        comment = self.get_object()
        comment = services.comment_update(
            account=request.account, comment=comment, user=request.user, origin=origin_of(request), **validated(s.CommentUpdateInputSerializer, request)
        )
        return ok(self._answer(comment))

    @extend_schema(request=None, responses={204: None})
    def destroy(self, request, content_pk=None, pk=None):
        """Delete a comment (its author, an owner or an admin); a thread goes with its first comment."""
        services.comment_delete(comment=self.get_object(), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={200: None})
    def read(self, request, content_pk=None):
        """Marks every comment of the content read for the caller (``unread`` becomes false)."""
        services.comments_mark_read(account=request.account, content=self.content(), user=request.user)
        return ok({"unread": 0})


@extend_schema(tags=["writer"], parameters=[CONTENT_PARAMETER])
class ReviewLinkViewSet(mixins.ListModelMixin, ContentChildViewSet):
    """Links that open the content's preview and comments without signing in: signed, expiring
    (14 days unless ``expires_at``), optionally behind a ``passcode``, revoked with DELETE (the
    address then answers 410). Owners, admins and editors make them."""

    queryset = ReviewLink.objects.all()
    serializer_class = s.ReviewLinkSerializer
    filter_backends = []

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "link_url": review_link_url(self.request)}

    @extend_schema(request=s.ReviewLinkCreateInputSerializer, responses={201: s.ReviewLinkSerializer})
    def create(self, request, content_pk=None):
        data = validated(s.ReviewLinkCreateInputSerializer, request)
        link = services.review_link_create(
            account=request.account, content=self.content(), user=request.user, expires_at=data.get("expires_at"), passcode=data.get("passcode") or ""
        )
        return created(self.get_serializer(link).data, secret=True)

    def list(self, request, *args, **kwargs):
        response = super().list(request, *args, **kwargs)
        response["Cache-Control"] = "no-store"
        return response

    @extend_schema(request=None, responses={204: None})
    def destroy(self, request, content_pk=None, pk=None):
        """Revokes the link: its address answers 410 from now on."""
        services.review_link_revoke(link=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)
