from rest_framework.renderers import JSONRenderer

from inkwell.api.envelope import Enveloped, success_body


class EnvelopeJSONRenderer(JSONRenderer):
    """Wraps every successful body in the success envelope; 204 and empty bodies stay empty."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None and response.status_code == 204:
            return b""
        if not isinstance(data, Enveloped) and (response is None or response.status_code < 400):
            data = success_body(data)
        return super().render(data, accepted_media_type, renderer_context)
