"""The writer of a site: the task queue, drafting with AI, and the content editor (body, excerpt and
meta with their limits, images, the optimizer's score, internal links, revisions, the workflow)."""

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.urls import reverse
from django_prose_editor.fields import ProseEditorFormField

from inkwell.billing.services import cost_of
from inkwell.console.base import ConsoleView, get_scoped, remember_site, scoped, validated
from inkwell.console.views.library import SiteView
from inkwell.console.views.performance import article_chart
from inkwell.console.views.planner import job_started
from inkwell.jobs.models import Job, JobStatus
from inkwell.linker import services as linker
from inkwell.optimizer import selectors as optimizer
from inkwell.optimizer import services as optimizer_services
from inkwell.performance import selectors as performance_selectors
from inkwell.tenancy.permissions import ALL_ROLES
from inkwell.writer import selectors, services
from inkwell.writer import image_serializers as image_s
from inkwell.writer import serializers as s
from inkwell.writer.models import Content, ContentRefresh, ContentStatus, Image, RefreshSendStatus, SiteStatus, Task, TaskStatus
from inkwell.writer.services import GENERATE_CONTENT, TRANSITIONS

PAGE_SIZE = 50
# Versions offered in the comparison's menus (the newest); any older one is reached by its id in ?a= or ?b=.
REVISIONS_LISTED = 50
EDITED_FIELDS = ("title", "html", "excerpt", "meta_title", "meta_description", "focus_keyword")
# The limits the API checks (writer.serializers), shown beside the fields as people type.
LIMITS = {"title": 300, "excerpt": 1000, "meta_title": s.META_TITLE_MAX, "meta_description": s.META_DESCRIPTION_MAX}
# What the editor's toolbar offers: what an article body needs, no more (the service sanitises anyway).
EDITOR_EXTENSIONS = {
    "Bold": True,
    "Italic": True,
    "Heading": {"levels": [2, 3, 4]},
    "BulletList": True,
    "ListItem": True,
    "OrderedList": True,
    "Blockquote": True,
    "Link": {"enableTarget": False},
    "HorizontalRule": True,
    "History": True,
}
TRANSITION_LABELS = {
    (ContentStatus.DRAFT, ContentStatus.REVIEW): "Send to review",
    (ContentStatus.REVIEW, ContentStatus.APPROVED): "Approve",
    (ContentStatus.REVIEW, ContentStatus.DRAFT): "Back to draft",
    (ContentStatus.APPROVED, ContentStatus.REVIEW): "Back to review",
}


class BodyForm(forms.Form):
    """The body field: ProseMirror in the browser (django-prose-editor), a plain textarea without JavaScript."""

    html = ProseEditorFormField(required=False, extensions=EDITOR_EXTENSIONS, sanitize=False, label="Body")


class TasksView(SiteView):
    module = "writer"
    template_name = "console/pages/tasks.html"
    fragment_template = "console/pages/tasks_results.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        status = request.GET.get("status", "")
        tasks = scoped(Task, request).filter(site=site)
        if status in TaskStatus.values:
            tasks = tasks.filter(status=status)
        page = Paginator(tasks.order_by("-created_at", "-id"), PAGE_SIZE).get_page(request.GET.get("page"))
        running = dict(
            scoped(Job, request)
            .filter(kind=GENERATE_CONTENT, status__in=(JobStatus.QUEUED, JobStatus.RUNNING), params__task_id__in=[task.pk for task in page])
            .values_list("params__task_id", "pk")
        ) if page.object_list else {}
        newest_content = dict(
            scoped(Content, request).filter(task_id__in=[task.pk for task in page]).order_by("task_id", "created_at", "id").values_list("task_id", "pk")
        ) if page.object_list else {}
        rows = [{"task": task, "job_id": running.get(task.pk), "content_id": newest_content.get(task.pk), "cost": cost_of(operation_type="content_generation", units=task.word_count)} for task in page]
        return self.page(request, {"site": site, "page_obj": page, "rows": rows, "statuses": TaskStatus.choices, "status": status})


class GenerateDraftView(ConsoleView):
    """Write the task's article with AI (``generate_content``): costs ``content_generation`` per word."""

    throttle_scope = "ai"
    module = "writer"
    model = Task

    def post(self, request, pk):
        task = get_scoped(Task, request, pk)
        self.credit_cost = cost_of(operation_type="content_generation", units=task.word_count)
        job = services.start_content_generation(account=request.account, task=task, user=request.user)
        return job_started(self, request, job)


class ContentListView(SiteView):
    module = "writer"
    template_name = "console/pages/content_list.html"
    fragment_template = "console/pages/content_results.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        status = request.GET.get("status", "")
        contents = scoped(Content, request).filter(site=site).defer("html")
        if status in ContentStatus.values:
            contents = contents.filter(status=status)
        page = Paginator(contents.order_by("-created_at", "-id"), PAGE_SIZE).get_page(request.GET.get("page"))
        return self.page(request, {"site": site, "page_obj": page, "statuses": ContentStatus.choices, "status": status})


def content_of(request, pk) -> Content:
    return get_scoped(Content, request, pk, queryset=scoped(Content, request).select_related("site"))


def performance_panel(request, content: Content) -> dict:
    """The editor's search performance panel (issue #37): the article's periods as a chart, its
    change, its queries, its review-by date, and its refresh in the works."""
    performance = performance_selectors.article_performance(content=content)
    refresh = scoped(ContentRefresh, request).filter(content=content).exclude(send_status=RefreshSendStatus.SENT).only("id", "status", "send_status").first()
    return {
        "performance": performance,
        "performance_chart": article_chart(performance) if performance["periods"] else None,
        "performance_ctr_pct": performance["current"]["ctr"] * 100 if performance["current"] else None,
        "open_refresh": refresh,
        "is_live": content.site_status == SiteStatus.PUBLISHED and bool(content.external_id),
    }


class ContentEditorView(ConsoleView):
    """The editor: GET shows the article, POST saves the edited fields (``content_update``)."""

    module = "writer"
    model = Content
    template_name = "console/pages/editor.html"

    def context(self, request, content: Content, *, values=None, errors=None) -> dict:
        remember_site(request, content.site_id)
        values = values or {name: getattr(content, name) for name in EDITED_FIELDS}
        content_images = list(scoped(Image, request).filter(content=content).order_by("position", "id"))
        may_write = request.user.role_name in self.write_roles
        transitions = [
            (status, TRANSITION_LABELS[(content.status, status)])
            for status in sorted(TRANSITIONS.get(content.status, ()))
            if (content.status, status) in TRANSITION_LABELS
        ]
        body_form = BodyForm(initial={"html": values["html"]})
        return {
            "site": content.site,
            "content": content,
            "values": values,
            "errors": errors or {},
            "limits": LIMITS,
            "body_form": body_form,
            # The editor's modules find each other through an inline import map: the page's
            # nonce lets that one script through the Content-Security-Policy.
            "editor_media": body_form.media.with_nonce(request.csp_nonce) if may_write else None,
            "images": content_images,
            "analysis": optimizer.analyze_content(request.account, content),
            "transitions": transitions if may_write else [],
            "revision_count": selectors.revisions_of(request.account, content).count(),
            **performance_panel(request, content),
            "costs": {
                "images": selectors.generation_cost(request.account),
                "image": cost_of(operation_type=selectors.IMAGE_GENERATION, units=1),
                "optimize": cost_of(operation_type=optimizer_services.OPERATION, units=1),
            },
        }

    def get(self, request, pk):
        content = content_of(request, pk)
        return self.page(request, self.context(request, content))

    def post(self, request, pk):
        content = content_of(request, pk)
        values = {name: request.POST.get(name, "") for name in EDITED_FIELDS}
        data = validated(s.ContentUpdateInputSerializer, request, values, partial=True)
        services.content_update(account=request.account, content=content, user=request.user, **data)
        return self.done(request, reverse("console:content", kwargs={"pk": content.pk}) + "?saved=1")


class ContentStatusView(ConsoleView):
    """A workflow button: draft → review → approved (and back), as ``update_content`` with ``status``."""

    module = "writer"
    model = Content

    def post(self, request, pk):
        content = content_of(request, pk)
        data = validated(s.ContentUpdateInputSerializer, request, {"status": request.POST.get("status", "")}, partial=True)
        services.content_update(account=request.account, content=content, user=request.user, **data)
        return self.done(request, reverse("console:content", kwargs={"pk": content.pk}))


class GenerateImagesView(ConsoleView):
    throttle_scope = "ai"
    module = "writer"
    model = Content

    def post(self, request, pk):
        content = content_of(request, pk)
        payload = {name: request.POST[name] for name in ("image_type", "count") if request.POST.get(name)}
        data = validated(image_s.GenerateImagesInputSerializer, request, payload)
        self.credit_cost = selectors.generation_cost(request.account, image_type=data.get("image_type"), count=data.get("count"))
        job = services.start_image_generation(
            account=request.account, content=content, user=request.user, image_type=data.get("image_type"), count=data.get("count")
        )
        return job_started(self, request, job)


class RegenerateImageView(ConsoleView):
    throttle_scope = "ai"
    module = "writer"
    model = Image

    def post(self, request, pk):
        image = get_scoped(Image, request, pk)
        data = validated(image_s.RegenerateImageInputSerializer, request, {"image_id": image.pk, "prompt": request.POST.get("prompt", "")})
        self.credit_cost = cost_of(operation_type=selectors.IMAGE_GENERATION, units=1)
        job = services.start_image_regeneration(account=request.account, image=data["image"], user=request.user, prompt=data.get("prompt"))
        return job_started(self, request, job)


class ImageAltTextView(ConsoleView):
    module = "writer"
    model = Image

    def post(self, request, pk):
        image = get_scoped(Image, request, pk)
        data = validated(image_s.ImageAltTextInputSerializer, request, {"alt_text": request.POST.get("alt_text", "")})
        services.image_alt_text_update(image=image, **data)
        return self.done(request, reverse("console:content", kwargs={"pk": image.content_id}) + "#images")


class OptimizeView(ConsoleView):
    """Improve the article with AI against the optimizer's suggestions (``optimizer.optimize``)."""

    throttle_scope = "ai"
    module = "optimizer"
    model = Content

    def post(self, request, pk):
        content = content_of(request, pk)
        self.credit_cost = cost_of(operation_type=optimizer_services.OPERATION, units=1)
        job = optimizer_services.start_optimization(account=request.account, user=request.user, content=content)
        return job_started(self, request, job)


class LinkView(ConsoleView):
    """Add internal links to the site's other articles (``linker.process``); no credits."""

    module = "linker"
    model = Content

    def post(self, request, pk):
        content = content_of(request, pk)
        result = linker.process_content(account=request.account, content=content, user=request.user)
        messages.success(request, linker.links_added_summary(links=result["links"]))
        return self.done(request, reverse("console:content", kwargs={"pk": content.pk}))


class RevisionsView(ConsoleView):
    """The content's versions, and the difference between any two (``a`` and ``b``; ``current`` is now)."""

    module = "writer"
    model = Content
    read_roles = ALL_ROLES
    template_name = "console/pages/revisions.html"

    def get(self, request, pk):
        content = content_of(request, pk)
        revisions = selectors.revisions_of(request.account, content)
        listed = list(revisions.select_related("created_by").only("pk", "status", "created_at", "created_by__email")[:REVISIONS_LISTED])
        a_key = request.GET.get("a") or (str(listed[0].pk) if listed else "current")
        b_key = request.GET.get("b") or "current"
        wanted = [int(key) for key in (a_key, b_key) if key.isdigit()]
        versions = {"current": content, **{str(revision.pk): revision for revision in revisions.filter(pk__in=wanted)}}
        older, newer = versions.get(a_key), versions.get(b_key)
        if older is None or newer is None:
            return self.refusal(request, 404, "Resource not found", {})
        return self.page(
            request,
            {"site": content.site, "content": content, "revisions": listed, "a": a_key, "b": b_key, "diff": selectors.version_diff(older, newer)},
        )
