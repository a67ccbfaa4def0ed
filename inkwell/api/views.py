"""Base classes every API view builds on (tests/test_api_conventions.py checks that they do), and
the one way views validate their input."""

from rest_framework import exceptions, serializers, viewsets
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


REPEATED_PARAMETER = "Give this parameter once"


class SingleQueryValuesMixin:
    """No query parameter of this API takes several values (lists are comma-separated), so one
    given twice is a 400 rather than a silent pick of the last value."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        repeated = sorted(name for name, values in request.query_params.lists() if len(values) > 1)
        if repeated:
            raise exceptions.ValidationError({name: [REPEATED_PARAMETER] for name in repeated})


class ApiView(SingleQueryValuesMixin, CountRefusedRequestsMixin, APIView):
    pass


class ApiGenericViewSet(SingleQueryValuesMixin, CountRefusedRequestsMixin, viewsets.GenericViewSet):
    pass


class ApiReadOnlyModelViewSet(SingleQueryValuesMixin, CountRefusedRequestsMixin, viewsets.ReadOnlyModelViewSet):
    pass


def _json_type_errors(field, value, path: str) -> dict[str, list[str]]:
    """Where a JSON value is not of the type its field documents (``0`` for a string, ``"true"``
    for a boolean, ``"5"`` for an integer): DRF would coerce it, the schema says it is invalid,
    and a client that sends it has a bug worth hearing about. Nested serializers, lists and dicts
    are walked; every other field checks its own input."""
    if value is None or field.read_only:
        return {}
    if isinstance(field, serializers.BooleanField):
        wrong = not isinstance(value, bool)
    elif isinstance(field, serializers.CharField):
        wrong = not isinstance(value, str)
    elif isinstance(field, serializers.IntegerField):
        wrong = isinstance(value, (bool, str)) or (isinstance(value, float) and not value.is_integer())
    elif isinstance(field, (serializers.FloatField, serializers.DecimalField)):
        wrong = isinstance(value, (bool, str))
    elif isinstance(field, serializers.ListSerializer) or isinstance(field, serializers.ListField):
        child = field.child
        if not isinstance(value, list) or child is None:
            return {}
        return {key: messages for index, item in enumerate(value) for key, messages in _json_type_errors(child, item, f"{path}.{index}").items()}
    elif isinstance(field, serializers.DictField):
        if not isinstance(value, dict) or field.child is None:
            return {}
        return {key: messages for name, item in value.items() for key, messages in _json_type_errors(field.child, item, f"{path}.{name}").items()}
    elif isinstance(field, serializers.Serializer):
        return _body_type_errors(field, value, f"{path}.") if isinstance(value, dict) else {}
    else:
        return {}
    return {path: [str(field.error_messages["invalid"])]} if wrong else {}


def _body_type_errors(serializer, data, prefix: str = "") -> dict[str, list[str]]:
    if not isinstance(data, dict):
        return {}
    errors: dict[str, list[str]] = {}
    for name, field in serializer.fields.items():
        if name in data:
            errors.update(_json_type_errors(field, data[name], f"{prefix}{name}"))
    return errors


def validated(serializer_class, request, *, partial: bool = False, data=None, json_types: bool = True) -> dict:
    """The request body (or ``data``) validated by the serializer; invalid input raises the 400.

    A JSON body is held to the types its fields document (``json_types``): query strings,
    which carry only strings, are not."""
    serializer = serializer_class(data=request.data if data is None else data, partial=partial, context={"request": request})
    if json_types:
        errors = _body_type_errors(serializer, serializer.initial_data)
        if errors:
            raise exceptions.ValidationError(errors)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def validated_query(serializer_class, request) -> dict:
    """The query string validated by the serializer.

    Passed as a plain dict: DRF reads a boolean missing from a QueryDict as false, which would filter.
    """
    return validated(serializer_class, request, data=request.query_params.dict(), json_types=False)


class FiltersTheListOnlyMixin:
    """The view's FilterSet narrows its list and nothing else: an id in the path addresses its row
    whatever the query string holds, and a row is found without validating list filters."""

    def filter_queryset(self, queryset):
        return super().filter_queryset(queryset) if self.action == "list" else queryset
