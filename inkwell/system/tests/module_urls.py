"""A URL conf with views that declare a module, to test ModuleEnabled before any real module view
exists (mounted with @pytest.mark.urls only)."""

from django.urls import include, path

from inkwell.api.envelope import ok
from inkwell.api.views import ApiView


class PlannerProbe(ApiView):
    module = "planner"
    tenant_scope = "own_account"

    def get(self, request):
        return ok({"module": self.module})


class WriterProbe(PlannerProbe):
    module = "writer"


class NoModuleProbe(ApiView):
    tenant_scope = "own_account"

    def get(self, request):
        return ok({"module": None})


urlpatterns = [
    path("api/v1/", include("inkwell.api.urls")),
    path("probe/planner/", PlannerProbe.as_view()),
    path("probe/writer/", WriterProbe.as_view()),
    path("probe/none/", NoModuleProbe.as_view()),
]
