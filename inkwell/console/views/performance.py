"""Search performance of a site (issue #37): the Performance screen (totals over time, the
opportunities, decaying articles, articles due for review, the import of a Search Console export),
the refreshes of live articles with their review and sending, and an article's review.

Every rule is the domains': the import and the opportunities (``performance.services`` and
``selectors``), the refresh's workflow (``writer.services``) and its sending (``publishing.services``).
"""

from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.paginator import Paginator
from django.urls import reverse
from django.utils import timezone


from inkwell.api.exceptions import OutsidePublishingRules, PayloadTooLarge
from inkwell.billing.services import cost_of
from inkwell.console.base import (
    ConsoleView,
    get_scoped,
    remember_site,
    scoped,
    validated,
)
from inkwell.console.views.calendar import LOCAL_INPUT_FORMAT, chosen_instant
from inkwell.console.views.forms import FormsView, FormSubmission, outside_the_rules
from inkwell.console.views.library import SiteView
from inkwell.console.views.planner import job_started
from inkwell.optimizer import services as optimizer_services
from inkwell.performance import selectors, services
from inkwell.performance import serializers as performance_s
from inkwell.performance.models import SearchPerformanceImport
from inkwell.publishing import services as publishing
from inkwell.sitesettings.selectors import effective_settings
from inkwell.tenancy.models import CONTENT_REVIEWER_ROLES
from inkwell.writer import refresh_serializers as refresh_s
from inkwell.writer import services as writer_services
from inkwell.writer.models import (
    Content,
    ContentRefresh,
    ContentStatus,
    RefreshSendStatus,
)
from inkwell.writer.services import TRANSITIONS

DUE_PAGE_SIZE = 20
IMPORTS_LISTED = 10
REFRESH_TRANSITION_LABELS = {
    (ContentStatus.DRAFT, ContentStatus.REVIEW): "Send to review",
    (ContentStatus.REVIEW, ContentStatus.APPROVED): "Approve",
    (ContentStatus.REVIEW, ContentStatus.DRAFT): "Back to draft",
    (ContentStatus.APPROVED, ContentStatus.REVIEW): "Back to review",
}


def totals_chart(totals: dict) -> dict:
    """The site's chart: clicks and impressions by day (Dates.csv), else by imported period."""
    if totals["days"]:
        return {
            "labels": [row["day"].isoformat() for row in totals["days"]],
            "clicks": [row["clicks"] for row in totals["days"]],
            "impressions": [row["impressions"] for row in totals["days"]],
            "by": "day",
        }
    return {
        "labels": [f"{row['start_date']:%d %b} – {row['end_date']:%d %b %Y}" for row in totals["periods"]],
        "clicks": [row["clicks"] for row in totals["periods"]],
        "impressions": [row["impressions"] for row in totals["periods"]],
        "by": "period",
    }


def article_chart(performance: dict) -> dict:
    periods = performance["periods"]
    return {
        "labels": [f"{row['start_date']:%d %b} – {row['end_date']:%d %b %Y}" for row in periods],
        "clicks": [row["clicks"] for row in periods],
        "impressions": [row["impressions"] for row in periods],
        "ctr": [round(row["ctr"] * 100, 2) for row in periods],
        "position": [row["position"] for row in periods],
        "by": "period",
    }


class PerformanceView(SiteView):
    """A site's search performance and what to do about it."""

    module = "optimizer"
    template_name = "console/pages/performance.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        totals = selectors.site_totals(site=site)
        current, previous = selectors.current_and_previous(site=site)
        due = Paginator(selectors.due_for_review(site=site), DUE_PAGE_SIZE).get_page(request.GET.get("page"))
        open_refreshes = dict(
            scoped(ContentRefresh, request).filter(site=site).exclude(send_status=RefreshSendStatus.SENT).values_list("content_id", "pk")
        )
        imports = scoped(SearchPerformanceImport, request).filter(site=site).order_by("-updated_at", "-id")[:IMPORTS_LISTED]
        chart = totals_chart(totals)
        striking = [{**item.__dict__, "reason": item.reason, "refresh_id": open_refreshes.get(item.content_id)} for item in selectors.striking_distance(site=site)]
        decaying = [
            {**item, "reason": f"Decaying: clicks down {item['drop_pct']}% against the previous period", "refresh_id": open_refreshes.get(item["content_id"])}
            for item in selectors.decaying_articles(site=site)
        ]
        cannibalization = selectors.cannibalization(site=site)
        for item in cannibalization:
            for article in item["articles"]:
                article["reason"] = f"Competes with a stronger article for “{item['query']}”: differentiate it or merge the two"
                article["refresh_id"] = open_refreshes.get(article["content_id"])
        for item in due:
            item["refresh_id"] = open_refreshes.get(item["content_id"])
        return self.page(
            request,
            {
                "site": site,
                "totals": totals,
                "chart": chart,
                "chart_rows": list(zip(chart["labels"], chart["clicks"], chart["impressions"], strict=True)),
                "current": current,
                "previous": previous,
                "striking": striking,
                "decaying": decaying,
                "cannibalization": cannibalization,
                "page_obj": due,
                "imports": imports,
                "settings": effective_settings(site=site).performance,
                "max_upload_mb": settings.SEARCH_PERFORMANCE_MAX_UPLOAD_BYTES // (1024 * 1024),
                "imported": request.GET.get("imported"),
            },
        )


class PerformanceImportView(SiteView):
    """Imports one Search Console export for the site and a period (the API's door and rules)."""

    module = "optimizer"

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        upload = request.FILES.get("file")
        if upload is not None and upload.size > settings.SEARCH_PERFORMANCE_MAX_UPLOAD_BYTES:
            raise PayloadTooLarge()
        values = validated(
            performance_s.ImportInputSerializer,
            request,
            {"file": upload, "start_date": request.POST.get("start_date", ""), "end_date": request.POST.get("end_date", ""), "dimensions": request.POST.get("dimensions", "")},
        )
        outcome = services.search_performance_import(
            account=request.account,
            site=site,
            data=values["file"].read(),
            filename=values["file"].name or "",
            start_date=values["start_date"],
            end_date=values["end_date"],
            dimensions=values.get("dimensions", ""),
            user=request.user,
        )
        url = reverse("console:performance", kwargs={"site_id": site.pk})
        return self.done(request, f"{url}?imported={outcome.imported}#imports")


def content_of(request, pk) -> Content:
    return get_scoped(Content, request, pk, queryset=scoped(Content, request).select_related("site"))


def refresh_of(request, pk) -> ContentRefresh:
    return get_scoped(ContentRefresh, request, pk, queryset=scoped(ContentRefresh, request).select_related("content", "site"))


class StartRefreshView(ConsoleView):
    """An opportunity (or a person) starts a refresh of a live article: a draft that says why."""

    module = "writer"
    model = Content

    def post(self, request, pk):
        content = content_of(request, pk)
        reason = request.POST.get("reason", "")[:500]
        refresh = services.refresh_from_opportunity(account=request.account, content=content, reason=reason, user=request.user)
        return self.done(request, reverse("console:refresh", kwargs={"pk": refresh.pk}))


REFRESH_FIELDS = ("title", "html", "meta_title", "meta_description")


class RefreshView(FormsView):
    """A refresh of a live article: its text, its review, and sending it now or at a time. A
    refused save shows the page again with the text typed and the messages beside the fields."""

    module = "writer"
    model = ContentRefresh
    template_name = "console/pages/refresh.html"

    def context(self, request, *, pk, submitted=None) -> dict:
        return refresh_context(self, request, pk=pk, submitted=submitted)

    def save(self, request, pk):
        refresh = refresh_of(request, pk)
        values = {name: request.POST.get(name, "") for name in REFRESH_FIELDS}
        data = validated(refresh_s.RefreshUpdateInputSerializer, request, values, partial=True)
        writer_services.refresh_update(account=request.account, refresh=refresh, user=request.user, **data)
        return self.done(request, reverse("console:refresh", kwargs={"pk": refresh.pk}) + "?saved=1")


def refresh_context(view: ConsoleView, request, *, pk, submitted=None) -> dict:
    """The refresh page; after a refused save or send, with what was typed (the text, or the time)."""
    refresh = refresh_of(request, pk)
    remember_site(request, refresh.site_id)
    may_write = request.user.role_name in view.write_roles
    may_decide = may_write or request.user.role_name in CONTENT_REVIEWER_ROLES
    editable = refresh.send_status in (RefreshSendStatus.NOT_SENT, RefreshSendStatus.FAILED)
    transitions = [
        (status, REFRESH_TRANSITION_LABELS[(refresh.status, status)])
        for status in sorted(TRANSITIONS.get(refresh.status, ()))
        if (refresh.status, status) in REFRESH_TRANSITION_LABELS and (may_write or (refresh.status, status) in writer_services.REFRESH_REVIEWER_DECISIONS)
    ]
    tz = refresh.site.time_zone
    typed_text = submitted is not None and "title" in submitted
    return {
        "site": refresh.site,
        "refresh": refresh,
        "content": refresh.content,
        "values": {name: submitted.get(name, "") if typed_text else getattr(refresh, name) for name in REFRESH_FIELDS},
        "chosen_at": submitted.get("at", "") if submitted is not None else "",
        "may_edit": may_write and editable,
        "transitions": transitions if may_decide and editable else [],
        "min_local": timezone.now().astimezone(ZoneInfo(tz)).strftime(LOCAL_INPUT_FORMAT),
        "scheduled_local": refresh.scheduled_at.astimezone(ZoneInfo(tz)) if refresh.scheduled_at else None,
        "records": refresh.publishing_records.order_by("-created_at", "-id")[:10],
        "ai_cost": cost_of(operation_type=optimizer_services.OPERATION, units=1),
    }


class RefreshStatusView(ConsoleView):
    """Moves a refresh through review. A reviewer decides on one in review (approve, or back to
    draft), as on an article; the other moves are the writers'."""

    module = "writer"
    model = ContentRefresh
    write_roles = CONTENT_REVIEWER_ROLES

    def post(self, request, pk):
        refresh = refresh_of(request, pk)
        data = validated(refresh_s.RefreshUpdateInputSerializer, request, {"status": request.POST.get("status", "")}, partial=True)
        writer_services.refresh_move(account=request.account, refresh=refresh, user=request.user, status=data.get("status", refresh.status))
        return self.done(request, reverse("console:refresh", kwargs={"pk": refresh.pk}))


class RefreshSendView(FormSubmission):
    """Sends the approved refresh now, or schedules it at a wall-clock time of the site (``at``);
    a refused time shows the refresh again with the time typed beside the message."""

    module = "publisher"
    model = ContentRefresh
    template_name = RefreshView.template_name
    field_anchors = {"scheduled_at": "refresh-at"}
    field_labels = {"scheduled_at": "Update time"}

    def refusal_of(self, exc):
        # A time that is not one is named as the calendar's field; here it is the refresh's.
        error, errors = super().refusal_of(exc)
        return error, {("scheduled_at" if name == "scheduled_publish_at" else name): messages for name, messages in errors.items()}

    def context(self, request, *, pk, submitted) -> dict:
        return refresh_context(self, request, pk=pk, submitted=submitted)

    def save(self, request, pk):
        refresh = refresh_of(request, pk)
        if request.POST.get("when") == "now":
            publishing.refresh_send_now(refresh=refresh, user=request.user)
            notice = "sent=1"
        else:
            at = chosen_instant(refresh.site, request.POST.get("at", ""))
            override = request.POST.get("override_rules") == "1"
            data = validated(refresh_s.RefreshScheduleInputSerializer, request, {"scheduled_at": at.isoformat(), "override_rules": override})
            try:
                publishing.refresh_schedule(refresh=refresh, user=request.user, **data)
            except OutsidePublishingRules as refused:
                # The calendar's refusal and its explicit, recorded "Schedule anyway" (contract section 12).
                anyway = {"when": "at", "at": request.POST.get("at", "")}
                return self.refused(request, refused, pk=pk, extra=outside_the_rules(refused, action=request.path, fields=anyway, subject="refresh"))
            notice = "scheduled=1"
        return self.done(request, reverse("console:refresh", kwargs={"pk": refresh.pk}) + f"?{notice}")


class RefreshUnscheduleView(ConsoleView):
    module = "publisher"
    model = ContentRefresh

    def post(self, request, pk):
        refresh = refresh_of(request, pk)
        publishing.refresh_unschedule(refresh=refresh)
        return self.done(request, reverse("console:refresh", kwargs={"pk": refresh.pk}))


class ContentReviewedView(ConsoleView):
    """Marks an article reviewed: its next review falls the site's period later."""

    module = "writer"
    model = Content

    def post(self, request, pk):
        content = content_of(request, pk)
        services.article_reviewed(account=request.account, content=content)
        return self.done_back(request, default=reverse("console:content", kwargs={"pk": content.pk}) + "?reviewed=1")


class RefreshWriteView(ConsoleView):
    """Writes the draft refresh with AI from its opportunity (``optimizer.refresh_with_ai``)."""

    throttle_scope = "ai"
    module = "optimizer"
    model = ContentRefresh

    def post(self, request, pk):
        refresh = refresh_of(request, pk)
        self.credit_cost = cost_of(operation_type=optimizer_services.OPERATION, units=1)
        job = optimizer_services.start_refresh_writing(account=request.account, user=request.user, refresh=refresh)
        return job_started(self, request, job)
