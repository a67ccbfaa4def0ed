from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action

from inkwell.api.envelope import ok
from inkwell.api.exceptions import StateConflict
from inkwell.jobs import services
from inkwell.jobs.filters import JobFilter
from inkwell.jobs.models import Job
from inkwell.jobs.serializers import JobDetailSerializer, JobSerializer
from inkwell.tenancy.viewsets import AccountScopedViewSet


def job_accepted(job: Job):
    """The 202 every endpoint answers when it started long work; the caller follows ``/jobs/{job_id}/``."""
    return ok({"job_id": job.pk, "status": job.status}, status=status.HTTP_202_ACCEPTED)




@extend_schema(tags=["jobs"])
class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, AccountScopedViewSet):
    """Background work of the caller's account: progress while it runs, result or error after."""

    queryset = Job.objects.all()
    serializer_class = JobSerializer
    filterset_class = JobFilter
    throttle_scope = "general"

    def get_serializer_class(self):
        return JobDetailSerializer if self.action == "retrieve" else JobSerializer

    @extend_schema(request=None, responses={200: JobSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        job = self.get_object()
        if not job.is_active:
            raise StateConflict({"status": [f"A {job.status} job cannot be cancelled"]})
        return ok(JobSerializer(services.cancel_job(job=job)).data)
