"""Base classes every API view builds on (tests/test_api_conventions.py checks that they do), and
the one way views validate their input."""

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


def validated(serializer_class, request, *, partial: bool = False, data=None) -> dict:
    """The request body (or ``data``) validated by the serializer; invalid input raises the 400."""
    serializer = serializer_class(data=request.data if data is None else data, partial=partial, context={"request": request})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def validated_query(serializer_class, request) -> dict:
    """The query string validated by the serializer.

    Passed as a plain dict: DRF reads a boolean missing from a QueryDict as false, which would filter.
    """
    return validated(serializer_class, request, data=request.query_params.dict())
