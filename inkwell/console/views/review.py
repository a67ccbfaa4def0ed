"""Review together (#36) in the console: the article as readers will see it beside its comments,
approvals and review links (``/app/content/<id>/review/``), and the public page that a review
link opens without signing in (``/review/<token>/``)."""

from datetime import timedelta

from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions

from inkwell.api import throttling
from inkwell.api.exceptions import GENERAL_MESSAGES
from inkwell.console.base import ConsoleView, get_scoped, refusal_messages, remember_site, render_page, scoped, validated
from inkwell.console.views.forms import FormSubmission
from inkwell.publishing.preview import content_preview
from inkwell.sitesettings.selectors import effective_settings
from inkwell.tenancy.models import CONTENT_REVIEWER_ROLES, MANAGER_ROLES
from inkwell.writer import review_serializers as review_s
from inkwell.writer import selectors, services
from inkwell.writer.models import Content, ContentComment, ContentStatus, ReviewDecision, ReviewLink

UNLOCK_SALT = "inkwell.console.review-unlocked"
PUBLIC_HEADERS = {
    "X-Robots-Tag": "noindex, nofollow, noarchive",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def threads_of(comments) -> list[dict]:
    """Comments as threads: each first comment with its replies, in the order they were written."""
    threads, by_id = [], {}
    for comment in comments:
        if comment.parent_id is None:
            by_id[comment.pk] = {"comment": comment, "replies": []}
            threads.append(by_id[comment.pk])
    for comment in comments:
        if comment.parent_id is not None and comment.parent_id in by_id:
            by_id[comment.parent_id]["replies"].append(comment)
    return threads


def comment_input(request) -> dict:
    """The comment form's fields as the API's body: ``body``, ``anchor`` when a passage was chosen, ``parent_id``."""
    data = {"body": request.POST.get("body", "")}
    quote = request.POST.get("quote", "").strip()
    if quote:
        start = request.POST.get("start", "0")
        start = int(start) if start.isdigit() else 0
        data["anchor"] = {"quote": quote, "start": start, "end": start + len(quote)}
    parent = request.POST.get("parent_id", "")
    if parent.isdigit():
        data["parent_id"] = int(parent)
    return data


def _parent(account, content, data) -> ContentComment | None:
    if not data.get("parent_id"):
        return None
    parent = ContentComment.objects.for_account(account).filter(content=content, pk=data["parent_id"]).first()
    if parent is None:
        raise exceptions.ValidationError({"parent_id": ["The comment replied to must be on the same content"]})
    return parent


# The team's side


def review_of(request, pk) -> Content:
    return get_scoped(Content, request, pk, queryset=scoped(Content, request).select_related("site"))


class ContentReviewView(ConsoleView):
    """The review screen: the preview (page, search result, social card; desktop and phone), the
    comments with their threads, unread markers and mentions, the approvals and the review links."""

    module = "writer"
    model = Content
    template_name = "console/pages/review.html"

    def get(self, request, pk):
        content = review_of(request, pk)
        response = self.page(request, review_context(request, content))
        # What was shown is read now; the markers showed what was new to this visit.
        services.comments_mark_read(account=request.account, content=content, user=request.user)
        return response


def review_context(request, content: Content, *, submitted=None) -> dict:
    """The review screen of ``content``; after a refused comment, decision or review link, with
    what was typed in its form (``values``: the comment, the note, the link's days; never the passcode)."""
    remember_site(request, content.site_id)
    comments = list(selectors.comments_of(account=request.account, content=content, reader=request.user))
    role = request.user.role_name
    return {
        "site": content.site,
        "content": content,
        "preview": content_preview(content=content),
        "threads": threads_of(comments),
        "unread": sum(1 for comment in comments if comment.unread),
        "approvals": list(selectors.approvals_of(account=request.account, content=content)[:20]),
        "links": list(selectors.review_links_of(account=request.account, content=content)[:20]) if role in ContentReviewView.write_roles else [],
        "rules": effective_settings(site=content.site).review,
        "may_comment": role in CONTENT_REVIEWER_ROLES,
        "mention_suggestions": selectors.mention_suggestions(account=request.account, site_id=content.site_id, reader=request.user) if role in CONTENT_REVIEWER_ROLES else [],
        "may_share": role in ContentReviewView.write_roles,
        "may_decide": role in CONTENT_REVIEWER_ROLES and content.status == ContentStatus.REVIEW,
        "may_manage": role in MANAGER_ROLES,
        "now": timezone.now(),
        "new_link": request.session.pop("review_link_created", None),
        "values": {name: submitted.get(name, "") for name in ("body", "note", "days")} if submitted is not None else {"days": "14"},
    }


class ReviewForm(FormSubmission):
    """A form of the review screen: a refusal shows the screen again with what was typed."""

    module = "writer"
    model = Content
    template_name = ContentReviewView.template_name
    field_anchors = {"body": "comment-body", "anchor": "comment-body", "parent_id": "comment-body", "note": "note", "passcode": "link-passcode", "expires_at": "link-days"}
    field_labels = {"body": "Comment", "anchor": "Passage", "parent_id": "Reply", "note": "What should change", "expires_at": "Expires after"}

    def context(self, request, *, pk, submitted) -> dict:
        return review_context(request, review_of(request, pk), submitted=submitted)


def _back_to_review(content_id: int, anchor: str = "") -> str:
    return reverse("console:content-review", kwargs={"pk": content_id}) + anchor


class CommentCreateView(ReviewForm):
    """A team member's comment, reply or passage comment (the API's rules and mentions)."""

    write_roles = CONTENT_REVIEWER_ROLES

    def save(self, request, pk):
        content = review_of(request, pk)
        data = validated(review_s.CommentCreateInputSerializer, request, comment_input(request))
        comment = services.comment_create(
            account=request.account,
            content=content,
            body=data["body"],
            user=request.user,
            anchor=data.get("anchor"),
            parent=_parent(request.account, content, data),
            origin=request.build_absolute_uri("/").rstrip("/"),
        )
        return self.done(request, _back_to_review(content.pk, f"#comment-{comment.pk}"))


class CommentResolveView(ConsoleView):
    """Resolves a thread, or reopens it (``resolved`` 1 or 0)."""

    module = "writer"
    model = ContentComment
    write_roles = CONTENT_REVIEWER_ROLES

    def post(self, request, pk):
        comment = get_scoped(ContentComment, request, pk)
        services.comment_update(account=request.account, comment=comment, user=request.user, resolved=request.POST.get("resolved") == "1")
        return self.done(request, _back_to_review(comment.content_id, f"#comment-{comment.pk}"))


class CommentEditView(ConsoleView):
    """Its author changes a comment's text (the API's rule: nobody else may)."""

    module = "writer"
    model = ContentComment
    write_roles = CONTENT_REVIEWER_ROLES

    def post(self, request, pk):
        comment = get_scoped(ContentComment, request, pk)
        data = validated(review_s.CommentUpdateInputSerializer, request, {"body": request.POST.get("body", "")})
        services.comment_update(account=request.account, comment=comment, user=request.user, body=data["body"], origin=request.build_absolute_uri("/").rstrip("/"))
        return self.done(request, _back_to_review(comment.content_id, f"#comment-{comment.pk}"))


class CommentDeleteView(ConsoleView):
    module = "writer"
    model = ContentComment
    write_roles = CONTENT_REVIEWER_ROLES

    def post(self, request, pk):
        comment = get_scoped(ContentComment, request, pk)
        services.comment_delete(comment=comment, user=request.user)
        return self.done(request, _back_to_review(comment.content_id, "#comments"))


class ContentDecisionView(ReviewForm):
    """Approve (under the site's rules) or request changes, as owners, admins, editors and reviewers may."""

    write_roles = CONTENT_REVIEWER_ROLES

    def save(self, request, pk):
        content = review_of(request, pk)
        if request.POST.get("decision") == ReviewDecision.APPROVED:
            services.content_approve(account=request.account, content=content, user=request.user)
        else:
            note = validated(review_s.RequestChangesInputSerializer, request, {"note": request.POST.get("note", "")}).get("note", "")
            services.content_request_changes(account=request.account, content=content, user=request.user, note=note)
        return self.done(request, _back_to_review(content.pk))


class ReviewLinkCreateView(ReviewForm):
    """A new review link; its address is shown once on the review screen (and kept for copying)."""

    def save(self, request, pk):
        content = review_of(request, pk)
        values = {"passcode": request.POST.get("passcode", "")}
        days = request.POST.get("days", "")
        if days.isdigit():
            values["expires_at"] = (timezone.now() + timedelta(days=int(days))).isoformat()
        data = validated(review_s.ReviewLinkCreateInputSerializer, request, values)
        link = services.review_link_create(
            account=request.account, content=content, user=request.user, expires_at=data.get("expires_at"), passcode=data.get("passcode") or ""
        )
        request.session["review_link_created"] = link.pk
        return self.done(request, _back_to_review(content.pk, "#links"))


class ReviewLinkRevokeView(ConsoleView):
    module = "writer"
    model = ReviewLink

    def post(self, request, pk):
        link = get_scoped(ReviewLink, request, pk)
        services.review_link_revoke(link=link)
        return self.done(request, _back_to_review(link.content_id, "#links"))


# The public page of a review link


def _public(response: HttpResponse) -> HttpResponse:
    for name, value in PUBLIC_HEADERS.items():
        response[name] = value
    return response


def _client_ip(request) -> str:
    return request.META.get("REMOTE_ADDR", "")


@method_decorator(csrf_exempt, name="dispatch")
class PublicReviewView(View):
    """What a review link opens, and nothing else: the preview and comments of its one content.

    Unknown or tampered tokens answer 404, revoked or expired links 410; a passcode, when the link
    has one, is asked first (attempts are rate-limited per link and address). Every answer says
    ``noindex``, sends no referrer and is not stored. The forms post back under the same token.

    No CSRF token: the secret in the address is the credential, which a forged request from
    another site cannot know, and the one cookie (the passcode's) is ``SameSite=Strict``. Django's
    check would refuse these forms anyway, since ``no-referrer`` makes the browser send
    ``Origin: null``.
    """

    tenant_scope = "public"
    throttle_scope = "review"

    def dispatch(self, request, token, *args, **kwargs):
        if not throttling.allow(scope=self.throttle_scope, ident=f"ip:{_client_ip(request)}"):
            return self.answer(request, "console/review/ended.html", {"status": 429, "message": GENERAL_MESSAGES[429]}, status=429)
        try:
            self.link = selectors.review_link_for_token(token=token)
        except selectors.ReviewLinkUnknown:
            return self.answer(request, "console/review/ended.html", {"status": 404, "message": "There is no review at this address."}, status=404)
        except selectors.ReviewLinkEnded:
            return self.answer(request, "console/review/ended.html", {"status": 410, "message": "This review link has expired or was withdrawn. Ask for a new one."}, status=410)
        self.token = token
        self.content = self.link.content
        if self.link.has_passcode and not self.unlocked(request) and not getattr(self, "opens_locked", False):
            return self.locked(request)
        try:
            return super().dispatch(request, *args, **kwargs)
        except exceptions.APIException as exc:
            error, errors = refusal_messages(exc)
            return self.show(request, status=exc.status_code, error=error, errors=errors)

    def cookie_name(self) -> str:
        return f"review-{self.link.pk}"

    def unlocked(self, request) -> bool:
        value = request.get_signed_cookie(self.cookie_name(), default=None, salt=UNLOCK_SALT)
        # The cookie names the passcode it was opened with: a new passcode locks the link again.
        return value == self.link.passcode_hash[-16:]

    def locked(self, request, *, status: int = 200, error: str = "") -> HttpResponse:
        return self.answer(request, "console/review/passcode.html", {"error": error}, status=status)

    def answer(self, request, template: str, context: dict, *, status: int = 200) -> HttpResponse:
        context = {**context, "token": getattr(self, "token", ""), "link": getattr(self, "link", None)}
        return _public(render_page(request, template, context, status=status))

    def show(self, request, *, status: int = 200, error: str = "", errors: dict | None = None, done: str = "") -> HttpResponse:
        content = self.content
        comments = list(selectors.comments_of(account=content.account_id, content=content))
        return self.answer(
            request,
            "console/review/page.html",
            {
                "content": content,
                "site": content.site,
                "preview": content_preview(content=content),
                "threads": threads_of(comments),
                "error": error,
                "errors": errors or {},
                "values": request.POST if request.method == "POST" else {},
                "name": request.POST.get("name", "") or request.COOKIES.get("review-name", ""),
                "done": done or request.GET.get("done", ""),
                "public": True,
                "may_comment": True,
            },
            status=status,
        )

    def back(self, anchor: str = "", done: str = "") -> HttpResponse:
        url = reverse("review:page", kwargs={"token": self.token}) + (f"?done={done}" if done else "") + anchor
        return _public(redirect(url))

    def get(self, request):
        return self.show(request)


class PublicPasscodeView(PublicReviewView):
    opens_locked = True

    def post(self, request):
        if not self.link.has_passcode:
            return self.back()
        if not throttling.allow(scope="review_passcode", ident=f"link:{self.link.pk}:ip:{_client_ip(request)}"):
            return self.locked(request, status=429, error="Too many attempts. Wait a minute, then try again.")
        if not selectors.review_link_passcode_holds(link=self.link, passcode=request.POST.get("passcode", "")):
            return self.locked(request, status=403, error="That passcode is not right.")
        response = self.back()
        response.set_signed_cookie(
            self.cookie_name(),
            self.link.passcode_hash[-16:],
            salt=UNLOCK_SALT,
            max_age=max(0, int((self.link.expires_at - timezone.now()).total_seconds())),
            path=reverse("review:page", kwargs={"token": self.token}),
            secure=request.is_secure(),
            httponly=True,
            samesite="Strict",
        )
        return response


def _remember_name(response: HttpResponse, request, name: str, token: str) -> HttpResponse:
    response.set_cookie("review-name", name[:100], max_age=30 * 86400, path=reverse("review:page", kwargs={"token": token}), httponly=True, samesite="Strict", secure=request.is_secure())
    return response


class PublicCommentView(PublicReviewView):
    def post(self, request):
        data = validated(review_s.CommentCreateInputSerializer, request, comment_input(request))
        name = request.POST.get("name", "")
        comment = services.comment_create(
            account=self.content.account,
            content=self.content,
            body=data["body"],
            reviewer_name=name,
            review_link=self.link,
            anchor=data.get("anchor"),
            parent=_parent(self.content.account_id, self.content, data),
        )
        return _remember_name(self.back(f"#comment-{comment.pk}"), request, comment.author_name, self.token)


class PublicDecisionView(PublicReviewView):
    def post(self, request):
        decision = request.POST.get("decision", "")
        approval = services.review_link_decide(link=self.link, reviewer_name=request.POST.get("name", ""), decision=decision, note=request.POST.get("note", ""))
        return _remember_name(self.back("#decision", done=approval.decision), request, approval.reviewer_name, self.token)
