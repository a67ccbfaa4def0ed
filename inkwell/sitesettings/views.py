"""Site settings endpoints (spec: Integration, unified settings rows and the deprecated publishing
settings; mounted under /api/v1/integration/).

The site is addressed in the path, so these views are scoped viewsets over the account's sites:
another account's site, or one the caller's role does not see (an editor or viewer it was not
granted to), is a 404. Every member reads; owners, admins and editors change (viewers: 403).
"""

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema

from inkwell.api.envelope import ok
from inkwell.api.schema import ErrorEnvelopeSerializer
from inkwell.api.views import ApiView, validated
from inkwell.sitesettings import selectors, services
from inkwell.sitesettings import serializers as s
from inkwell.tenancy.models import Site
from inkwell.tenancy.viewsets import AccountScopedViewSet

LIMIT_ORDER_ERROR = OpenApiResponse(ErrorEnvelopeSerializer, description="The daily, weekly and monthly limits are out of order, or the stages' budget_pct add up to more than 100.")


class SiteSettingsViewSet(AccountScopedViewSet):
    """Addresses the site by ``site_id``. Being a view over sites, it lets an API key bound to one
    site read these settings but not change them (``api_key_may_write``)."""

    queryset = Site.objects.all()
    lookup_url_kwarg = "site_id"
    pagination_class = None


@extend_schema(tags=["site settings"])
class UnifiedSettingsViewSet(SiteSettingsViewSet):
    """All of a site's settings in one object: automation, stages, publishing and AI models."""

    serializer_class = s.UnifiedSettingsSerializer

    def _answer(self, site: Site):
        return ok(s.UnifiedSettingsSerializer(selectors.unified_settings(site=site)).data)

    @extend_schema(responses={200: s.UnifiedSettingsSerializer})
    def retrieve(self, request, site_id=None):
        return self._answer(self.get_object())

    @extend_schema(request=s.UnifiedSettingsInputSerializer, responses={200: s.UnifiedSettingsSerializer, 422: LIMIT_ORDER_ERROR})
    def partial_update(self, request, site_id=None):
        """Changes the fields given and answers the whole settings. Sections and their fields are
        optional; ``stage_configs`` entries change the stage they name. Daily ≤ weekly ≤ monthly
        publish limits (0: no limit) or 422."""
        site = self.get_object()
        services.unified_settings_update(site=site, changes=validated(s.UnifiedSettingsInputSerializer, request))
        return self._answer(site)

    @extend_schema(request=None, responses={200: s.UnifiedSettingsSerializer})
    def reset(self, request, site_id=None):
        """Returns every setting of the site to the defaults (``GET /integration/settings/defaults/``)."""
        site = self.get_object()
        services.site_settings_reset(site=site)
        return self._answer(site)


class DefaultSettingsView(ApiView):
    """The defaults every site starts from and a reset returns to: the same for every account."""

    tenant_scope = "global"

    @extend_schema(tags=["site settings"], responses={200: s.DefaultSettingsSerializer})
    def get(self, request):
        return ok(s.DefaultSettingsSerializer(selectors.default_settings()).data)


@extend_schema(tags=["site settings"], deprecated=True)
class PublishingSettingsViewSet(SiteSettingsViewSet):
    """Deprecated since 1.8.0: use the unified settings (the same stored values). Every answer
    carries ``Deprecation: true`` and a ``Link`` to the successor."""

    serializer_class = s.PublishingSettingsResourceSerializer

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        successor = reverse("site-unified-settings", kwargs={"site_id": kwargs["site_id"]})
        response["Deprecation"] = "true"
        response["Link"] = f'<{successor}>; rel="successor-version"'
        return response

    def _answer(self, site: Site):
        return ok(s.PublishingSettingsResourceSerializer(services.publishing_settings_resource(site=site)).data)

    def _save(self, request, *, partial: bool):
        site = self.get_object()
        values = validated(s.PublishingSettingsResourceSerializer, request, partial=partial)
        services.publishing_settings_update(site=site, values=values)
        return self._answer(site)

    @extend_schema(responses={200: s.PublishingSettingsResourceSerializer})
    def retrieve(self, request, site_id=None):
        return self._answer(self.get_object())

    @extend_schema(request=s.PublishingSettingsResourceSerializer, responses={200: s.PublishingSettingsResourceSerializer, 422: LIMIT_ORDER_ERROR})
    def update(self, request, site_id=None):
        """Replaces the publishing settings: every field is required."""
        return self._save(request, partial=False)

    @extend_schema(request=s.PublishingSettingsResourceSerializer, responses={200: s.PublishingSettingsResourceSerializer, 422: LIMIT_ORDER_ERROR})
    def partial_update(self, request, site_id=None):
        """Changes the fields given."""
        return self._save(request, partial=True)
