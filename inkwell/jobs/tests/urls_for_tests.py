"""Test-only URL conf: the project's routes plus an endpoint that starts paid AI-style work the
way every domain endpoint does (reserve credits, start a job, answer 202), honouring
``Idempotency-Key``. Use with ``@pytest.mark.urls("inkwell.jobs.tests.urls_for_tests")``."""

from django.urls import path
from rest_framework import serializers

from inkwell.api.idempotency import idempotent
from inkwell.api.views import ApiView, validated
from inkwell.billing.services import cost_of, reserve_for_job
from inkwell.jobs.services import start_job
from inkwell.jobs.views import job_accepted
from inkwell import urls as project_urls
from tests.job_handlers import ECHO_KIND

START_PATH = "/api/v1/_test/start-paid-work/"


class StartInput(serializers.Serializer):
    words = serializers.IntegerField(min_value=1)


class StartPaidWorkView(ApiView):
    tenant_scope = "own_account"
    throttle_scope = "ai"

    @idempotent
    def post(self, request):
        words = validated(StartInput, request)["words"]
        job = start_job(
            account=request.account,
            kind=ECHO_KIND,
            params={"value": words},
            user=request.user,
            prepare=reserve_for_job(operation_type="content_generation", amount=cost_of(operation_type="content_generation", units=words)),
        )
        return job_accepted(job)


# Django reads the error handlers from the URL conf in use: the project's own.
handler400, handler403, handler404, handler500 = project_urls.handler400, project_urls.handler403, project_urls.handler404, project_urls.handler500

urlpatterns = [
    path(START_PATH.lstrip("/"), StartPaidWorkView.as_view()),
    *project_urls.urlpatterns,
]
