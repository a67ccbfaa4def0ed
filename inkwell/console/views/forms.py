"""Pages of forms (the settings and the team): a refused save shows the page again, with the API's
messages beside the fields they name and the API's status, instead of the refusal page."""

from rest_framework import exceptions

from inkwell.api.exceptions import BusinessRuleViolation, Conflict, PlanLimitReached
from inkwell.console.base import ConsoleView, refusal_messages

# Refusals that say what is wrong with the input; others (403, 404, 429) stay the refusal page.
FIELD_REFUSALS = (exceptions.ValidationError, Conflict, BusinessRuleViolation, PlanLimitReached)


def without_prefix(errors: dict, prefix: str) -> dict:
    """The API's error paths of one section (``publishing_settings.daily_publish_limit``) as the
    form's field names (``daily_publish_limit``)."""
    return {name.removeprefix(prefix): messages for name, messages in errors.items()}


def changed(values: dict, current: dict) -> dict:
    """The submitted values that differ from what applies now: a save names only what the person
    changed, so a field left alone keeps following the server's default."""
    return {name: value for name, value in values.items() if current.get(name) != value}


class FormsView(ConsoleView):
    """A page of one or more forms, each naming itself in a ``form`` field. ``save`` does the work
    of a POST; when a service refuses the input, the page is rendered again from
    ``context(request, submitted=request.POST)``, which shows the sent form with what was typed
    (never a secret), with the API's status and its messages in ``form_errors[form]`` (a
    template reads them as ``{% with errors=form_errors.<form> %}``)."""

    # The API's error paths of a form's section, left out of the form's field names.
    error_prefixes: dict[str, str] = {}

    def get(self, request, **kwargs):
        return self.page(request, {**self.context(request, **kwargs), "form": "", "form_errors": {}})

    def post(self, request, **kwargs):
        try:
            return self.save(request, **kwargs)
        except FIELD_REFUSALS as exc:
            error, errors = refusal_messages(exc)
            form = request.POST.get("form", "")
            errors = without_prefix(errors, self.error_prefixes.get(form, ""))
            context = self.context(request, submitted=request.POST, **kwargs)
            failed = {"form": form, "form_errors": {form: errors or {"non_field_errors": [error]}}}
            return self.page(request, {**context, **failed}, status=exc.status_code)


def submitted_values(submitted, form: str, read, current: dict) -> dict:
    """A form's values to show: what was typed when it is the form that failed, else ``current``."""
    if submitted is not None and submitted.get("form") == form:
        return {**current, **read(submitted)}
    return current
