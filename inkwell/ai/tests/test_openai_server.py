"""The OpenAI-compatible test server speaks the protocol other tests rely on (raw HTTP, no SDK)."""

import json
import urllib.error
import urllib.request

from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour, OpenAICompatibleServer


def call(server: OpenAICompatibleServer, path: str, body: dict | None = None, key: str = TEST_API_KEY) -> tuple[int, dict, dict]:
    request = urllib.request.Request(
        f"{server.base_url}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hi as JSON"}], "response_format": {"type": "json_object"}}


def test_chat_answers_in_the_chat_completion_shape_with_usage_and_a_request_id(openai_server):
    status, headers, body = call(openai_server, "/chat/completions", CHAT)

    assert status == 200 and headers["x-request-id"].startswith("req_")
    assert body["object"] == "chat.completion" and body["model"] == "gpt-4o-mini"
    assert body["choices"][0]["message"]["role"] == "assistant" and body["choices"][0]["finish_reason"] == "stop"
    json.loads(body["choices"][0]["message"]["content"])
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]


def test_errors_have_the_openai_error_body_and_status(openai_server):
    status, _, body = call(openai_server, "/chat/completions", CHAT, key="sk-wrong-key-000000")
    assert status == 401 and body["error"]["code"] == "invalid_api_key" and set(body["error"]) == {"message", "type", "param", "code"}

    status, _, body = call(openai_server, "/chat/completions", {**CHAT, "model": "nope"})
    assert status == 404 and body["error"]["code"] == "model_not_found"

    status, _, body = call(openai_server, "/chat/completions", {**CHAT, "messages": [{"role": "user", "content": "hi"}]})
    assert status == 400 and body["error"]["param"] == "messages"

    status, _, body = call(openai_server, "/images/generations", {"model": "gpt-image-1", "prompt": "x", "response_format": "b64_json"})
    assert status == 400 and body["error"]["code"] == "unknown_parameter"


def test_scripted_behaviours_run_in_order_then_normal_answers_resume(openai_server):
    openai_server.script("chat", [Behaviour.status(429, retry_after=1.5), Behaviour.status(500)])

    first, second, third = (call(openai_server, "/chat/completions", CHAT) for _ in range(3))

    assert first[0] == 429 and first[1]["Retry-After"] == "2" and first[1]["retry-after-ms"] == "1500"
    assert first[2]["error"]["code"] == "rate_limit_exceeded"
    assert second[0] == 500 and second[2]["error"]["type"] == "server_error"
    assert third[0] == 200
    assert [request.endpoint for request in openai_server.requests] == ["chat"] * 3
    assert openai_server.requests[0].body == CHAT


def test_models_lists_the_servers_models():
    with OpenAICompatibleServer(models=["llama3"]) as server:
        status, _, body = call(server, "/models")

    assert status == 200 and body == {"object": "list", "data": [{"id": "llama3", "object": "model", "created": 1700000000, "owned_by": "inkwell-test"}]}
