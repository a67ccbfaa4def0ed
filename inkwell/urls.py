from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.negotiation import DefaultContentNegotiation

from inkwell.observability.views import csp_report, metrics
from inkwell.system.views import healthz
from inkwell.writer.image_views import media_urlpatterns

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="console:home", permanent=False), name="root"),
    path("app/", include("inkwell.console.urls")),
    path("review/", include("inkwell.console.review_urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("csp-report/", csp_report, name="csp-report"),
    # The schema's own negotiation: ?format=json (or Accept: application/json) answers JSON, else YAML.
    path("api/schema/", SpectacularAPIView.as_view(content_negotiation_class=DefaultContentNegotiation), name="schema"),
    # The split view serves Swagger UI's start-up script as a file (?script): no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="api/redoc.html"), name="redoc"),
    path("api/v1/", include("inkwell.api.urls")),
    *media_urlpatterns(),
]

handler400 = "inkwell.api.exceptions.handler400"
handler403 = "inkwell.api.exceptions.handler403"
handler404 = "inkwell.console.views.errors.not_found"
handler500 = "inkwell.api.exceptions.handler500"
