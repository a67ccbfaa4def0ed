"""The keywords library of a site's sectors: filters, sector statistics, and adding a selection to
the workflow with the paid keywords' cost shown before anything is spent."""

from django.core.paginator import Paginator
from django.urls import reverse

from inkwell.api.filters import validated_filter_query
from inkwell.console.base import ConsoleView, get_scoped, ids_from, remember_site, render_page, scoped, shell_context, validated
from inkwell.keywords import selectors as library
from inkwell.keywords.filters import LibraryFilter, library_filters
from inkwell.keywords.models import DifficultyBand
from inkwell.planner import selectors as planner
from inkwell.planner import serializers as ps
from inkwell.planner import services as planner_services
from inkwell.planner.services import MAX_BULK_IDS
from inkwell.tenancy.models import Sector, Site

PAGE_SIZE = 50
FILTER_FIELDS = ("search", "difficulty", "volume_min", "volume_max")
SELECTION_KEY = "library-selection:{site_id}"


def library_selection(request, site: Site) -> list[int]:
    """The library keywords the person ticked on the site's library, kept in their session so that
    the ticks survive filtering and paging (issue 30, case 10)."""
    return list(request.session.get(SELECTION_KEY.format(site_id=site.pk), []))


def update_selection(request, site: Site) -> list[int]:
    """Applies a posted page of the library to the selection: each of its boxes (``on_page``) ticked
    (``seed_keyword_ids``) or not; the ticks of other pages and filters are kept. ``selection=clear``
    empties it."""
    if request.POST.get("selection") == "clear":
        selected = []
    else:
        on_page = set(ids_from(request, "on_page"))
        kept = [seed_id for seed_id in library_selection(request, site) if seed_id not in on_page]
        ticked = [seed_id for seed_id in dict.fromkeys(ids_from(request, "seed_keyword_ids")) if seed_id not in kept]
        selected = (kept + ticked)[:MAX_BULK_IDS]
    request.session[SELECTION_KEY.format(site_id=site.pk)] = selected
    return selected


class SiteView(ConsoleView):
    """A page about one site of the caller's (``site_id``): another account's site is a 404."""

    model = Site

    def site_of(self, request, site_id) -> Site:
        site = get_scoped(Site, request, site_id)
        remember_site(request, site.pk)
        return site


def site_sectors(request, site: Site) -> list[Sector]:
    return list(scoped(Sector, request).filter(site=site).select_related("industry_sector").order_by("name", "id"))


def library_context(request, site: Site, source) -> dict:
    """The library page of a site: its sectors' keywords under the filters of ``source``, a page of
    them, and the sector statistics."""
    sectors = site_sectors(request, site)
    context = {
        "site": site,
        "sectors": sectors,
        "filters": {name: source.get(name, "") for name in (*FILTER_FIELDS, "sector")},
        "difficulties": [band.label for band in DifficultyBand],
        "selected_ids": set(library_selection(request, site)),
        "page_number": source.get("page", ""),
    }
    if not sectors:
        return context
    sector = next((item for item in sectors if str(item.pk) == source.get("sector", "")), None)
    query = {name: source.get(name, "") for name in FILTER_FIELDS if source.get(name, "") != ""}
    if sector is not None:
        query["site_sector_id"] = sector.pk  # resolved to its industry sector as the API resolves it
    else:
        query["sector_ids"] = ",".join(str(item.industry_sector_id) for item in sectors)
    query = library.with_site_sector(request, validated_filter_query(LibraryFilter, query))
    filters = library_filters(query)
    context["page_obj"] = Paginator(library.LibraryPage(filters), PAGE_SIZE).get_page(source.get("page"))
    context["stats"] = library.sector_stats(account=request.account, site=site, sector_ids=filters.sector_ids)
    return context


class LibraryView(SiteView):
    module = "planner"
    template_name = "console/pages/library.html"
    fragment_template = "console/pages/library_results.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        return self.page(request, library_context(request, site, request.GET))


class LibraryReviewView(SiteView):
    """The selection before it is added: what will be added, what is skipped and why, and the credits."""

    module = "planner"
    template_name = "console/pages/library.html"
    fragment_template = "console/components/selection_review.html"

    def selection(self, request, site: Site):
        sector = get_scoped(Sector, request, request.POST.get("sector_id"), queryset=scoped(Sector, request).filter(site=site))
        seed_ids = update_selection(request, site)
        data = validated(ps.AddToWorkflowInputSerializer, request, {"site_id": site.pk, "sector_id": sector.pk, "seed_keyword_ids": seed_ids})
        return data, planner.workflow_additions(account=request.account, **data)

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        data, selection = self.selection(request, site)
        review = {"selection": selection, "review_sector": data["sector"], "seed_keyword_ids": data["seed_keyword_ids"]}
        return self.page(request, {**library_context(request, site, request.POST), **review})


class LibrarySelectionView(SiteView):
    """Keeps the ticks of a page of the library (htmx posts them as they change) or clears them:
    answers the selection's count, or after a clear the list with its boxes unticked."""

    module = "planner"
    template_name = "console/pages/library.html"
    fragment_template = "console/components/library_selection_count.html"

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        update_selection(request, site)
        if not request.htmx:
            return self.done_back(request, default=reverse("console:library", kwargs={"site_id": site.pk}))
        context = library_context(request, site, request.POST)
        if request.POST.get("selection") == "clear":
            return render_page(request, "console/pages/library_results.html", {**shell_context(request), **context, "view": self})
        return self.page(request, context)


class LibraryAddView(LibraryReviewView):
    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        data, selection = self.selection(request, site)
        self.credit_cost = selection.credits
        planner_services.add_to_workflow(account=request.account, **data)
        request.session.pop(SELECTION_KEY.format(site_id=site.pk), None)
        return self.done(request, reverse("console:keywords", kwargs={"site_id": site.pk}) + f"?sector={data['sector'].pk}")
