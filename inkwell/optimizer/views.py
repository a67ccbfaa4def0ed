"""The optimizer (spec: Linker, optimizer, publisher): scores articles for search and improves them with AI."""

from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action

from inkwell.api.envelope import ok
from inkwell.api.idempotency import idempotent
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import validated
from inkwell.jobs.serializers import JobStartedSerializer
from inkwell.jobs.views import job_accepted
from inkwell.optimizer import selectors, services
from inkwell.optimizer import serializers as s
from inkwell.tenancy.models import CONTENT_WRITER_ROLES
from inkwell.tenancy.permissions import ALL_ROLES
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.writer.models import Content

JOB_ANSWERS = {202: JobStartedSerializer, 402: ErrorEnvelopeSerializer}


@extend_schema(tags=["optimizer"])
class OptimizerViewSet(AccountScopedViewSet):
    """Analysis changes nothing: every role may ask for it. Optimization changes content and costs
    credits: owners, admins and editors (on their sites)."""

    queryset = Content.objects.all()
    module = "optimizer"
    throttle_scope = "content"
    write_roles = CONTENT_WRITER_ROLES
    input_serializers = {
        "analyze": s.OptimizerContentInputSerializer,
        "optimize": s.OptimizerContentInputSerializer,
        "batch_optimize": s.OptimizerBatchInputSerializer,
        "refresh_with_ai": s.OptimizerRefreshInputSerializer,
    }

    def get_serializer_class(self):
        # Every route here is one POST action; OPTIONS describes that action's input.
        return self.input_serializers[self.action_map["post"]]

    @extend_schema(request=s.OptimizerContentInputSerializer, responses={200: s.OptimizerAnalysisSerializer})
    @action(detail=False, methods=["post"], write_roles=ALL_ROLES)
    def analyze(self, request):
        """Scores the content 0-100 for search, with its metrics (length against the target, focus
        keyword placement and density, headings, readability, meta lengths, internal and external
        links, images and alt text) and concrete suggestions. No credits; nothing changes."""
        content = validated(self.get_serializer_class(), request)["content"]
        return ok(s.OptimizerAnalysisSerializer(selectors.analyze_content(request.account, content)).data)

    @extend_schema(request=s.OptimizerContentInputSerializer, responses=JOB_ANSWERS)
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def optimize(self, request):
        """Improves the content with the account's AI provider against the analysis' suggestions, in
        the background (job ``optimizer.optimize``). Its result has ``score_before``, ``score_after``,
        the ``changes`` made and the ``outcome``: ``optimized`` (saved as a new revision) or, not
        saved, ``not_improved`` or ``content_changed``. Costs ``optimization`` credits when saved
        (held up front: 402 when the balance is short)."""
        content = validated(self.get_serializer_class(), request)["content"]
        return job_accepted(services.start_optimization(account=request.account, user=request.user, content=content))

    @extend_schema(request=s.OptimizerBatchInputSerializer, responses=JOB_ANSWERS)
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def batch_optimize(self, request):
        """Optimizes many articles of one site in one job (``optimizer.batch_optimize``): one
        ``optimization`` per article is held up front (402 when the balance is short), and charged
        for each article saved. The result lists each article's outcome and scores, the ones the
        provider ``failed`` on, and the ids that name none of your content as ``not_found``."""
        data = validated(self.get_serializer_class(), request)
        job = services.start_batch_optimization(account=request.account, user=request.user, contents=self.get_queryset(), content_ids=data["content_ids"])
        return job_accepted(job)

    @extend_schema(request=s.OptimizerRefreshInputSerializer, responses={**JOB_ANSWERS, 409: ErrorEnvelopeSerializer})
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def refresh_with_ai(self, request):
        """Writes a draft refresh of a live article with the account's AI provider, for what its
        opportunity asks (its ``reason``) and the analysis' suggestions, in the background (job
        ``optimizer.refresh_with_ai``). The refresh stays a draft for a person to review; the live
        post does not change. A refresh that is not a draft is a 409. Costs ``optimization``
        credits when saved (held up front: 402 when the balance is short)."""
        refresh = validated(self.get_serializer_class(), request)["refresh"]
        return job_accepted(services.start_refresh_writing(account=request.account, user=request.user, refresh=refresh))
