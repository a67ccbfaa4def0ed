"""The console's one form layer: a refused save shows the page again, with what the person typed,
the API's messages beside the fields they name, a summary at the top of the page linking to each
field, and the API's status, instead of a dead-end refusal page. Every screen whose POST can be
refused for its input is a ``FormsView`` (the settings, the team, the editor, the first site, the
calendar's schedule and move, ...); the rules and the messages are the services' own (``validated``
runs the API's input serializers, the services raise the API's exceptions)."""

from rest_framework import exceptions

from inkwell.api.exceptions import BusinessRuleViolation, Conflict, PlanLimitReached, StateConflict
from inkwell.console.base import ConsoleView, refusal_messages

# Refusals that say what is wrong with the input; others (403, 404, 429) stay the refusal page.
FIELD_REFUSALS = (exceptions.ValidationError, Conflict, StateConflict, BusinessRuleViolation, PlanLimitReached)
NON_FIELD = "non_field_errors"


def without_prefix(errors: dict, prefix: str) -> dict:
    """The API's error paths of one section (``publishing_settings.daily_publish_limit``) as the
    form's field names (``daily_publish_limit``)."""
    return {name.removeprefix(prefix): messages for name, messages in errors.items()}


def changed(values: dict, current: dict) -> dict:
    """The submitted values that differ from what applies now: a save names only what the person
    changed, so a field left alone keeps following the server's default."""
    return {name: value for name, value in values.items() if current.get(name) != value}


def error_summary(errors: dict, *, anchors: dict[str, str], labels: dict[str, str]) -> list[dict]:
    """The summary at the top of a refused page: each message with the name of its field and a
    link to it (``#id_<field>`` unless ``anchors`` says otherwise); a message about the whole
    form has no link."""
    summary = []
    for name, messages in errors.items():
        for message in messages:
            if name == NON_FIELD:
                summary.append({"message": message, "label": "", "href": ""})
            else:
                label = labels.get(name) or name.rsplit(".", 1)[-1].replace("_", " ").capitalize()
                summary.append({"message": message, "label": label, "href": "#" + anchors.get(name, f"id_{name}")})
    return summary


def outside_the_rules(refused: exceptions.APIException, *, action: str, fields: dict, subject: str = "article") -> dict:
    """What a page refused by the site's publishing rules shows beside its summary: the rule, and
    "Schedule anyway" posting the same time again with the override (contract section 12)."""
    error, _errors = refusal_messages(refused)
    return {"error_summary_title": f"Outside the publishing rules: {error}", "schedule_anyway": {"action": action, "fields": fields, "subject": subject}}


class FormSubmission(ConsoleView):
    """A form's POST whose refusal shows a page (``context`` and ``template_name``) again, as
    ``FormsView`` does; for a form that lives on another view's page (the calendar's schedule
    and move)."""

    # The API's error paths of a form's section, left out of the form's field names.
    error_prefixes: dict[str, str] = {}
    # The id of a field's control where it is not ``id_<field>``, and the names people read.
    field_anchors: dict[str, str] = {}
    field_labels: dict[str, str] = {}

    def post(self, request, **kwargs):
        try:
            return self.save(request, **kwargs)
        except FIELD_REFUSALS as exc:
            return self.refused(request, exc, **kwargs)

    def refusal_of(self, exc: exceptions.APIException) -> tuple[str, dict]:
        """The general message and the field messages a refusal shows: the API's."""
        return refusal_messages(exc)

    def refused(self, request, exc: exceptions.APIException, *, extra: dict | None = None, **kwargs):
        """The page again, refused; ``extra``: more for it to show (a "Schedule anyway")."""
        error, errors = self.refusal_of(exc)
        form = request.POST.get("form", "")
        errors = without_prefix(errors, self.error_prefixes.get(form, "")) or {NON_FIELD: [error]}
        context = self.context(request, submitted=request.POST, **kwargs)
        failed = {
            "form": form,
            "form_errors": {form: errors},
            **({"errors": errors} if form == "" else {}),
            "error_summary": error_summary(errors, anchors=self.field_anchors, labels=self.field_labels),
        }
        return self.page(request, {**context, **failed, **(extra or {})}, status=exc.status_code)


class FormsView(FormSubmission):
    """A page of one or more forms, each naming itself in a ``form`` field (or none, for a page
    of one form). ``save`` does the work of a POST; when a service refuses the input, the page is
    rendered again from ``context(request, submitted=request.POST)``, which shows the sent form
    with what was typed (never a secret), with the API's status, its messages in
    ``form_errors[form]`` (a template reads them as ``{% with errors=form_errors.<form> %}``, a
    page of one form, which sends no ``form``, as ``errors``) and the page's ``error_summary``."""

    def get(self, request, **kwargs):
        return self.page(request, {**self.context(request, **kwargs), "form": "", "form_errors": {}, "errors": {}})


def submitted_values(submitted, form: str, read, current: dict) -> dict:
    """A form's values to show: what was typed when it is the form that failed, else ``current``."""
    if submitted is not None and submitted.get("form", "") == form:
        return {**current, **read(submitted)}
    return current
