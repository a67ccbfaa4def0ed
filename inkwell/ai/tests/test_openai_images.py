"""The openai image provider, end to end over HTTP against the OpenAI-compatible test server."""

from io import BytesIO

import pytest
from PIL import Image

from inkwell.ai.errors import InvalidProviderOutput, ProviderRateLimited, ProviderUnavailable
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.openai import OpenAIImageProvider
from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour, OpenAICompatibleServer


def provider_for(server: OpenAICompatibleServer, **overrides) -> OpenAIImageProvider:
    values = {"provider": "openai", "base_url": server.base_url, "api_key": TEST_API_KEY, "model": "gpt-image-1", "timeout_seconds": 5, "max_retries": 0, "allow_private": True}
    return OpenAIImageProvider(ProviderConfig(**{**values, **overrides}))


def encoded(image_format: str) -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (40, 30), (10, 120, 200)).save(buffer, format=image_format)
    return buffer.getvalue()


def test_generated_image_is_a_decoded_png_of_the_requested_size(openai_server):
    result = provider_for(openai_server).generate_image("A tomato plant on a balcony", size="1024x1536", style="photorealistic")

    image = result.value
    assert (image.mime_type, image.width, image.height) == ("image/png", 1024, 1536)
    assert image.prompt == "A tomato plant on a balcony"
    with Image.open(BytesIO(image.data)) as decoded:
        assert (decoded.format, decoded.size) == ("PNG", (1024, 1536))
    assert result.usage.completion_tokens == 1056 and result.usage.model == "gpt-image-1"
    [request] = openai_server.requests_to("images")
    assert request.headers["authorization"] == f"Bearer {TEST_API_KEY}"
    assert request.body["model"] == "gpt-image-1" and request.body["size"] == "1024x1536" and request.body["n"] == 1
    assert request.body["prompt"].startswith("A tomato plant on a balcony") and "photorealistic" in request.body["prompt"]
    # GPT image models always answer in base64 and reject the legacy parameter.
    assert "response_format" not in request.body


def test_models_that_answer_with_urls_by_default_are_asked_for_base64(openai_server):
    result = provider_for(openai_server, model="dall-e-3").generate_image("A rose", size="1024x1024", style="")

    assert (result.value.width, result.value.height) == (1024, 1024)
    [request] = openai_server.requests_to("images")
    assert request.body["response_format"] == "b64_json" and request.body["prompt"] == "A rose"


def test_a_deployment_that_refuses_response_format_is_asked_again_without_it(openai_server):
    openai_server.script("images", [Behaviour.status(400, error_code="unknown_parameter", param="response_format")])

    result = provider_for(openai_server, model="dall-e-3").generate_image("A rose", size="1024x1024", style="")

    assert result.value.mime_type == "image/png"
    first, second = (request.body for request in openai_server.requests_to("images"))
    assert first["response_format"] == "b64_json" and "response_format" not in second


def test_an_image_request_refused_for_another_reason_is_not_repeated(openai_server):
    openai_server.script("images", [Behaviour.status(400, param="size")])

    with pytest.raises(ProviderUnavailable):
        provider_for(openai_server, model="dall-e-3").generate_image("A rose", size="1024x1024", style="")

    assert len(openai_server.requests_to("images")) == 1


def test_an_image_url_on_the_endpoints_own_host_is_fetched(openai_server):
    openai_server.script("images", [Behaviour.image_url()])

    image = provider_for(openai_server).generate_image("A rose", size="512x512", style="").value

    assert (image.mime_type, image.width, image.height) == ("image/png", 512, 512)
    assert [r.path.startswith("/v1/files/") for r in openai_server.requests if r.endpoint is None] == [True]


def test_an_image_url_on_another_host_is_never_fetched(openai_server):
    with OpenAICompatibleServer() as elsewhere:
        openai_server.script("images", [Behaviour.image_url(f"{elsewhere.origin}/v1/files/img.png")])

        with pytest.raises(InvalidProviderOutput):
            provider_for(openai_server).generate_image("A rose", size="512x512", style="")

        assert elsewhere.requests == []


@pytest.mark.parametrize("payload", [b"GIF89a\x01\x00\x01\x00", b"<svg xmlns='http://www.w3.org/2000/svg'/>", b"\x89PNG\r\n\x1a\nbroken"])
def test_an_answer_that_is_not_a_png_jpeg_or_webp_image_is_rejected(openai_server, payload):
    openai_server.script("images", [Behaviour.content(payload)])

    with pytest.raises(InvalidProviderOutput):
        provider_for(openai_server).generate_image("A rose", size="512x512", style="")


@pytest.mark.parametrize(("image_format", "mime_type"), [("JPEG", "image/jpeg"), ("WEBP", "image/webp"), ("PNG", "image/png")])
def test_jpeg_webp_and_png_answers_are_read_from_their_bytes(openai_server, image_format, mime_type):
    openai_server.script("images", [Behaviour.content(encoded(image_format))])

    image = provider_for(openai_server).generate_image("A rose", size="1024x1024", style="").value

    assert (image.mime_type, image.width, image.height) == (mime_type, 40, 30)


def test_a_rate_limited_image_request_is_retried_then_raises(openai_server):
    openai_server.script("images", [Behaviour.status(429, retry_after=0.01)] * 2)

    with pytest.raises(ProviderRateLimited):
        provider_for(openai_server, max_retries=1).generate_image("A rose", size="512x512", style="")

    assert len(openai_server.requests_to("images")) == 2


def test_a_malformed_size_is_refused_before_any_request(openai_server):
    with pytest.raises(ValueError):
        provider_for(openai_server).generate_image("A rose", size="big", style="")

    assert openai_server.requests == []
