"""The writer's tasks, content and taxonomies (spec: Writer). Images: ``image_views``."""

from django.db.models import OuterRef, Subquery
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action

from inkwell.api.envelope import created, ok
from inkwell.api.idempotency import idempotent
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import validated, validated_query
from inkwell.jobs.serializers import JobStartedSerializer
from inkwell.jobs.views import job_accepted
from inkwell.planner import serializers as planner_serializers
from inkwell.planner.models import ContentIdea
from inkwell.planner.overlaps import competing_pairs
from inkwell.planner.views import PlannerViewSet
from inkwell.tenancy.access import restrict_to_accessible_sites
from inkwell.tenancy.models import Site
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.tenancy.models import CONTENT_REVIEWER_ROLES, CONTENT_WRITER_ROLES
from inkwell.writer import review_serializers as review_s
from inkwell.writer import serializers as s
from inkwell.writer import overlaps, quality, selectors, services
from inkwell.writer.filters import ContentFilter, TaskFilter, TaxonomyFilter
from inkwell.writer.image_serializers import GenerateImagesInputSerializer
from inkwell.writer.image_views import generate_images_response
from inkwell.writer.models import Content, Task, Taxonomy, VoiceProfile


class WriterViewSet(AccountScopedViewSet):
    module = "writer"
    throttle_scope = "content"
    # Owners, admins and editors change writer data; an action may widen it (reviewers approve).
    write_roles = CONTENT_WRITER_ROLES


@extend_schema(tags=["writer"])
class TaskViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, WriterViewSet):
    """Writing briefs. ``content_id`` is the newest content written from the task."""

    queryset = Task.objects.all()
    serializer_class = s.TaskSerializer
    filterset_class = TaskFilter

    def scoped_queryset(self, queryset):
        newest_content = Content.objects.for_account(self.request.account).filter(task=OuterRef("pk")).order_by("-created_at", "-id").values("pk")[:1]
        return queryset.annotate(content_id=Subquery(newest_content))

    def _answer(self, task: Task) -> dict:
        return self.get_serializer(self.get_queryset().get(pk=task.pk)).data

    @extend_schema(request=s.TaskInputSerializer, responses={201: s.TaskSerializer})
    def create(self, request):
        task = services.task_create(account=request.account, **validated(s.TaskInputSerializer, request))
        return created(self._answer(task))

    @extend_schema(request=s.TaskInputSerializer, responses={200: s.TaskSerializer})
    def update(self, request, pk=None, partial=False):
        task = self.get_object()
        task = services.task_update(task=task, **validated(s.TaskInputSerializer, request, partial=partial))
        return ok(self._answer(task))

    @extend_schema(request=s.TaskInputSerializer, responses={200: s.TaskSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk, partial=True)

    def perform_destroy(self, instance):
        services.task_delete(task=instance)

    @extend_schema(request=s.TaskBulkCreateInputSerializer, responses={201: s.TaskBulkCreateResultSerializer})
    @action(detail=False, methods=["post"])
    def bulk_create(self, request):
        """Creates every task or none (errors name ``tasks.N.field``)."""
        tasks = services.tasks_bulk_create(account=request.account, items=validated(s.TaskBulkCreateInputSerializer, request)["tasks"])
        return created({"created": len(tasks), "task_ids": [task.pk for task in tasks]})

    def _brief(self, task: Task):
        return ok(s.BriefSerializer(selectors.brief_of(account=self.request.account, task=task)).data)

    @extend_schema(methods=["GET"], request=None, responses={200: s.BriefSerializer})
    @extend_schema(methods=["POST"], request=None, responses={201: s.BriefSerializer, 409: ErrorEnvelopeSerializer})
    @extend_schema(methods=["PATCH"], request=s.BriefInputSerializer, responses={200: s.BriefSerializer})
    @action(detail=True, methods=["get", "post", "patch"], filter_backends=[])
    def brief(self, request, pk=None):
        """The task's brief (issue 35). POST makes it from the task and its idea (409 when there
        is one); PATCH edits it (an approved brief that changes needs approving again); GET reads
        it (404 when the task has none)."""
        task = self.get_object()
        if request.method == "POST":
            brief = services.brief_propose(account=request.account, task=task)
            return created(s.BriefSerializer(brief).data)
        if request.method == "PATCH":
            brief = selectors.brief_of(account=request.account, task=task)
            services.brief_update(account=request.account, brief=brief, **validated(s.BriefInputSerializer, request, partial=True))
        return self._brief(task)

    @extend_schema(request=None, responses={200: s.BriefSerializer})
    @action(detail=True, methods=["post"], filter_backends=[])
    def approve_brief(self, request, pk=None):
        """Approves the task's brief: its drafts are written from it (404 when it has none)."""
        task = self.get_object()
        services.brief_approve(account=request.account, brief=selectors.brief_of(account=request.account, task=task), user=request.user)
        return self._brief(task)

    @extend_schema(request=None, responses={202: JobStartedSerializer, 402: ErrorEnvelopeSerializer})
    @action(detail=True, methods=["post"], throttle_scope="ai")
    @idempotent
    def generate_content(self, request, pk=None):
        """Writes the task's article in the background (job ``writer.generate_content``): a ``draft``
        content, ``ai_content_complete`` or ``ai_content_failed``. Costs ``content_generation``
        credits per requested word (402 when short); 409 while the task is generating."""
        job = services.start_content_generation(account=request.account, task=self.get_object(), user=request.user)
        return job_accepted(job)


@extend_schema(tags=["writer"])
class ContentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, WriterViewSet):
    """Articles. Lists leave the body (``html``) out; the detail has it."""

    queryset = Content.objects.all()
    serializer_class = s.ContentSerializer
    filterset_class = ContentFilter

    def get_serializer_class(self):
        return s.ContentListItemSerializer if self.action == "list" else s.ContentSerializer

    @extend_schema(request=s.ContentCreateInputSerializer, responses={201: s.ContentCreatedSerializer})
    def create(self, request):
        """A new draft; the answer's `overlaps` lists the site's pieces it competes with (nothing is blocked)."""
        content = services.content_create(account=request.account, **validated(s.ContentCreateInputSerializer, request))
        content.overlaps = overlaps.content_overlaps(account=request.account, content=content)
        return created(s.ContentCreatedSerializer(content).data)

    def _update(self, request, *, partial: bool):
        content = self.get_object()
        fields = validated(s.ContentUpdateInputSerializer, request, partial=partial)
        content = services.content_update(account=request.account, content=content, user=request.user, **fields)
        return ok(s.ContentSerializer(content).data)

    @extend_schema(request=s.ContentUpdateInputSerializer, responses={200: s.ContentSerializer})
    def update(self, request, pk=None):
        return self._update(request, partial=False)

    @extend_schema(request=s.ContentUpdateInputSerializer, responses={200: s.ContentSerializer})
    def partial_update(self, request, pk=None):
        return self._update(request, partial=True)

    @extend_schema(request=s.ContentUpdateInputSerializer, responses={200: s.ContentSerializer})
    @action(detail=True, methods=["post"])
    def update_content(self, request, pk=None):
        """Update with validation: the fields given change, the others stay. The title may not be
        blank, the body is sanitised, the meta title is at most 60 and the meta description at most
        160 characters; ``status`` moves draft → review → approved (review may go back to draft,
        approved back to review; anything else is a 409). A change of the title, body or meta fields
        keeps the previous version (``revisions``); entering review raises ``content_ready_review``."""
        return self._update(request, partial=True)

    @extend_schema(request=None, responses={200: s.ContentRevisionSerializer(many=True)})
    @action(detail=True, methods=["get"], filter_backends=[])
    def revisions(self, request, pk=None):
        """Earlier versions of the content, newest first."""
        revisions = selectors.revisions_of(request.account, self.get_object())
        return self.get_paginated_response(s.ContentRevisionSerializer(self.paginate_queryset(revisions), many=True).data)

    @extend_schema(request=None, responses={200: s.QualityReportSerializer})
    @action(detail=True, methods=["get"], filter_backends=[])
    def quality(self, request, pk=None):
        """The content's quality report: findings (``unsupported_claim``, ``repetition``,
        ``duplicate``, ``readability``, ``structure``, ``keyword``), each with its passage, offsets
        into ``text`` and a suggested fix; scores; and whether it passes the site's thresholds
        (``/writer/sites/{site_id}/editorial/``). Reading it changes nothing but the site's
        originality index. Free."""
        report = quality.content_quality(content=self.get_object())
        return ok(s.QualityReportSerializer(report.as_dict()).data)

    @extend_schema(request=GenerateImagesInputSerializer, responses={202: JobStartedSerializer, 402: ErrorEnvelopeSerializer})
    @action(detail=True, methods=["post"], throttle_scope="ai")
    @idempotent
    def generate_images(self, request, pk=None):
        """Makes images for the content in the background: prompts extracted from the article, then
        the images (``ai_prompts_*``, ``ai_images_*``). ``image_type``: featured or in_article."""
        return generate_images_response(request, self.get_object())

    @extend_schema(request=None, responses={200: s.ContentSerializer, 422: ErrorEnvelopeSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_REVIEWER_ROLES)
    def approve(self, request, pk=None):
        """Approves content in review (review → approved), as owners, admins, editors and reviewers
        may, under the site's approval rules: four eyes (someone other than the last editor; 422
        ``four_eyes``) and the client's approval first (through a review link after the last edit;
        422 ``client_approval_required``). Recorded with who and when (``approvals``). A draft
        whose quality report does not pass is approved anyway, and that is recorded
        (``quality_override_by``, ``quality_override_at`` and the approval's note)."""
        content = services.content_approve(account=request.account, content=self.get_object(), user=request.user)
        return ok(s.ContentSerializer(content).data)

    @extend_schema(request=review_s.RequestChangesInputSerializer, responses={200: s.ContentSerializer})
    @action(detail=True, methods=["post"], write_roles=CONTENT_REVIEWER_ROLES)
    def request_changes(self, request, pk=None):
        """Sends content in review back to draft, with an optional ``note``; recorded with who and when."""
        note = validated(review_s.RequestChangesInputSerializer, request).get("note", "")
        content = services.content_request_changes(account=request.account, content=self.get_object(), user=request.user, note=note)
        return ok(s.ContentSerializer(content).data)

    @extend_schema(request=None, responses={200: review_s.ApprovalSerializer(many=True)})
    @action(detail=True, methods=["get"], filter_backends=[])
    def approvals(self, request, pk=None):
        """Every decision on the content, newest first: the team's and those made through review links."""
        approvals = selectors.approvals_of(account=request.account, content=self.get_object())
        return self.get_paginated_response(review_s.ApprovalSerializer(self.paginate_queryset(approvals), many=True).data)


@extend_schema(tags=["writer"])
class SiteEditorialViewSet(WriterViewSet):
    """A site's editorial rules (issue 35): whether drafts need an approved brief, and the quality
    report's thresholds. Addressed by ``site_id``; another account's site is a 404. Every member
    reads; owners, admins and editors change (viewers: 403)."""

    queryset = Site.objects.all()
    lookup_url_kwarg = "site_id"
    pagination_class = None
    serializer_class = s.SiteEditorialSerializer

    @extend_schema(responses={200: s.SiteEditorialSerializer})
    def retrieve(self, request, site_id=None):
        return ok(s.SiteEditorialSerializer(quality.editorial_answer(site=self.get_object())).data)

    @extend_schema(request=s.SiteEditorialInputSerializer, responses={200: s.SiteEditorialSerializer})
    def partial_update(self, request, site_id=None):
        site = self.get_object()
        services.site_editorial_update(site=site, **validated(s.SiteEditorialInputSerializer, request, partial=True))
        return ok(s.SiteEditorialSerializer(quality.editorial_answer(site=site)).data)


@extend_schema(tags=["writer"])
class SiteVoiceViewSet(SiteEditorialViewSet):
    """A site's voice (issue 35): what every writing and optimizing prompt carries. ``propose``
    measures it from the site's published posts; the team edits it."""

    serializer_class = s.VoiceSerializer

    def _answer(self, site: Site):
        voice = VoiceProfile.objects.for_account(site.account_id).filter(site=site).first() or VoiceProfile(site=site)
        return ok(s.VoiceSerializer({**{name: getattr(voice, name) for name in s.VoiceSerializer().fields if name != "site_id"}, "site_id": site.pk}).data)

    @extend_schema(responses={200: s.VoiceSerializer})
    def retrieve(self, request, site_id=None):
        return self._answer(self.get_object())

    @extend_schema(request=s.VoiceInputSerializer, responses={200: s.VoiceSerializer})
    def partial_update(self, request, site_id=None):
        site = self.get_object()
        services.voice_update(site=site, **validated(s.VoiceInputSerializer, request, partial=True))
        return self._answer(site)

    @extend_schema(request=None, responses={200: s.VoiceSerializer, 409: ErrorEnvelopeSerializer})
    def propose(self, request, site_id=None):
        """Measures the voice from the site's published posts (person, sentence length, reading
        grade, most used words, two example paragraphs); tone and words to avoid are kept."""
        site = self.get_object()
        services.voice_propose(site=site)
        return self._answer(site)


@extend_schema(tags=["writer"])
class TaxonomyViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, WriterViewSet):
    """A site's categories and tags, created here or (later) brought in by a CMS sync."""

    queryset = Taxonomy.objects.all()
    serializer_class = s.TaxonomySerializer
    filterset_class = TaxonomyFilter

    @extend_schema(request=s.TaxonomyInputSerializer, responses={201: s.TaxonomySerializer})
    def create(self, request):
        taxonomy = services.taxonomy_create(account=request.account, **validated(s.TaxonomyInputSerializer, request))
        return created(self.get_serializer(taxonomy).data)


@extend_schema(tags=["planner"])
class IdeaWorkViewSet(PlannerViewSet):
    """The writer's routes on the planner's ideas, at the addresses clients know: the pieces that
    compete (``/planner/ideas/overlaps/``) and tasks made from ideas (``/planner/ideas/create_tasks/``)."""

    queryset = ContentIdea.objects.all()
    serializer_class = planner_serializers.IdeaSerializer

    @extend_schema(parameters=[planner_serializers.OverlapListQuerySerializer], responses={200: planner_serializers.OverlapPairSerializer(many=True)})
    def overlaps(self, request):
        """Cannibalization guard: the pairs of a site's ideas, tasks and contents (posts synced from
        the CMS included) that compete for the same search intent, closest first. An idea, its task
        and the task's contents are one piece of work and never a pair. Archived ideas are left out."""
        site_id = validated_query(planner_serializers.OverlapListQuerySerializer, request)["site_id"]
        found = overlaps.pieces(
            ideas=self.get_queryset().filter(site_id=site_id),
            tasks=restrict_to_accessible_sites(Task.objects.for_account(request.account), request).filter(site_id=site_id),
            contents=restrict_to_accessible_sites(Content.objects.for_account(request.account), request).filter(site_id=site_id),
        )
        return self.get_paginated_response(self.paginate_queryset(competing_pairs(found)))

    @extend_schema(request=planner_serializers.CreateTasksInputSerializer, responses={200: planner_serializers.CreateTasksResultSerializer})
    def create_tasks(self, request):
        """Turns ideas into writer tasks, once each: an idea that already has a task is reported in
        `skipped` with that task's id."""
        data = validated(planner_serializers.CreateTasksInputSerializer, request)
        return ok(services.create_tasks(account=request.account, ideas=self.get_queryset(), idea_ids=data["idea_ids"]))
