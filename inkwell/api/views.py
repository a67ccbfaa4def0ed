"""Base classes every API view builds on (tests/test_api_conventions.py checks that they do)."""

from rest_framework import exceptions, viewsets
from rest_framework.views import APIView


class CountRefusedRequestsMixin:
    """Counts refused requests (401, 403) against the rate limit as well.

    DRF checks throttles only after authentication and permissions have passed, so without this
    a refused request would carry no X-RateLimit headers and credential guessing would never be
    limited. A refused caller over the limit gets the 429.
    """

    def initial(self, request, *args, **kwargs):
        try:
            super().initial(request, *args, **kwargs)
        except exceptions.APIException as refusal:
            if refusal.status_code in (401, 403):
                self.check_throttles(request)
            raise


class ApiView(CountRefusedRequestsMixin, APIView):
    pass


class ApiGenericViewSet(CountRefusedRequestsMixin, viewsets.GenericViewSet):
    pass


class ApiReadOnlyModelViewSet(CountRefusedRequestsMixin, viewsets.ReadOnlyModelViewSet):
    pass
