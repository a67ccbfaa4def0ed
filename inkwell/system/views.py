from django.http import JsonResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated

from inkwell.api.envelope import ok, success_body
from inkwell.api.views import ApiView
from inkwell.system.health import system_health

HEALTH_RESULT = inline_serializer(
    "SystemHealth",
    fields={
        "status": serializers.ChoiceField(choices=["ok", "degraded"]),
        "version": serializers.CharField(),
        "database_engine": serializers.CharField(),
        "components": serializers.DictField(child=serializers.DictField()),
    },
)


def healthz(request):
    """Public liveness probe: the process answers. No database or cache is touched."""
    return JsonResponse(success_body({"status": "ok"}))


class HealthView(ApiView):
    """Database, cache and worker status for any signed-in user (also staff without an account)."""

    permission_classes = [IsAuthenticated]
    tenant_scope = "global"

    @extend_schema(tags=["system"], responses={200: HEALTH_RESULT})
    def get(self, request):
        return ok(system_health())
