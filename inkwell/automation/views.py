"""Automation endpoints (spec: Automation), mounted at /api/v1/automation/.

Every endpoint names its site with ``?site_id=`` (``inkwell.automation.serializers``: another
account's site is a 404, a site an editor or viewer was not granted a 403); pause, resume and
cancel also take ``site_id`` and ``run_id`` in the body. Every member reads; owners, admins and
editors configure and control runs (viewers: 403). ``/automation/runs/`` is the account's list
of runs of the site ``?site_id=`` names, ``/automation/logs/`` its log lines: both filter through
their FilterSet (``inkwell.automation.filters``). The other query strings (``SiteQuerySerializer``,
``RunTargetQuerySerializer``, ``RunDetailQuerySerializer``) name what an action acts on, not rows
a list narrows to, and stay serializers.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound

from inkwell.api.envelope import ok
from inkwell.api.idempotency import idempotent
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import ApiView, FiltersTheListOnlyMixin, validated, validated_query
from inkwell.automation import filters, selectors, services
from inkwell.automation import serializers as s
from inkwell.automation.filters import LogFilter, RunFilter
from inkwell.automation.models import AutomationLog, AutomationRun
from inkwell.sitesettings import selectors as site_settings_selectors
from inkwell.sitesettings import services as site_settings_services
from inkwell.tenancy.viewsets import AccountScopedViewSet

STATE_CONFLICT = OpenApiResponse(ErrorEnvelopeSerializer, description="No run of the site is in a state that allows this (state_conflict).")
BUDGET_OVER_100 = OpenApiResponse(ErrorEnvelopeSerializer, description="The stages' budget_pct add up to more than 100.")


class AutomationViewSet(FiltersTheListOnlyMixin, AccountScopedViewSet):
    module = "automation"
    throttle_scope = "general"
    queryset = AutomationRun.objects.all()
    serializer_class = s.RunSerializer


class _ConfigView(ApiView):
    """The site's automation configuration: the same stored values as the unified settings.

    A view over the site's settings rather than its runs: like the unified settings, an API key
    bound to one site reads it but does not change it (``api_key_may_write``)."""

    module = "automation"
    throttle_scope = "general"
    # The site is resolved through SiteQuerySerializer: the caller's account, sites it may touch.
    tenant_scope = "own_account"


class ConfigView(_ConfigView):
    @extend_schema(tags=["automation"], parameters=[s.SiteQuerySerializer], responses={200: s.AutomationConfigResourceSerializer})
    def get(self, request):
        """The unified settings' ``automation_config`` (with the delays, ``within_stage_delay`` and
        ``between_stage_delay``, in seconds) and ``stage_configs`` (with ``use_testing`` and
        ``budget_pct``). ``next_run_at`` is null while automation is disabled."""
        site = validated_query(s.SiteQuerySerializer, request)["site"]
        return ok(s.AutomationConfigResourceSerializer({**site_settings_selectors.automation_config(site=site), "site_id": site.pk}).data)


class UpdateConfigView(_ConfigView):
    @extend_schema(
        tags=["automation"],
        parameters=[s.ConfigQuerySerializer],
        request=s.AutomationConfigUpdateSerializer,
        responses={200: s.AutomationConfigResourceSerializer, 422: BUDGET_OVER_100},
    )
    def put(self, request, partial: bool = False):
        """Replaces the ``automation_config`` fields (every one is required). What ``GET
        /automation/config/`` answers may be sent back unchanged: ``next_run_at`` (read only) is
        ignored, ``stage_configs`` entries that agree with the flat fields are accepted. The delays
        and ``stage_configs`` entries are optional and change what they name; the seven
        ``budget_pct`` may add up to at most 100 (422). Answers the new configuration."""
        query = validated_query(s.ConfigQuerySerializer, request)
        config = validated(s.AutomationConfigUpdateSerializer, request, partial=partial)
        site = s.config_site(query, config)
        site_settings_services.automation_config_update(site=site, config=config)
        return ok(s.AutomationConfigResourceSerializer({**site_settings_selectors.automation_config(site=site), "site_id": site.pk}).data)

    @extend_schema(
        tags=["automation"],
        parameters=[s.ConfigQuerySerializer],
        request=s.AutomationConfigUpdateSerializer(partial=True),
        responses={200: s.AutomationConfigResourceSerializer, 422: BUDGET_OVER_100},
    )
    def patch(self, request):
        """Changes the fields given, any subset of what PUT takes; the others stay."""
        return self.put(request, partial=True)


@extend_schema(tags=["automation"])
class SiteAutomationViewSet(AutomationViewSet):
    """A site's automation: control of its run, its history, and what the pipeline holds (its log: ``LogViewSet``)."""

    def _site(self, request):
        return validated_query(s.SiteQuerySerializer, request)["site"]

    def _run_answer(self, run: AutomationRun):
        run = filters.with_stages(self.get_queryset(), self.request.account).get(pk=run.pk)
        return ok(s.RunWithStagesSerializer(run).data)

    def _control(self, request, service):
        target = s.run_target(validated_query(s.RunTargetQuerySerializer, request), validated(s.RunTargetInputSerializer, request))
        return self._run_answer(service(site=target["site"], run_id=target["run_id"]))

    # Runs.

    @extend_schema(
        parameters=[s.SiteQuerySerializer],
        request=None,
        responses={
            202: s.RunStartedSerializer,
            402: OpenApiResponse(ErrorEnvelopeSerializer, description="The estimate is more than the balance."),
            409: OpenApiResponse(ErrorEnvelopeSerializer, description="A run of the site is active (state_conflict)."),
        },
    )
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def run_now(self, request):
        """Starts a run of the site's pipeline now. The work is long, so the answer is a 202 with
        the run to follow (``/automation/current_run/``, ``/automation/runs/{run_id}/``). One
        active run per site (409 while one is queued, running or paused); 402 when the credit
        estimate is more than the balance. With an ``Idempotency-Key``, a retry after a lost
        answer replays the first answer."""
        run = services.start_run(site=self._site(request), user=request.user)
        return ok(s.RunStartedSerializer({"run_id": run.pk, "status": run.status}).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(parameters=[s.SiteQuerySerializer], responses={200: s.RunWithStagesSerializer(allow_null=True)})
    @action(detail=False, methods=["get"], pagination_class=None)
    def current_run(self, request):
        """The site's active run, or else its latest, with its stages; null when it never ran."""
        run = filters.current_run(self.get_queryset(), self._site(request))
        return ok(None if run is None else s.RunWithStagesSerializer(run).data)

    @extend_schema(parameters=[s.RunTargetQuerySerializer], request=s.RunTargetInputSerializer, responses={200: s.RunWithStagesSerializer, 409: STATE_CONFLICT})
    @action(detail=False, methods=["post"])
    def pause(self, request):
        """Pauses the site's queued or running run (or the one ``run_id`` names) after the item in
        hand; 409 when there is none."""
        return self._control(request, services.pause_run)

    @extend_schema(parameters=[s.RunTargetQuerySerializer], request=s.RunTargetInputSerializer, responses={200: s.RunWithStagesSerializer, 409: STATE_CONFLICT})
    @action(detail=False, methods=["post"])
    def resume(self, request):
        """Resumes the site's paused run (or the one ``run_id`` names) where it stopped; 409 when there is none."""
        return self._control(request, services.resume_run)

    @extend_schema(parameters=[s.RunTargetQuerySerializer], request=s.RunTargetInputSerializer, responses={200: s.RunWithStagesSerializer, 409: STATE_CONFLICT})
    @action(detail=False, methods=["post"])
    def cancel(self, request):
        """Cancels the site's active run (or the one ``run_id`` names) after the item in hand; 409 when there is none."""
        return self._control(request, services.cancel_run)

    @extend_schema(parameters=[s.SiteQuerySerializer], responses={200: s.HistoryItemSerializer(many=True)})
    @action(detail=False, methods=["get"])
    def history(self, request):
        """The site's finished runs (completed, cancelled or failed), newest first, in brief."""
        runs = filters.history(self.get_queryset(), self._site(request))
        return self.get_paginated_response(s.HistoryItemSerializer(self.paginate_queryset(runs), many=True).data)

    # What the pipeline holds.

    @extend_schema(parameters=[s.SiteQuerySerializer], responses={200: s.PipelineOverviewSerializer})
    @action(detail=False, methods=["get"], pagination_class=None)
    def pipeline_overview(self, request):
        """Items pending at each stage, counted from the site's live data."""
        return ok(s.PipelineOverviewSerializer(selectors.pipeline_overview(self._site(request))).data)

    @extend_schema(parameters=[s.SiteQuerySerializer], responses={200: s.CurrentProcessingSerializer})
    @action(detail=False, methods=["get"], pagination_class=None)
    def current_processing(self, request):
        """What the site's active run is doing: its stage, the item in hand and done/total."""
        return ok(s.CurrentProcessingSerializer(selectors.current_processing(self._site(request))).data)

    @extend_schema(parameters=[s.SiteQuerySerializer], responses={200: s.EstimateSerializer})
    @action(detail=False, methods=["get"], pagination_class=None)
    def estimate(self, request):
        """The credits a run would spend now, per stage, from the cost table and the pending items,
        and whether the balance covers them (``run_now`` answers 402 when it does not)."""
        return ok(s.EstimateSerializer(selectors.estimate(self._site(request))).data)


@extend_schema(tags=["automation"])
class RunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, AutomationViewSet):
    """The account's automation runs, newest first (spec: Automation run resource)."""

    filterset_class = RunFilter

    def scoped_queryset(self, queryset):
        return filters.run_detail(queryset, self.request.account) if self.action == "retrieve" else queryset

    def get_serializer_class(self):
        return s.RunDetailSerializer if self.action == "retrieve" else s.RunSerializer

    @extend_schema(responses={200: s.RunSerializer(many=True)})
    def list(self, request):
        """One site's runs (``site_id``, required like every automation GET; another account's site:
        404), paginated; ``status`` narrows them to one status."""
        runs = self.filter_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(self.paginate_queryset(runs), many=True).data)

    @extend_schema(parameters=[s.RunDetailQuerySerializer], responses={200: s.RunDetailSerializer})
    def retrieve(self, request, pk=None):
        """One run with its stages and its newest log lines. Another account's run, or one of
        another site than ``site_id`` names, is a 404."""
        query = validated_query(s.RunDetailQuerySerializer, request)
        run = self.get_object()
        if run.site_id != query["site"].pk:
            raise NotFound()
        return ok(self.get_serializer(run).data)


@extend_schema(tags=["automation"])
class LogViewSet(mixins.ListModelMixin, AutomationViewSet):
    """The site's automation log (``/automation/logs/``), a list of its own rows: log lines, not runs."""

    queryset = AutomationLog.objects.all()
    serializer_class = s.LogSerializer
    filterset_class = LogFilter

    @extend_schema(responses={200: s.LogSerializer(many=True)})
    def list(self, request):
        """The site's automation log, newest first: a line for every stage transition and every
        item a run processed. Narrowed by ``run_id`` (one of the site's runs, else 404), ``level``
        (info, warning, error) and ``stage``."""
        lines = self.filter_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(self.paginate_queryset(lines), many=True).data)
