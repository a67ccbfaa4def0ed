"""The first site: its name, domain and time zone, then an industry and the sectors it writes for."""

from django.db import transaction
from django.urls import reverse

from inkwell.console.base import ConsoleView, current_site_id, get_scoped, header_sites, ids_from, remember_site, scoped, validated
from inkwell.console.views.forms import FormsView
from inkwell.tenancy import services
from inkwell.tenancy import serializers as s
from inkwell.tenancy.models import MANAGER_ROLES, Industry, Sector, Site
from inkwell.tenancy.serializers import TIME_ZONES
from inkwell.writer import services as writer_services

COMMON_TIME_ZONES = sorted(TIME_ZONES)


class HomeView(ConsoleView):
    """Where a signed-in person lands: their site's planner, or the first-site form."""

    def get(self, request):
        if request.GET.get("site"):
            remember_site(request, get_scoped(Site, request, request.GET["site"]).pk)
        site_id = current_site_id(request, header_sites(request))
        if site_id is None:
            return self.done(request, reverse("console:site-new"))
        return self.done(request, reverse("console:keywords", kwargs={"site_id": site_id}))


class SiteNewView(FormsView):
    """Step 1 of the first site (owners and admins, as ``POST /auth/sites/``)."""

    write_roles = MANAGER_ROLES
    template_name = "console/pages/site_new.html"
    fields = ("name", "domain", "time_zone")

    def context(self, request, *, submitted=None) -> dict:
        values = {"time_zone": "UTC"}
        if submitted is not None:
            values = {name: submitted.get(name, "") for name in self.fields}
        return {"values": values, "time_zones": COMMON_TIME_ZONES}

    def save(self, request):
        values = {name: request.POST.get(name, "") for name in self.fields}
        with transaction.atomic():
            site = services.site_create(account=request.account, **validated(s.SiteInputSerializer, request, values))
            # A team starting in the console is led through briefs: its drafts are written from approved ones.
            writer_services.site_editorial_update(site=site, brief_required=True)
        return self.done(request, reverse("console:site-sectors", kwargs={"site_id": site.pk}))


class SiteSectorsView(ConsoleView):
    """Step 2: an industry, then its sectors (the library's industry sectors) become the site's sectors."""

    model = Site
    write_roles = MANAGER_ROLES
    template_name = "console/pages/site_sectors.html"

    def get(self, request, site_id):
        site = get_scoped(Site, request, site_id)
        remember_site(request, site.pk)
        industries = Industry.objects.prefetch_related("sectors").order_by("name")
        chosen = set(scoped(Sector, request).filter(site=site).values_list("industry_sector_id", flat=True))
        selected_industry = request.GET.get("industry", "")
        return self.page(
            request, {"site": site, "industries": industries, "chosen": chosen, "selected_industry": selected_industry}
        )

    def post(self, request, site_id):
        site = get_scoped(Site, request, site_id)
        chosen = set(scoped(Sector, request).filter(site=site).values_list("industry_sector_id", flat=True))
        for industry_sector_id in ids_from(request, "industry_sector_ids"):
            if industry_sector_id in chosen:
                continue
            data = validated(s.SectorInputSerializer, request, {"site_id": site.pk, "industry_sector_id": industry_sector_id})
            services.sector_create(account=request.account, **data)
        return self.done(request, reverse("console:library", kwargs={"site_id": site.pk}))
