"""The v1 API: every domain mounts its routes here, under /api/v1/."""

from django.urls import include, path

from inkwell.api.index import ApiIndexView

urlpatterns = [
    path("", ApiIndexView.as_view(), name="api-index"),
    path("auth/", include("inkwell.tenancy.urls")),
    path("auth/", include("inkwell.keywords.auth_urls")),
    path("", include("inkwell.keywords.urls")),
    path("system/", include("inkwell.system.urls")),
    path("billing/", include("inkwell.billing.urls")),
    path("notifications/", include("inkwell.notifications.urls")),
    path("jobs/", include("inkwell.jobs.urls")),
    path("planner/", include("inkwell.writer.idea_urls")),
    path("planner/", include("inkwell.planner.urls")),
    path("writer/", include("inkwell.performance.content_urls")),
    path("writer/", include("inkwell.publishing.refresh_urls")),
    path("writer/", include("inkwell.writer.urls")),
    path("writer/", include("inkwell.publishing.content_urls")),
    path("integration/", include("inkwell.performance.site_urls")),
    path("integration/", include("inkwell.sitesettings.urls")),
    path("integration/", include("inkwell.integration.urls")),
    path("publisher/", include("inkwell.publishing.urls")),
    path("linker/", include("inkwell.linker.urls")),
    path("optimizer/", include("inkwell.optimizer.urls")),
    path("automation/", include("inkwell.automation.urls")),
    path("webhooks/", include("inkwell.webhooks.urls")),
]
