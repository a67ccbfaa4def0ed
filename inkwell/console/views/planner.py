"""The planner of a site: its keywords with bulk actions, its clusters (and clustering with AI),
the ideas of each cluster (and writing them with AI), and ideas turned into writer tasks."""

from django.core.paginator import Paginator
from django.urls import reverse

from inkwell.billing.services import cost_of
from inkwell.console.base import ConsoleView, filtered, get_scoped, ids_from, job_changed, remember_site, scoped, validated
from inkwell.console.views.library import SiteView, site_sectors
from inkwell.jobs.models import ACTIVE_JOB_STATUSES, Job
from inkwell.planner import selectors
from inkwell.planner import serializers as s
from inkwell.planner import services
from inkwell.planner.filters import ClusterFilter, IdeaFilter, KeywordFilter
from inkwell.planner.models import Cluster, ClusterStatus, ContentIdea, IdeaStatus, Keyword, KeywordStatus
from inkwell.writer import services as writer_services

PAGE_SIZE = 50
KEYWORD_FILTERS = ("sector_id", "cluster_id", "status", "difficulty_min", "difficulty_max", "volume_min", "volume_max", "search")


def query_of(source, names) -> dict:
    return {name: source.get(name) for name in names if source.get(name, "") != ""}


def job_started(view: ConsoleView, request, job: Job):
    """A job just started: htmx swaps its live progress into the page; without JavaScript its page opens."""
    if request.htmx:
        return job_changed(view.page(request, {"job": job}, template="console/components/job_progress.html", status=202), job)
    return view.done(request, reverse("console:job", kwargs={"pk": job.pk}))


class KeywordsView(SiteView):
    module = "planner"
    template_name = "console/pages/keywords.html"
    fragment_template = "console/pages/keywords_results.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        query = {**query_of(request.GET, KEYWORD_FILTERS), "site_id": site.pk}
        keywords = filtered(KeywordFilter, request, query, scoped(Keyword, request).select_related("cluster"))
        page = Paginator(keywords, PAGE_SIZE).get_page(request.GET.get("page"))
        unclustered = scoped(Keyword, request).filter(site=site, cluster__isnull=True, status=KeywordStatus.ACTIVE).count()
        # While the site's keywords are being clustered, clustering them again is not offered.
        clustering = scoped(Job, request).filter(site=site, kind=services.AUTO_CLUSTER_JOB, status__in=ACTIVE_JOB_STATUSES).values_list("pk", flat=True).first()
        return self.page(
            request,
            {
                "site": site,
                "sectors": site_sectors(request, site),
                "statuses": KeywordStatus.choices,
                "filters": query_of(request.GET, KEYWORD_FILTERS),
                "page_obj": page,
                "unclustered": unclustered,
                "clustering_job_id": clustering,
                "cluster_cost": cost_of(operation_type="clustering", units=min(unclustered, services.MAX_CLUSTER_KEYWORDS)),
            },
        )


class KeywordsBulkView(SiteView):
    """Bulk status change or deletion of the checked keywords (``bulk_status``, ``bulk_delete``)."""

    module = "planner"

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        keywords = scoped(Keyword, request).filter(site=site)
        ids = ids_from(request, "ids")
        action = request.POST.get("action", "")
        if action == "delete":
            services.keywords_bulk_delete(keywords=keywords, ids=validated(s.BulkIdsInputSerializer, request, {"ids": ids})["ids"])
        else:
            data = validated(s.BulkStatusInputSerializer, request, {"ids": ids, "status": action})
            services.keywords_bulk_status(keywords=keywords, ids=data["ids"], status=data["status"])
        return self.done_back(request, default=reverse("console:keywords", kwargs={"site_id": site.pk}))


class AutoClusterView(SiteView):
    """Cluster with AI: the site's (or a sector's) unclustered active keywords, or the checked ones."""

    throttle_scope = "ai"
    module = "planner"

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        payload = {"site_id": site.pk}
        if request.POST.get("sector_id"):
            payload["sector_id"] = request.POST["sector_id"]
        if ids_from(request, "ids"):
            payload["keyword_ids"] = ids_from(request, "ids")
        data = validated(s.AutoClusterInputSerializer, request, payload)
        count = len(data["keyword_ids"]) if "keyword_ids" in data else scoped(Keyword, request).filter(
            site=site, cluster__isnull=True, status=KeywordStatus.ACTIVE
        ).count()
        self.credit_cost = cost_of(operation_type="clustering", units=min(count, services.MAX_CLUSTER_KEYWORDS))
        job = services.start_auto_cluster(account=request.account, user=request.user, **data)
        return job_started(self, request, job)


class ClustersView(SiteView):
    module = "planner"
    template_name = "console/pages/clusters.html"
    fragment_template = "console/pages/clusters_results.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        filters = query_of(request.GET, ("sector_id", "status", "search"))
        clusters = filtered(ClusterFilter, request, {**filters, "site_id": site.pk}, selectors.with_cluster_totals(scoped(Cluster, request)))
        page = Paginator(clusters, PAGE_SIZE).get_page(request.GET.get("page"))
        return self.page(
            request,
            {
                "site": site,
                "sectors": site_sectors(request, site),
                "statuses": ClusterStatus.choices,
                "filters": filters,
                "page_obj": page,
                "idea_cost": cost_of(operation_type="idea_generation", units=1),
                "default_ideas": s.DEFAULT_IDEAS_PER_CLUSTER,
            },
        )


class GenerateIdeasView(SiteView):
    """Ideas with AI for the checked clusters (``cost_of("idea_generation", clusters)``)."""

    module = "planner"
    throttle_scope = "ai"

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        payload = {"cluster_ids": ids_from(request, "ids")}
        if request.POST.get("ideas_per_cluster"):
            payload["ideas_per_cluster"] = request.POST["ideas_per_cluster"]
        data = validated(s.GenerateIdeasInputSerializer, request, payload)
        self.credit_cost = cost_of(operation_type="idea_generation", units=len(set(data["cluster_ids"])))
        clusters = scoped(Cluster, request).filter(site=site)
        job = services.start_generate_ideas(account=request.account, user=request.user, clusters=clusters, **data)
        return job_started(self, request, job)


class ClusterView(ConsoleView):
    """One cluster: its keywords and its ideas."""

    module = "planner"
    model = Cluster
    template_name = "console/pages/cluster.html"

    def get(self, request, pk):
        cluster = get_scoped(Cluster, request, pk, queryset=selectors.with_cluster_totals(scoped(Cluster, request)).select_related("site"))
        remember_site(request, cluster.site_id)
        ideas = filtered(IdeaFilter, request, {"cluster_id": cluster.pk}, scoped(ContentIdea, request))
        keywords = filtered(KeywordFilter, request, {"cluster_id": cluster.pk, "ordering": "-volume"}, scoped(Keyword, request).select_related("cluster"))
        return self.page(
            request,
            {
                "site": cluster.site,
                "cluster": cluster,
                "ideas": Paginator(ideas, PAGE_SIZE).get_page(request.GET.get("page")),
                "keywords": keywords[:PAGE_SIZE],
                "idea_cost": cost_of(operation_type="idea_generation", units=1),
                "default_ideas": s.DEFAULT_IDEAS_PER_CLUSTER,
            },
        )


class IdeasView(SiteView):
    module = "planner"
    template_name = "console/pages/ideas.html"
    fragment_template = "console/pages/ideas_results.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        filters = query_of(request.GET, ("cluster_id", "status", "search"))
        ideas = filtered(IdeaFilter, request, {**filters, "site_id": site.pk}, scoped(ContentIdea, request).select_related("cluster"))
        page = Paginator(ideas, PAGE_SIZE).get_page(request.GET.get("page"))
        return self.page(request, {"site": site, "statuses": IdeaStatus.choices, "filters": filters, "page_obj": page})


class CreateTasksView(SiteView):
    """The checked ideas become writer tasks (``create_tasks``), once each."""

    module = "planner"

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        data = validated(s.CreateTasksInputSerializer, request, {"idea_ids": ids_from(request, "ids")})
        writer_services.create_tasks(account=request.account, ideas=scoped(ContentIdea, request).filter(site=site), **data)
        return self.done(request, reverse("console:tasks", kwargs={"site_id": site.pk}))
