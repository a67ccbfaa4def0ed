from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from inkwell.observability.views import metrics
from inkwell.system.views import healthz
from inkwell.writer.image_views import media_urlpatterns

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="api/redoc.html"), name="redoc"),
    path("api/v1/", include("inkwell.api.urls")),
    *media_urlpatterns(),
]

handler400 = "inkwell.api.exceptions.handler400"
handler403 = "inkwell.api.exceptions.handler403"
handler404 = "inkwell.api.exceptions.handler404"
handler500 = "inkwell.api.exceptions.handler500"
