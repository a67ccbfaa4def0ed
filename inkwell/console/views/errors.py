"""What Django answers for an address no route matches: under the console's prefix a page a person
can read and leave, elsewhere the API's JSON envelope."""

from django.urls import reverse

from inkwell.api.exceptions import GENERAL_MESSAGES
from inkwell.api.exceptions import handler404 as api_not_found
from inkwell.console.base import render_page


def not_found(request, exception=None):
    if not request.path.startswith(reverse("console:home")):
        return api_not_found(request, exception)
    context = {"status": 404, "error": GENERAL_MESSAGES[404], "errors": {}}
    return render_page(request, "console/pages/refusal.html", context, status=404)
