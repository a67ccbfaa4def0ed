"""An OpenAI-compatible HTTP server for tests: the real wire protocol on 127.0.0.1.

It answers ``POST /v1/chat/completions``, ``POST /v1/embeddings``, ``POST /v1/images/generations`` and ``GET /v1/models``
the way the OpenAI API does (bodies, statuses, ``x-request-id``, ``Retry-After``, error bodies
``{"error": {"message", "type", "param", "code"}}``), checks the bearer key, the model and the
request shape, and records every request.

By default a chat request gets a valid answer derived from the request, so code that runs on the
``openai`` provider works end to end against it: the operation is read from the ``title`` of the
JSON Schema on the system message's last line, and its inputs from the JSON on the user message's
last line (keywords grouped into clusters by their first word, ideas for the given cluster,
an article of about the requested word count, ...).

Tests script what an endpoint does next, one behaviour per request, then back to normal::

    with OpenAICompatibleServer() as server:
        server.script("chat", [Behaviour.status(429, retry_after=0.01), Behaviour.ok()])
        ...
        assert len(server.requests_to("chat")) == 2

An embedding is a deterministic bag of words: each lower-cased word adds +1 or -1 to one of
``EMBEDDING_DIMENSIONS`` dimensions picked by its hash, so texts that share words are close (as
``float`` lists, or base64 float32 with ``encoding_format="base64"``, as the API sends them).

Realistic timing: ``latencies`` gives the seconds an answer takes, per chat operation (the schema's
title, such as ``"write_article"``), per endpoint (``"images"``, ``"chat"`` for other chat calls)
or ``"*"``; ``max_in_flight`` makes it a provider that allows so many calls at once and answers
any more with 429 and ``retry-after-ms`` of ``cap_retry_after`` seconds. It counts the calls it
works on (``in_flight``, ``peak_in_flight``, and ``in_flight_log``: every change as
``(monotonic time, calls)``) and the calls it refused (``refused``, and per endpoint
``refused_by_endpoint``)::

    OpenAICompatibleServer(latencies={"write_article": 0.25, "images": 0.1, "chat": 0.04}, max_in_flight=4)

Endpoints are named ``"chat"``, ``"embeddings"``, ``"images"`` and ``"models"``. The SDK ignores a ``Retry-After``
of 0 and falls back to its own backoff (0.5 s and up), so quick tests use a small positive value,
sent as ``retry-after-ms`` as OpenAI does.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import threading
import time
import uuid
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from io import BytesIO
from typing import Any

import pytest
from PIL import Image, ImageDraw

from tests.loopback import LoopbackServer

TEST_API_KEY = "sk-inkwell-test-4f9c2a7e1b3d5f60"
DEFAULT_MODELS = ("gpt-4o-mini", "gpt-4o", "gpt-image-1", "dall-e-3", "text-embedding-3-small")
EMBEDDING_DIMENSIONS = 64
ENDPOINTS = {
    ("POST", "/v1/chat/completions"): "chat",
    ("POST", "/v1/embeddings"): "embeddings",
    ("POST", "/v1/images/generations"): "images",
    ("GET", "/v1/models"): "models",
}
_ERROR_TYPES = {
    400: ("invalid_request_error", None, "The request is invalid."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported."),
    404: ("invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."),
    408: ("server_error", None, "Request timed out."),
    409: ("invalid_request_error", None, "Conflict."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."),
    500: ("server_error", None, "The server had an error while processing your request. Sorry about that!"),
    502: ("server_error", None, "Bad gateway."),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}
_STRUCTURES = ("guide", "listicle", "how_to", "comparison", "review")
_FILLER = (
    "Readers get the most from {kw} when they start with a clear goal and a short checklist.",
    "A practical approach to {kw} saves time, avoids common mistakes and keeps costs predictable.",
    "Compare a few options, test them on a small scale, and keep notes on what works for {kw}.",
    "Experts agree that consistency matters more than perfection when it comes to {kw}.",
    "Small improvements add up, so review your {kw} routine every few weeks and adjust it.",
)


@dataclass(frozen=True)
class Behaviour:
    """What an endpoint does with one request."""

    kind: str = "ok"
    status_code: int = 200
    retry_after: float | None = None
    error_code: str | None = None
    error_param: str | None = None
    seconds: float = 0.0
    text: str | None = None
    finish_reason: str = "stop"
    data: bytes | None = None
    url: str | None = None

    @classmethod
    def ok(cls) -> Behaviour:
        """The normal answer, derived from the request."""
        return cls()

    @classmethod
    def status(cls, code: int, *, retry_after: float | None = None, error_code: str | None = None, param: str | None = None) -> Behaviour:
        """An OpenAI error body with this status (``error_code`` overrides the usual ``code``;
        ``param`` names the offending request parameter)."""
        return cls(kind="status", status_code=code, retry_after=retry_after, error_code=error_code, error_param=param)

    @classmethod
    def malformed_json(cls) -> Behaviour:
        """A chat answer whose content is not JSON (prose around a cut-off object)."""
        return cls(kind="content", text='Sure! Here is the JSON you asked for: {"clusters": [{"name": ')

    @classmethod
    def content(cls, content: str | bytes | dict | list, *, finish_reason: str = "stop") -> Behaviour:
        """A chat answer with exactly this content (a dict or list is sent as JSON) and finish
        reason ("length": cut off at the token limit); for images, these bytes as the image; for
        embeddings, this JSON as the whole answer."""
        if isinstance(content, bytes):
            return cls(kind="content", data=content)
        return cls(kind="content", text=content if isinstance(content, str) else json.dumps(content), finish_reason=finish_reason)

    @classmethod
    def delay(cls, seconds: float) -> Behaviour:
        """Wait, then answer normally: longer than the client's timeout, it is a timeout."""
        return cls(kind="delay", seconds=seconds)

    @classmethod
    def redirect(cls, location: str, *, code: int = 307) -> Behaviour:
        """A redirect to ``location``, as a proxy or a moved endpoint answers."""
        return cls(kind="redirect", status_code=code, url=location)

    @classmethod
    def image_url(cls, url: str | None = None) -> Behaviour:
        """An images answer with a ``url`` instead of ``b64_json``: ``url``, or (None) a URL on this
        server that serves the generated image."""
        return cls(kind="image_url", url=url)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    endpoint: str | None
    headers: dict[str, str]  # lower-case names
    body: Any  # parsed JSON, or None
    received_at: float = field(default_factory=time.monotonic)


class _Stop(Exception):
    pass


class OpenAICompatibleServer(LoopbackServer):
    def __init__(
        self,
        *,
        api_key: str | None = TEST_API_KEY,
        models: Iterable[str] = DEFAULT_MODELS,
        latencies: dict[str, float] | None = None,
        max_in_flight: int | None = None,
        cap_retry_after: float = 0.2,
    ):
        """``api_key=None`` accepts any bearer key, as Ollama does."""
        super().__init__()
        self.api_key = api_key
        self.models = list(models)
        self.latencies = dict(latencies or {})
        self.max_in_flight = max_in_flight
        self.cap_retry_after = cap_retry_after
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self.refused = 0
        self.refused_by_endpoint: dict[str, int] = defaultdict(int)
        self.in_flight_log: list[tuple[float, int]] = []
        self._scripts: dict[str, deque[Behaviour]] = defaultdict(deque)
        self._files: dict[str, bytes] = {}
        self._lock = threading.Lock()

    @property
    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    # -- scripting and records -------------------------------------------------------------
    def script(self, endpoint: str, behaviours: Iterable[Behaviour]) -> None:
        if endpoint not in ENDPOINTS.values():
            raise ValueError(f"unknown endpoint {endpoint!r}; one of {sorted(ENDPOINTS.values())}")
        with self._lock:
            self._scripts[endpoint].extend(behaviours)

    def requests_to(self, endpoint: str) -> list[RecordedRequest]:
        with self._lock:
            return [request for request in self.requests if request.endpoint == endpoint]

    def _next_behaviour(self, endpoint: str) -> Behaviour:
        with self._lock:
            queue = self._scripts[endpoint]
            return queue.popleft() if queue else Behaviour.ok()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _enter(self, endpoint: str) -> bool:
        """Counts a call in; False (a 429 to send) when ``max_in_flight`` calls are at work."""
        with self._lock:
            if self.max_in_flight is not None and self.in_flight >= self.max_in_flight:
                self.refused += 1
                self.refused_by_endpoint[endpoint] += 1
                return False
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            self.in_flight_log.append((time.monotonic(), self.in_flight))
            return True

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self.in_flight_log.append((time.monotonic(), self.in_flight))

    def _latency(self, endpoint: str, body: Any) -> float:
        if not self.latencies:
            return 0.0
        operation = _operation_of(body) if endpoint == "chat" else None
        for name in (operation, endpoint, "*"):
            if name in self.latencies:
                return self.latencies[name]
        return 0.0

    def _store_file(self, data: bytes) -> str:
        name = f"img-{uuid.uuid4().hex}.png"
        with self._lock:
            self._files[name] = data
        return f"{self.base_url}/files/{name}"

    def _file(self, name: str) -> bytes | None:
        with self._lock:
            return self._files.get(name)


class _ApiError(Exception):
    def __init__(self, status: int, message: str, *, error_type: str = "invalid_request_error", code: str | None = None, param: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": error_type, "param": param, "code": code}}
        self.headers = headers or {}


class _Handler(BaseHTTPRequestHandler):
    app: OpenAICompatibleServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: tests assert on ``server.requests`` instead."""

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        endpoint = ENDPOINTS.get((method, path))
        body = self._read_body()
        self.app._record(RecordedRequest(method, path, endpoint, {k.lower(): v for k, v in self.headers.items()}, body))
        try:
            if method == "GET" and path.startswith("/v1/files/"):
                self._serve_file(path.rsplit("/", 1)[-1])
                return
            if endpoint is None:
                raise _ApiError(404, f"Invalid URL ({method} {path})")
            counted = endpoint != "models"
            if counted and not self.app._enter(endpoint):
                raise _ApiError(
                    429, _ERROR_TYPES[429][2], error_type="requests", code="rate_limit_exceeded", headers={"retry-after-ms": str(int(self.app.cap_retry_after * 1000))}
                )
            try:
                self._answer(endpoint, body)
            finally:
                if counted:
                    self.app._leave()
        except _ApiError as error:
            self._send_json(error.status, error.body, error.headers)
        except (_Stop, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _answer(self, endpoint: str, body: Any) -> None:
        behaviour = self.app._next_behaviour(endpoint)
        if behaviour.kind == "delay" and self.app._stopping.wait(behaviour.seconds):
            raise _Stop
        if behaviour.kind == "status":
            raise _scripted_error(behaviour)
        if behaviour.kind == "redirect":
            self._send(behaviour.status_code, b"", "text/plain", {"Location": behaviour.url})
            return
        self._authenticate()
        payload = getattr(self, f"_{endpoint}")(body, behaviour)
        latency = self.app._latency(endpoint, body)
        if latency and self.app._stopping.wait(latency):
            raise _Stop
        self._send_json(200, payload)

    # -- plumbing ------------------------------------------------------------------------
    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, payload: Any, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self._send(status, data, "application/json", headers)

    def _send(self, status: int, data: bytes, content_type: str, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{uuid.uuid4().hex}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _serve_file(self, name: str) -> None:
        data = self.app._file(name)
        if data is None:
            raise _ApiError(404, "File not found")
        self._send(200, data, "image/png")

    def _authenticate(self) -> None:
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Bearer ") or not header[7:].strip():
            raise _ApiError(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.")
        key = header[7:].strip()
        if self.app.api_key is not None and key != self.app.api_key:
            masked = f"{key[:3]}***{key[-4:]}" if len(key) > 8 else "***"
            raise _ApiError(401, f"Incorrect API key provided: {masked}.", code="invalid_api_key")

    def _check_model(self, body: dict) -> str:
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise _ApiError(400, "you must provide a model parameter", param="model")
        if model not in self.app.models:
            raise _ApiError(404, f"The model `{model}` does not exist or you do not have access to it.", code="model_not_found")
        return model

    # -- endpoints -----------------------------------------------------------------------
    def _models(self, body: Any, behaviour: Behaviour) -> dict:
        return {
            "object": "list",
            "data": [{"id": model, "object": "model", "created": 1700000000, "owned_by": "inkwell-test"} for model in self.app.models],
        }

    def _chat(self, body: Any, behaviour: Behaviour) -> dict:
        if not isinstance(body, dict):
            raise _ApiError(400, "We could not parse the JSON body of your request.")
        model = self._check_model(body)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _ApiError(400, "[] is too short - 'messages'", param="messages")
        for message in messages:
            if not isinstance(message, dict) or message.get("role") not in {"system", "developer", "user", "assistant", "tool"} or not isinstance(message.get("content"), str):
                raise _ApiError(400, "Invalid message in 'messages'.", param="messages")
        if body.get("stream"):
            raise _ApiError(400, "This test server does not stream.", param="stream")
        response_format = body.get("response_format") or {"type": "text"}
        if not isinstance(response_format, dict) or response_format.get("type") not in {"text", "json_object", "json_schema"}:
            raise _ApiError(400, "Invalid value for 'response_format.type'.", param="response_format")
        if response_format["type"] == "json_object" and not any("json" in m["content"].lower() for m in messages):
            raise _ApiError(400, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", param="messages")
        content = behaviour.text if behaviour.kind == "content" and behaviour.text is not None else _answer(messages)
        prompt_tokens = sum(_tokens(m["content"]) for m in messages)
        completion_tokens = _tokens(content)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None}, "logprobs": None, "finish_reason": behaviour.finish_reason}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
            "system_fingerprint": "fp_inkwell_test",
        }

    def _embeddings(self, body: Any, behaviour: Behaviour) -> dict:
        if not isinstance(body, dict):
            raise _ApiError(400, "We could not parse the JSON body of your request.")
        model = self._check_model(body)
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or not all(isinstance(text, str) and text for text in texts):
            raise _ApiError(400, "'input' must be a non-empty string or a list of non-empty strings.", param="input")
        if len(texts) > 2048:
            raise _ApiError(400, "'input' must have at most 2048 items.", param="input")
        if behaviour.kind == "content":
            return json.loads(behaviour.text or "null")
        encoding = body.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            raise _ApiError(400, "'encoding_format' must be 'float' or 'base64'.", param="encoding_format")
        data = []
        for index, text in enumerate(texts):
            vector = _bag_of_words(text)
            embedding: Any = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode() if encoding == "base64" else vector
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = sum(_tokens(text) for text in texts)
        return {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}

    def _images(self, body: Any, behaviour: Behaviour) -> dict:
        if not isinstance(body, dict):
            raise _ApiError(400, "We could not parse the JSON body of your request.")
        model = self._check_model(body)
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise _ApiError(400, "Missing required parameter: 'prompt'.", param="prompt")
        gpt_image = model.startswith("gpt-image")
        response_format = body.get("response_format")
        if gpt_image and response_format is not None:
            raise _ApiError(400, "Unknown parameter: 'response_format'.", param="response_format", code="unknown_parameter")
        if response_format not in (None, "url", "b64_json"):
            raise _ApiError(400, f"Invalid value: '{response_format}'. Supported values are: 'url' and 'b64_json'.", param="response_format")
        n = body.get("n", 1)
        if not isinstance(n, int) or not 1 <= n <= 4:
            raise _ApiError(400, "'n' must be between 1 and 4.", param="n")
        width, height = _size(body.get("size"))
        images = [_png(prompt, width, height, index) for index in range(n)]
        if behaviour.kind == "content":
            data = [{"b64_json": base64.b64encode(behaviour.data or (behaviour.text or "").encode()).decode()}]
        elif behaviour.kind == "image_url":
            data = [{"url": behaviour.url or self.app._store_file(image)} for image in images]
        elif gpt_image or response_format == "b64_json":
            data = [{"b64_json": base64.b64encode(image).decode()} for image in images]
        else:
            data = [{"url": self.app._store_file(image)} for image in images]
        answer: dict[str, Any] = {"created": int(time.time()), "data": data}
        if gpt_image:
            answer["usage"] = {
                "input_tokens": _tokens(prompt),
                "input_tokens_details": {"image_tokens": 0, "text_tokens": _tokens(prompt)},
                "output_tokens": 1056,
                "total_tokens": _tokens(prompt) + 1056,
            }
        return answer


def _scripted_error(behaviour: Behaviour) -> _ApiError:
    error_type, code, message = _ERROR_TYPES.get(behaviour.status_code, ("server_error", None, "Error."))
    headers = {}
    if behaviour.retry_after is not None:
        headers["retry-after-ms"] = str(round(behaviour.retry_after * 1000))
        headers["Retry-After"] = str(math.ceil(behaviour.retry_after))
    return _ApiError(behaviour.status_code, message, error_type=error_type, code=behaviour.error_code or code, param=behaviour.error_param, headers=headers)


def _bag_of_words(text: str) -> list[float]:
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in text.lower().split():
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % EMBEDDING_DIMENSIONS] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(value * value for value in vector)) or 1.0
    return [value / norm for value in vector]


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _size(value: Any) -> tuple[int, int]:
    if value in (None, "auto"):
        return 1024, 1024
    try:
        width, height = (int(part) for part in str(value).split("x"))
    except ValueError:
        raise _ApiError(400, f"Invalid value: '{value}'.", param="size") from None
    if not (16 <= width <= 4096 and 16 <= height <= 4096):
        raise _ApiError(400, f"Invalid value: '{value}'.", param="size")
    return width, height


def _png(prompt: str, width: int, height: int, index: int) -> bytes:
    digest = hashlib.sha256(f"{prompt}/{index}".encode()).digest()
    image = Image.new("RGB", (width, height), tuple(digest[:3]))
    ImageDraw.Draw(image).rectangle((width // 4, height // 4, 3 * width // 4, 3 * height // 4), fill=tuple(digest[3:6]))
    buffer = BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


# -- default answers: what a cooperative model would say, derived from the request ------------
def _last_json_line(text: str) -> Any:
    try:
        return json.loads(text.rstrip().rsplit("\n", 1)[-1])
    except ValueError:
        return None


def _operation_of(body: Any) -> str | None:
    """The Inkwell operation a chat request asks for: the title of its system message's schema."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return None
    system = next((m.get("content") for m in messages if isinstance(m, dict) and m.get("role") in {"system", "developer"}), None)
    schema = _last_json_line(system) if isinstance(system, str) else None
    return schema.get("title") if isinstance(schema, dict) else None


def _answer(messages: list[dict]) -> str:
    system = next((m["content"] for m in messages if m["role"] in {"system", "developer"}), "")
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    schema = _last_json_line(system)
    inputs = _last_json_line(user)
    operation = schema.get("title") if isinstance(schema, dict) else None
    answer = _ANSWERS.get(operation)
    if answer is None or not isinstance(inputs, dict):
        return json.dumps({"answer": "This test server answers Inkwell's operations."})
    return json.dumps(answer(inputs))


def _cluster_keywords(inputs: dict) -> dict:
    groups: dict[str, list[int]] = {}
    for keyword in inputs.get("keywords", []):
        words = str(keyword.get("keyword", "")).split()
        groups.setdefault(words[0].lower() if words else "other", []).append(keyword["id"])
    return {
        "clusters": [
            {"name": word.capitalize(), "description": f"Searches about {word}.", "keyword_ids": ids} for word, ids in groups.items()
        ]
    }


def _generate_ideas(inputs: dict) -> dict:
    name = inputs.get("cluster_name") or "Topic"
    keywords = inputs.get("keywords") or [name.lower()]
    ideas = []
    for index in range(max(1, int(inputs.get("count", 1)))):
        keyword = keywords[index % len(keywords)]
        structure = _STRUCTURES[index % len(_STRUCTURES)]
        ideas.append(
            {
                "title": f"{keyword.capitalize()}: a {structure.replace('_', '-')} for {name} ({index + 1})",
                "description": f"A {structure.replace('_', ' ')} that answers what people search for about {keyword}.",
                "content_type": "post",
                "content_structure": structure,
                "target_keywords": keywords[index % len(keywords):][:3] or [keyword],
                "outline": [f"What {keyword} means", f"How to choose {keyword}", f"Mistakes to avoid with {keyword}", "Conclusion"],
            }
        )
    return {"ideas": ideas}


def _paragraphs(keyword: str, words: int) -> Iterator[str]:
    sentences: list[str] = []
    count = 0
    index = 0
    while count < words:
        sentence = _FILLER[index % len(_FILLER)].format(kw=keyword)
        sentences.append(sentence)
        count += len(sentence.split())
        index += 1
        if len(sentences) == 4:
            yield " ".join(sentences)
            sentences = []
    if sentences:
        yield " ".join(sentences)


def _write_article(inputs: dict) -> dict:
    title = inputs.get("title") or "Untitled"
    keywords = inputs.get("keywords") or [title.lower()]
    focus = keywords[0]
    outline = inputs.get("outline") or [f"What is {focus}", f"How to get started with {focus}", f"Tips for {focus}", "Conclusion"]
    target = max(50, int(inputs.get("word_count", 1500)))
    per_section = max(20, (target - 30) // len(outline))
    html = [f"<p>This article explains {focus} step by step, so you can decide with confidence.</p>"]
    for heading in outline:
        html.append(f"<h2>{heading}</h2>")
        html.extend(f"<p>{paragraph}</p>" for paragraph in _paragraphs(focus, per_section))
    faq = []
    if inputs.get("include_faq"):
        faq = [
            {"question": f"What is {focus}?", "answer": f"{focus.capitalize()} is the topic this article covers in depth."},
            {"question": f"How long does {focus} take?", "answer": "Most readers see results within a few weeks."},
        ]
    return {
        "title": title,
        "meta_title": title[:60],
        "meta_description": f"Learn about {focus}: {title}."[:160],
        "focus_keyword": focus,
        "outline": outline,
        "html": "".join(html),
        "faq": faq,
    }


def _extract_image_prompts(inputs: dict) -> dict:
    title = inputs.get("title") or "the article"
    style = inputs.get("style") or "photorealistic"
    headings = inputs.get("outline") or [title]
    images = []
    for index in range(max(1, int(inputs.get("count", 1)))):
        subject = title if index == 0 else headings[(index - 1) % len(headings)]
        images.append(
            {
                "prompt": f"A {style} illustration of {subject}, clean composition, natural light",
                "alt_text": f"Illustration of {subject}",
                "image_type": "featured" if index == 0 else "in_article",
            }
        )
    return {"images": images}


def _optimize_article(inputs: dict) -> dict:
    focus = inputs.get("focus_keyword") or ""
    article = {key: inputs.get(key) for key in ("title", "meta_title", "meta_description", "focus_keyword", "outline", "html", "faq")}
    changes = []
    if focus and focus.lower() not in (article["meta_description"] or "").lower():
        article["meta_description"] = f"{focus.capitalize()}: {article['meta_description']}"[:160]
        changes.append("Added the focus keyword to the meta description")
    article["html"] = f"<p>In short: {focus} works best with a plan, and this article gives you one.</p>{article['html']}"
    changes.append("Added a summary paragraph with the focus keyword at the start")
    return {**article, "changes": changes}


_ANSWERS = {
    "cluster_keywords": _cluster_keywords,
    "generate_ideas": _generate_ideas,
    "write_article": _write_article,
    "extract_image_prompts": _extract_image_prompts,
    "optimize_article": _optimize_article,
}


@pytest.fixture
def openai_server(settings) -> Iterator[OpenAICompatibleServer]:
    """A running server; its base URL is ``openai_server.base_url`` and its key ``TEST_API_KEY``.

    It listens on loopback, which provider calls may reach only with private endpoints allowed
    (``AI_ALLOW_PRIVATE_ENDPOINTS``, off by default): the fixture turns that on."""
    settings.INKWELL_AI = {**settings.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": True}
    with OpenAICompatibleServer() as server:
        yield server
