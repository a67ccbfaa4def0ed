"""``GET /api/v1/``: the API's sections, where each is mounted and what it holds, with the docs."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny

from inkwell.api.envelope import ok
from inkwell.api.views import ApiView

API_ROOT = "/api/v1/"
# Every section mounted in inkwell/api/urls.py (tests/test_api_index.py keeps the two together).
SECTIONS = {
    "auth": "Registration, login and tokens; the account, users, roles, sites, sectors, site access and API keys.",
    "keywords-library": "The shared library of seed keywords by industry sector, and its sector statistics.",
    "planner": "A site's workflow keywords, clusters and content ideas.",
    "writer": "Writing tasks, content and its review workflow (comments, approvals, review links, refreshes), images, categories and tags.",
    "linker": "Internal links between a site's articles.",
    "optimizer": "Scoring articles and improving them with AI.",
    "integration": "CMS integrations (WordPress, Ghost), the CMS webhooks, and each site's settings.",
    "publisher": "Publishing approved content now or on schedule, its records, deployments and the public site definition.",
    "automation": "The seven-stage pipeline per site: configuration, runs, estimate and logs.",
    "jobs": "Background jobs: their status, progress and cancellation.",
    "notifications": "The account's notifications and their read state.",
    "billing": "Credits: balance, usage and transactions.",
    "webhooks": "Outbound webhooks: the account's endpoints, their signed deliveries and test pings.",
    "system": "Health, AI and image provider settings, content settings, prompts, modules and the AI model catalogue.",
}
DOCS = {"docs": "/api/docs/", "redoc": "/api/redoc/", "schema": "/api/schema/"}

ApiIndexSerializer = inline_serializer(
    "ApiIndex",
    fields={
        "version": serializers.CharField(),
        "sections": inline_serializer(
            "ApiSection", fields={"name": serializers.CharField(), "url": serializers.CharField(), "description": serializers.CharField()}, many=True
        ),
        "docs": serializers.DictField(child=serializers.CharField(), help_text="Swagger UI, ReDoc and the OpenAPI document."),
    },
)


class ApiIndexView(ApiView):
    """Public: what the API holds, so that a first look at /api/v1/ leads somewhere."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    tenant_scope = "public"
    throttle_scope = "general"

    @extend_schema(tags=["api"], responses={200: ApiIndexSerializer})
    def get(self, request):
        sections = [{"name": name, "url": f"{API_ROOT}{name}/", "description": description} for name, description in SECTIONS.items()]
        return ok({"version": "v1", "sections": sections, "docs": DOCS})
