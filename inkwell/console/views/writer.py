"""The writer of a site: the task queue, drafting with AI, and the content editor (body, excerpt and
meta with their limits, images, the optimizer's score, internal links, revisions, the workflow)."""

from django import forms
from django.contrib import messages
from django.http import Http404
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.urls import reverse
from django_prose_editor.fields import ProseEditorFormField

from inkwell.billing.services import cost_of
from inkwell.console.base import ConsoleView, get_scoped, remember_site, scoped, validated
from inkwell.console.views.forms import FormsView
from inkwell.console.views.library import SiteView
from inkwell.console.views.performance import article_chart
from inkwell.console.views.planner import job_started
from inkwell.jobs.models import Job, JobStatus
from inkwell.linker import services as linker
from inkwell.optimizer import selectors as optimizer
from inkwell.optimizer import services as optimizer_services
from inkwell.performance import selectors as performance_selectors
from inkwell.tenancy.permissions import ALL_ROLES
from inkwell.writer import quality as writer_quality
from inkwell.writer import selectors, services
from inkwell.writer import image_serializers as image_s
from inkwell.writer import serializers as s
from inkwell.writer.models import Brief, Content, ContentRefresh, ContentRevision, ContentStatus, Image, RefreshSendStatus, SiteStatus, Task, TaskStatus
from inkwell.writer.sanitize import clean_html
from inkwell.writer.services import GENERATE_CONTENT, TRANSITIONS

PAGE_SIZE = 50
# Versions offered in the comparison's menus (the newest); any older one is reached by its id in ?a= or ?b=.
REVISIONS_LISTED = 50
EDITED_FIELDS = ("title", "html", "excerpt", "meta_title", "meta_description", "focus_keyword")
SAVED_BY_SOMEONE_ELSE = "Someone else saved this article while you were editing: your version and theirs are below, choose what to keep"
FIELD_LABELS = {"title": "Title", "html": "Body", "excerpt": "Excerpt", "meta_title": "Meta title", "meta_description": "Meta description", "focus_keyword": "Focus keyword"}
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
        briefs = dict(scoped(Brief, request).filter(task_id__in=[task.pk for task in page]).values_list("task_id", "status")) if page.object_list else {}
        rows = [
            {
                "task": task,
                "job_id": running.get(task.pk),
                "content_id": newest_content.get(task.pk),
                "brief": briefs.get(task.pk),
                "cost": cost_of(operation_type="content_generation", units=task.word_count),
            }
            for task in page
        ]
        brief_required = writer_quality.site_editorial(site=site).brief_required
        return self.page(request, {"site": site, "page_obj": page, "rows": rows, "statuses": TaskStatus.choices, "status": status, "brief_required": brief_required})


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
def quality_view(content: Content) -> dict:
    """The quality report for the editor (issue 35): the article's text as paragraphs of segments,
    each finding's passage marked (``<mark id="finding-N">``, N its place in ``findings``), and the
    findings with their suggested fixes. Offsets index the report's ``text``; where two passages
    overlap, the first is marked and the second is listed only. Rendered on the server: no script."""
    report = writer_quality.content_quality(content=content)
    findings = [{"number": index, **vars(finding)} for index, finding in enumerate(report.findings, start=1)]
    marked, last = [], 0
    for finding in sorted((item for item in findings if item["field"] == "body" and item["end"] > item["start"]), key=lambda item: (item["start"], item["end"])):
        if finding["start"] >= last:
            marked.append(finding)
            last = finding["end"]
    for finding in findings:
        finding["marked"] = finding in marked
    paragraphs, segments, position = [], [], 0
    text = report.text

    def plain(upto: int):
        nonlocal position, segments
        chunk = text[position:upto]
        parts = chunk.split("\n\n")
        for index, part in enumerate(parts):
            if index:
                paragraphs.append(segments)
                segments = []
            if part:
                segments.append({"text": part})
        position = upto

    for finding in marked:
        plain(finding["start"])
        segments.append({"text": text[finding["start"] : finding["end"]].replace("\n\n", " "), "finding": finding})
        position = finding["end"]
    plain(len(text))
    paragraphs.append(segments)
    return {"passed": report.passed, "findings": findings, "paragraphs": [paragraph for paragraph in paragraphs if paragraph], "failing": report.scores.get("failing", [])}


def edited_values(source) -> dict:
    """The editor's fields as a form sends them (every one, empty when left out)."""
    return {name: source.get(name, "") for name in EDITED_FIELDS}


def conflicting_fields(mine: dict, theirs: Content) -> list[dict]:
    """The fields where what the person typed and the version saved since differ, side by side;
    bodies rendered (each sanitised as a save would)."""
    fields = []
    for name in EDITED_FIELDS:
        typed, saved = mine.get(name, ""), getattr(theirs, name)
        if name == "html":
            typed = clean_html(typed)
        if typed.strip() != saved.strip():
            fields.append({"name": name, "label": FIELD_LABELS[name], "mine": typed, "theirs": saved, "is_html": name == "html"})
    return fields


class ContentEditorView(FormsView):
    """The editor: GET shows the article, POST saves the edited fields (``content_update``) from
    the ``version`` the page was opened at. A refused save shows the editor again with everything
    typed and the messages beside the fields; a save refused because someone else saved since
    (``concurrent_modification``) also shows their version beside the person's, and keeps the
    person's as an autosave, so that taking the other version loses nothing. ``?autosave=<id>``
    opens the editor with one of the person's autosaves in the form."""

    module = "writer"
    model = Content
    template_name = "console/pages/editor.html"
    field_anchors = {"html": "body-label", "version": "conflict"}
    field_labels = {"html": "Body", "version": "Not saved"}
    conflict = False

    def context(self, request, *, pk, submitted=None) -> dict:
        content = content_of(request, pk)
        remember_site(request, content.site_id)
        values = {name: getattr(content, name) for name in EDITED_FIELDS}
        version = content.version
        restored = unsaved = None
        if submitted is not None:
            values = edited_values(submitted)
            version = submitted.get("version", "") if not self.conflict else content.version
        elif request.GET.get("autosave", "").isdigit():
            restored = get_scoped(ContentRevision, request, request.GET["autosave"], queryset=selectors.autosaves_of(request.account, content, user=request.user))
            values = {name: getattr(restored, name) for name in EDITED_FIELDS}
        else:
            unsaved = selectors.unsaved_autosave(request.account, content, user=request.user)
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
            "version": version,
            "conflict": conflicting_fields(values, content) if self.conflict else None,
            "error_summary_title": "Nothing was saved, and nothing is lost." if self.conflict else None,
            "restored": restored,
            "unsaved": unsaved,
            "limits": LIMITS,
            "body_form": body_form,
            # The editor's modules find each other through an inline import map: the page's
            # nonce lets that one script through the Content-Security-Policy.
            "editor_media": body_form.media.with_nonce(request.csp_nonce) if may_write else None,
            "images": content_images,
            "analysis": optimizer.analyze_content(request.account, content),
            "quality": quality_view(content),
            "transitions": transitions if may_write else [],
            "revision_count": selectors.revisions_of(request.account, content).count(),
            **performance_panel(request, content),
            "costs": {
                "images": selectors.generation_cost(request.account),
                "image": cost_of(operation_type=selectors.IMAGE_GENERATION, units=1),
                "optimize": cost_of(operation_type=optimizer_services.OPERATION, units=1),
            },
        }

    def save(self, request, pk):
        content = content_of(request, pk)
        values = edited_values(request.POST)
        if request.POST.get("version"):
            values["version"] = request.POST["version"]
        data = validated(s.ContentUpdateInputSerializer, request, values, partial=True)
        services.content_update(account=request.account, content=content, user=request.user, **data)
        return self.done(request, reverse("console:content", kwargs={"pk": content.pk}) + "?saved=1")

    def refusal_of(self, exc):
        if self.conflict:
            # The API's message tells a client to read the content again; here both versions are on the page.
            return exc.detail, {"version": [SAVED_BY_SOMEONE_ELSE]}
        return super().refusal_of(exc)

    def refused(self, request, exc, **kwargs):
        if getattr(exc, "code", None) == services.CONCURRENT_MODIFICATION_CODE:
            self.conflict = True
            typed = validated(s.ContentAutosaveInputSerializer, request, edited_values(request.POST))
            services.content_autosave(account=request.account, content=content_of(request, kwargs["pk"]), user=request.user, **typed)
        return super().refused(request, exc, **kwargs)


class AutosaveView(ConsoleView):
    """What the editor has typed and not saved, sent by the page every few seconds while the
    person types (``content_autosave``): kept as an autosave revision, the content unchanged.
    Answers ``204``; a refusal is the console's, with the API's status and messages."""

    module = "writer"
    model = Content

    def post(self, request, pk):
        content = content_of(request, pk)
        typed = validated(s.ContentAutosaveInputSerializer, request, edited_values(request.POST))
        services.content_autosave(account=request.account, content=content, user=request.user, **typed)
        return HttpResponse(status=204)


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
        listed = list(revisions.select_related("created_by").only("pk", "status", "is_autosave", "created_at", "created_by__email")[:REVISIONS_LISTED])
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


# The brief before the draft (issue 35).

# Live articles of the site offered as internal link targets beside the brief's own.
LINK_CANDIDATES = 20
URL_PREFIXES = ("http://", "https://")


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def outline_of(text: str) -> list[dict]:
    """One heading a line: ``### `` makes an H3 (under the H2 before it), anything else an H2."""
    items = []
    for line in lines_of(text):
        level = 3 if line.startswith("###") else 2
        items.append({"level": level, "text": line.lstrip("#").strip()})
    return items


def sources_of(text: str) -> list[dict]:
    """One source a line: a line that starts with a URL is that URL and, after it, a note; any other line is a note."""
    sources = []
    for line in lines_of(text):
        if line.lower().startswith(URL_PREFIXES):
            url, _space, note = line.partition(" ")
            sources.append({"url": url, "note": note.strip()})
        else:
            sources.append({"note": line})
    return sources


def read_brief(post) -> dict:
    """The brief form as ``BriefInputSerializer`` input."""
    return {
        "title": post.get("title", "").strip(),
        "angle": post.get("angle", "").strip(),
        "reader": post.get("reader", "").strip(),
        "target_length": post.get("target_length", "").strip(),
        "keywords": lines_of(post.get("keywords", "")),
        "questions": lines_of(post.get("questions", "")),
        "outline": outline_of(post.get("outline", "")),
        "sources": sources_of(post.get("sources", "")),
        "internal_links": [{"content_id": value} for value in post.getlist("link") if value.isdigit()],
    }


def brief_text(brief) -> dict:
    """The brief's lists as the form's text areas show them (the inverse of ``read_brief``)."""
    return {
        "keywords": "\n".join(brief["keywords"]),
        "questions": "\n".join(brief["questions"]),
        "outline": "\n".join(("### " if item.get("level") == 3 else "") + item.get("text", "") for item in brief["outline"]),
        "sources": "\n".join(" ".join(part for part in (source.get("url", ""), source.get("note", "")) if part) for source in brief["sources"]),
    }


def errors_by_field(errors: dict) -> dict:
    """The API's error paths of a brief (``outline.2.level``, ``sources.0.non_field_errors``) by
    the form's field, naming the line: the lists are text areas, one entry a line."""
    grouped: dict[str, list[str]] = {}
    for path, field_messages in errors.items():
        name, _dot, rest = path.partition(".")
        index = rest.split(".")[0]
        prefix = f"Line {int(index) + 1}: " if index.isdigit() and name != "internal_links" else ""
        grouped.setdefault("link" if name == "internal_links" else name, []).extend(prefix + message for message in field_messages)
    return grouped


class BriefView(FormsView):
    """A task's brief (``/writer/tasks/{id}/brief/``): made from the task, edited, then approved
    (``approve_brief/``); on a site that asks for it, the draft is written only from an approved
    brief. Everyone reads it; owners, admins and editors make, change and approve it."""

    module = "writer"
    model = Task
    template_name = "console/pages/brief.html"

    def context(self, request, *, pk, submitted=None) -> dict:
        task = get_scoped(Task, request, pk, queryset=scoped(Task, request).select_related("site"))
        remember_site(request, task.site_id)
        brief = scoped(Brief, request).filter(task=task).select_related("approved_by").first()
        values = None
        if brief is not None:
            values = {name: getattr(brief, name) for name in ("title", "angle", "reader", "target_length", "keywords", "questions", "outline", "sources", "internal_links")}
            if submitted is not None and submitted.get("form") == "brief":
                chosen = {int(value) for value in submitted.getlist("link") if value.isdigit()}
                values = {**values, **read_brief(submitted), "internal_links": [link for link in brief.internal_links if link["content_id"] in chosen]}
        linked = {link["content_id"] for link in (values or {}).get("internal_links", [])}
        live = (
            scoped(Content, request).filter(site_id=task.site_id, site_status=SiteStatus.PUBLISHED).exclude(pk__in=linked)
            .order_by("-published_at", "-id").only("id", "title", "external_url", "slug")[:LINK_CANDIDATES]
        )
        return {
            "site": task.site,
            "task": task,
            "brief": brief,
            "values": values,
            "text": brief_text(values) if values else {},
            "candidates": [writer_quality.link_of(content) for content in live] if brief is not None else [],
            "brief_required": writer_quality.site_editorial(site=task.site).brief_required,
        }

    def page(self, request, context, **kwargs):
        errors = context.get("form_errors", {}).get("brief")
        if errors:
            context = {**context, "form_errors": {"brief": errors_by_field(errors)}}
        return super().page(request, context, **kwargs)

    def save(self, request, pk):
        task = get_scoped(Task, request, pk)
        form = request.POST.get("form")
        url = reverse("console:brief", kwargs={"pk": task.pk})
        if form == "make":
            services.brief_propose(account=request.account, task=task)
            return self.done(request, url + "?saved=made")
        if form != "brief":
            raise Http404()
        brief = selectors.brief_of(account=request.account, task=task)
        services.brief_update(account=request.account, brief=brief, **validated(s.BriefInputSerializer, request, read_brief(request.POST)))
        return self.done(request, url + "?saved=brief")


class BriefApproveView(ConsoleView):
    """Approves the task's brief (``approve_brief/``): its drafts are written from it."""

    module = "writer"
    model = Task

    def post(self, request, pk):
        task = get_scoped(Task, request, pk)
        services.brief_approve(account=request.account, brief=selectors.brief_of(account=request.account, task=task), user=request.user)
        return self.done(request, reverse("console:brief", kwargs={"pk": task.pk}) + "?saved=approved")
