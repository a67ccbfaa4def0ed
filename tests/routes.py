"""Every route under /api/v1/, discovered from the URL conf, for the cross-cutting suites."""

from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

from inkwell.tenancy.viewsets import AccountScopedViewSet

API_PREFIX = "api/v1/"


@dataclass(frozen=True)
class Route:
    name: str
    pattern: str
    view_class: type
    methods: tuple[str, ...]
    actions: dict | None
    kwargs: tuple[str, ...]

    @property
    def is_scoped(self) -> bool:
        return issubclass(self.view_class, AccountScopedViewSet)

    @property
    def tenant_scope(self) -> str | None:
        return getattr(self.view_class, "tenant_scope", None)

    def __str__(self):
        return f"{self.pattern} ({self.view_class.__name__})"


def _walk(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def discover_api_routes() -> list[Route]:
    routes = []
    for pattern, entry in _walk(get_resolver().url_patterns):
        if not pattern.lstrip("^").startswith(API_PREFIX):
            continue
        callback = entry.callback
        view_class = getattr(callback, "cls", None)
        actions = getattr(callback, "actions", None)
        if actions:
            methods = tuple(sorted(actions))
        else:
            methods = tuple(sorted(m for m in view_class.http_method_names if m not in {"options", "head"} and hasattr(view_class, m)))
        routes.append(Route(entry.name, pattern, view_class, methods, actions, tuple(entry.pattern.regex.groupindex)))
    return routes




CONSOLE_PREFIX = "app/"


@dataclass(frozen=True)
class ConsoleRoute:
    name: str
    pattern: str
    view_class: type
    methods: tuple[str, ...]
    kwargs: tuple[str, ...]

    @property
    def tenant_scope(self) -> str | None:
        return getattr(self.view_class, "tenant_scope", None)

    def __str__(self):
        return f"{self.pattern} ({self.view_class.__name__})"


def discover_console_routes() -> list[ConsoleRoute]:
    """Every route of the console (/app/), with the HTTP methods its view answers."""
    routes = []
    for pattern, entry in _walk(get_resolver().url_patterns):
        if not pattern.lstrip("^").startswith(CONSOLE_PREFIX):
            continue
        view_class = entry.callback.view_class
        methods = tuple(m for m in ("get", "post") if hasattr(view_class, m))
        routes.append(ConsoleRoute(f"console:{entry.name}", pattern, view_class, methods, tuple(entry.pattern.regex.groupindex)))
    return routes
