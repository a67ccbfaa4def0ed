"""The ``openai`` provider: any OpenAI-compatible endpoint (OpenAI, Azure OpenAI, Ollama, vLLM,
LM Studio) through the official SDK.

Transport: the SDK retries connection errors, timeouts, 408, 409, 429 and 5xx answers
``config.max_retries`` times with exponential backoff (0.5 s doubling up to 8 s, minus up to 25 %
jitter) and waits what ``Retry-After`` / ``retry-after-ms`` asks when that is between 0 and 120 s
(``openai/_base_client.py``: ``_should_retry``, ``_calculate_retry_timeout``). Every SDK error is
mapped to an ``inkwell.ai.errors`` error whose message is safe to show and log.

Output: each text operation sends a system message carrying its JSON Schema
(``inkwell.ai.schemas``) and asks for ``response_format={"type": "json_object"}``, which every
common OpenAI-compatible server supports. An answer that is not JSON or does not match the schema
is asked for again once, with the reason; a second bad answer raises ``InvalidProviderOutput``.

Keys: an empty API key makes every operation raise ``ProviderNotConfigured``, except when the
base URL is a local or private-network server (Ollama, LM Studio, vLLM on the same machine or
LAN), which takes no key: the SDK still needs a bearer value, so ``LOCAL_SERVER_PLACEHOLDER_KEY``
is sent there instead.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from io import BytesIO
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx2
import numpy as np
import openai
from django.conf import settings
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from PIL import Image, UnidentifiedImageError

from inkwell import netguard
from inkwell.ai import limits, schemas
from inkwell.ai.analysis import analyze, blocks, count_words
from inkwell.ai.errors import (
    AIError,
    InvalidProviderOutput,
    ProviderAuthFailed,
    ProviderNotConfigured,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from inkwell.ai.local.clustering import cluster_keywords as cluster_by_vectors
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.types import (
    IMAGE_TYPES,
    AIResult,
    ArticleBrief,
    ArticleDraft,
    ClusterDraft,
    FaqItem,
    GeneratedImage,
    IdeaDraft,
    ImagePromptDraft,
    KeyCheck,
    KeywordInput,
    OptimizedArticle,
    TokenUsage,
)

logger = logging.getLogger("inkwell.ai")

T = TypeVar("T")

PROVIDER_NAME = "openai"
# Passed explicitly so that an OPENAI_BASE_URL in the process environment cannot redirect an
# account's key to another host: Inkwell's own setting is AI_BASE_URL.
DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Local servers (Ollama, LM Studio, vLLM) ignore the key, but the SDK refuses to run without one.
LOCAL_SERVER_PLACEHOLDER_KEY = "not-needed"
OTHER_CLUSTER_NAME = "Other"
OUTPUT_ATTEMPTS = 2  # the first answer, and one corrected retry
# Texts per embeddings request (OpenAI accepts up to 2,048 inputs in one).
EMBEDDING_BATCH = 1000
MAX_IMAGE_BYTES = 50 * 1024 * 1024
IMAGE_MIME_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
UNREACHABLE = "The AI provider could not be reached"
ADDRESS_NOT_ALLOWED = "The AI provider's address is not allowed (a private, loopback or link-local network address)"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_SIZE = re.compile(r"^([1-9][0-9]{1,4})x([1-9][0-9]{1,4})$")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)
_LABEL_SEPARATORS = re.compile(r"[^a-z0-9]+")

_SYSTEM_TEMPLATE = """You are the writing engine of Inkwell, a tool that plans and writes web content for SEO.
{rules}
Reply with one JSON object and nothing else: no prose, no Markdown code fences.
The object must validate against this JSON Schema:
{schema}"""

_RULES = {
    "cluster_keywords": (
        "Group the input keywords into topic clusters of closely related search intent. "
        "Put every keyword id from the input in exactly one cluster, use only ids from the input, "
        "and give each cluster a short name and a one-sentence description."
    ),
    "generate_ideas": (
        "Propose the requested number of distinct article ideas for the input cluster. "
        "content_type is a lowercase label such as post or page; content_structure is one of guide, "
        "listicle, how_to, comparison, review (or another short lowercase label). "
        "target_keywords are taken from the input keywords; outline lists the section headings."
    ),
    "write_article": (
        "Write the article the input brief describes, in the requested tone and structure and of "
        "about the requested word count. html is the article body as semantic HTML (h2/h3, p, ul/ol; "
        "no html, head or body tags, no scripts, no inline styles). meta_title stays under 60 "
        "characters and meta_description under 160, both containing the focus keyword. faq is empty "
        "unless the brief includes a FAQ."
    ),
    "extract_image_prompts": (
        "Write prompts for an image generator that illustrate the input article, in the requested "
        "style, as many as requested: the first has image_type featured, the others in_article. "
        "alt_text describes the image for screen readers in one sentence."
    ),
    "optimize_article": (
        "Improve the input article for search and readability without changing its facts or "
        "language: keep the focus keyword in the title, meta title, meta description, first "
        "paragraph and a heading; shorten long sentences; keep html semantic. changes lists each "
        "change made, one short sentence each."
    ),
}


class _BadOutput(Exception):
    """An answer that cannot be used; ``reason`` goes back to the model, never to a user or log."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class _Operation:
    validator: Draft202012Validator
    system_message: str


def _operation(schema: dict) -> _Operation:
    # The schema goes on the system message's last line, as compact JSON.
    system = _SYSTEM_TEMPLATE.format(rules=_RULES[schema["title"]], schema=json.dumps(schema, separators=(",", ":")))
    return _Operation(Draft202012Validator(schema), system)


_OPERATIONS = {schema["title"]: _operation(schema) for schema in schemas.ALL}


def is_local_endpoint(base_url: str) -> bool:
    """Whether ``base_url`` names this machine or a private network, where servers such as
    Ollama take no API key."""
    host = (urlsplit(base_url).hostname or "").lower()
    if not host:
        return False
    if host in {"localhost", "host.docker.internal"} or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private


def _safe_request_id(value: str | None) -> str:
    return value if value and _REQUEST_ID.fullmatch(value) else "-"


def _add_usage(total: TokenUsage, response: Any) -> TokenUsage:
    """``total`` plus the tokens ``response.usage`` reports (servers may leave usage out)."""
    usage = getattr(response, "usage", None)
    return TokenUsage(
        prompt_tokens=total.prompt_tokens + int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=total.completion_tokens + int(getattr(usage, "completion_tokens", 0) or 0),
        model=total.model,
    )


def _first_choice(response: Any) -> Any:
    choices = getattr(response, "choices", None) or []
    return choices[0] if choices else None


def _content(response: Any) -> str | None:
    content = getattr(getattr(_first_choice(response), "message", None), "content", None)
    return content if isinstance(content, str) else None


def _finish_reason(response: Any) -> str | None:
    return getattr(_first_choice(response), "finish_reason", None)


def _label(value: str) -> str:
    """``"How-To"`` → ``"how_to"``: models write labels in many cases and separators."""
    return _LABEL_SEPARATORS.sub("_", value.strip().lower()).strip("_")


def _strings(values: list[str]) -> list[str]:
    return [value.strip() for value in values if value.strip()]


def _article_inputs(article: ArticleDraft) -> dict:
    return {
        "title": article.title,
        "meta_title": article.meta_title,
        "meta_description": article.meta_description,
        "focus_keyword": article.focus_keyword,
        "outline": article.outline,
        "html": article.html,
        "faq": [{"question": item.question, "answer": item.answer} for item in article.faq],
    }


def _article(data: dict) -> ArticleDraft:
    html = data["html"].strip()
    return ArticleDraft(
        title=data["title"].strip(),
        meta_title=data["meta_title"].strip(),
        meta_description=data["meta_description"].strip(),
        focus_keyword=data["focus_keyword"].strip(),
        outline=_strings(data["outline"]),
        html=html,
        # Measured as the content analysis measures it, never taken from the model.
        word_count=count_words("\n".join(block.text for block in blocks(html))),
        faq=[FaqItem(item["question"].strip(), item["answer"].strip()) for item in data["faq"]],
    )


def _clusters(data: dict, keywords: list[KeywordInput]) -> list[ClusterDraft]:
    """Every input id in exactly one cluster (contract section 12): unknown ids dropped, repeats kept
    at their first place; an id the model left out, or put in its "Other" catch-all, is a cluster of
    its own named after its keyword (issue 30: keywords that fit nowhere are no longer left out)."""
    text_of = {keyword.id: keyword.keyword.strip() for keyword in keywords}
    placed: set[int] = set()
    drafts: list[ClusterDraft] = []

    def own_cluster(keyword_id: int) -> ClusterDraft:
        return ClusterDraft(name=text_of[keyword_id], description="", keyword_ids=[keyword_id])

    for cluster in data["clusters"]:
        ids = []
        for keyword_id in cluster["keyword_ids"]:
            if keyword_id in text_of and keyword_id not in placed:
                placed.add(keyword_id)
                ids.append(keyword_id)
        name = cluster["name"].strip()
        if name.casefold() == OTHER_CLUSTER_NAME.casefold():
            drafts.extend(own_cluster(keyword_id) for keyword_id in ids)
        elif ids:
            drafts.append(ClusterDraft(name=name, description=cluster.get("description", "").strip(), keyword_ids=ids))
    omitted = list(dict.fromkeys(keyword.id for keyword in keywords if keyword.id not in placed))
    drafts.extend(own_cluster(keyword_id) for keyword_id in omitted)
    return drafts


def _ideas(data: dict, count: int) -> list[IdeaDraft]:
    return [
        IdeaDraft(
            title=idea["title"].strip(),
            description=idea["description"].strip(),
            content_type=_label(idea["content_type"]),
            content_structure=_label(idea["content_structure"]),
            target_keywords=_strings(idea["target_keywords"]),
            outline=_strings(idea["outline"]),
        )
        for idea in data["ideas"][:count]
    ]


def _image_prompts(data: dict, count: int) -> list[ImagePromptDraft]:
    return [
        ImagePromptDraft(prompt=item["prompt"].strip(), alt_text=item["alt_text"].strip(), image_type=item["image_type"])
        for item in data["images"][:count]
    ]


def _parse(content: str | None, operation: _Operation) -> dict:
    if not content or not content.strip():
        raise _BadOutput("The answer was empty.")
    fenced = _FENCE.match(content)
    text = fenced.group(1) if fenced else content
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _BadOutput(f"The answer was not valid JSON ({error.msg} at position {error.pos}).") from None
    error = best_match(operation.validator.iter_errors(data))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "the top level"
        raise _BadOutput(f"The answer does not match the JSON Schema at {where}: {error.message}")
    return data


def _user_message(prompt: str, inputs: dict) -> str:
    # The inputs go on the last line as compact JSON so the answer can refer to them (ids, counts).
    return f"{prompt.strip()}\n\nInput data (JSON):\n{json.dumps(inputs, ensure_ascii=False, separators=(',', ':'))}"


def _map_error(error: openai.OpenAIError, *, operation: str, model: str) -> AIError:
    """The SDK's error as a safe ``AIError``, logged without key, prompt or body."""
    status = getattr(error, "status_code", None)
    code = getattr(error, "code", None)
    if isinstance(error, openai.APITimeoutError):
        mapped: AIError = ProviderTimeout()
    elif isinstance(error, openai.APIConnectionError):
        mapped = ProviderUnavailable(UNREACHABLE)
    elif isinstance(error, openai.RateLimitError):
        mapped = (
            ProviderRateLimited("The AI provider reports that the account's quota is used up")
            if code == "insufficient_quota"
            else ProviderRateLimited()
        )
    elif isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
        mapped = ProviderAuthFailed()
    elif isinstance(error, openai.NotFoundError):
        mapped = ProviderUnavailable("The AI provider does not offer the configured model or endpoint (HTTP 404)")
    elif isinstance(error, openai.BadRequestError):
        mapped = ProviderUnavailable("The AI provider rejected the request (HTTP 400); check the model name")
    elif isinstance(error, openai.APIStatusError):
        mapped = ProviderUnavailable(f"The AI provider returned an error (HTTP {status})")
    else:
        mapped = InvalidProviderOutput()
    logger.warning(
        "AI provider call failed: provider=%s operation=%s model=%s status=%s request_id=%s error=%s",
        PROVIDER_NAME,
        operation,
        model,
        status if status is not None else "-",
        _safe_request_id(getattr(error, "request_id", None)),
        mapped.code,
    )
    return mapped


class _OpenAIProvider:
    name = PROVIDER_NAME

    def __init__(self, config: ProviderConfig):
        self.config = config
        self._sdk_client: openai.OpenAI | None = None

    def _client(self) -> openai.OpenAI:
        if self._sdk_client is None:
            if not self.config.model:
                raise ProviderNotConfigured("No AI model is configured")
            api_key = self.config.api_key
            if not api_key:
                if not is_local_endpoint(self.config.base_url):
                    raise ProviderNotConfigured("No API key is configured for the AI provider")
                api_key = LOCAL_SERVER_PLACEHOLDER_KEY
            base_url = self.config.base_url or DEFAULT_BASE_URL
            self._check_address(base_url)
            transport = netguard.guarded_transport(allow_private=self.config.allow_private)
            if self.config.account_id is not None:
                # An account's calls hold a place of the shared limit of calls in flight; a key
                # check (no account, one call without retries) does not wait for one.
                transport = limits.LimitedTransport(
                    transport,
                    endpoint=limits.endpoint_scope(base_url, api_key),
                    account=limits.account_scope(self.config.account_id),
                    lease_seconds=self.config.timeout_seconds + limits.LEASE_MARGIN_SECONDS,
                )
            self._sdk_client = openai.OpenAI(
                api_key=api_key,
                base_url=base_url,
                timeout=self.config.timeout_seconds,
                max_retries=self.config.max_retries,
                # The CMS's guard: every connection goes only to an address netguard allows (a DNS
                # answer that changes after the check gets nowhere), and no redirect is followed.
                http_client=httpx2.Client(
                    transport=transport,
                    timeout=httpx2.Timeout(self.config.timeout_seconds),
                    follow_redirects=False,
                    trust_env=False,
                ),
            )
        return self._sdk_client

    def _check_address(self, url: str) -> None:
        try:
            netguard.check_url(url, allow_private=self.config.allow_private)
        except netguard.AddressNotAllowed as error:
            logger.warning("AI provider call refused: provider=%s model=%s error=%s", PROVIDER_NAME, self.config.model, error)
            raise ProviderUnavailable(ADDRESS_NOT_ALLOWED) from None

    def _call(self, operation: str, request: Callable[[openai.OpenAI], T]) -> T:
        client = self._client()
        try:
            return request(client)
        except openai.OpenAIError as error:
            # `from None`: the SDK error's text and body can quote the request or a masked key.
            raise _map_error(error, operation=operation, model=self.config.model) from None
        except netguard.AddressNotAllowed as error:
            # The guarded transport refused the address a connection was about to reach.
            logger.warning("AI provider call refused: provider=%s operation=%s model=%s error=%s", PROVIDER_NAME, operation, self.config.model, error)
            raise ProviderUnavailable(ADDRESS_NOT_ALLOWED) from None

    def test_key(self) -> KeyCheck:
        """One ``GET /models`` without retries: an interactive check answers fast."""
        model = self.config.model
        try:
            # A refused address is said before any connection is made: the answer never tells
            # which private ports are open.
            client = self._client()
        except (ProviderNotConfigured, ProviderUnavailable) as error:
            return KeyCheck(valid=False, detail=error.message, provider=self.name, model=model)
        try:
            page = client.with_options(max_retries=0).models.list()
        except netguard.AddressNotAllowed:
            return KeyCheck(valid=False, detail=ADDRESS_NOT_ALLOWED, provider=self.name, model=model)
        except openai.OpenAIError as error:
            mapped = _map_error(error, operation="test_key", model=model)
            status = getattr(error, "status_code", None)
            unreachable = isinstance(mapped, ProviderTimeout) or (isinstance(mapped, ProviderUnavailable) and (status is None or status >= 500))
            return KeyCheck(valid=False, detail=UNREACHABLE if unreachable else mapped.message, provider=self.name, model=model)
        if model in {getattr(offered, "id", None) for offered in getattr(page, "data", None) or []}:
            detail = f"The API key works and the model {model} is available"
        else:
            detail = f"The API key works, but this endpoint does not list the model {model}"
        return KeyCheck(valid=True, detail=detail, provider=self.name, model=model)


class OpenAITextProvider(_OpenAIProvider):
    def cluster_keywords(self, keywords: list[KeywordInput], *, prompt: str) -> AIResult[list[ClusterDraft]]:
        if not keywords:
            return AIResult([], TokenUsage(model=self.config.model))
        if self.config.embedding_model:
            return self._cluster_by_embeddings(keywords)
        inputs = {"keywords": [{"id": k.id, "keyword": k.keyword, "volume": k.volume, "difficulty": k.difficulty} for k in keywords]}
        data, usage = self._complete("cluster_keywords", prompt, inputs)
        return AIResult(_clusters(data, keywords), usage)

    def generate_ideas(self, cluster_name: str, keywords: list[str], *, count: int, prompt: str) -> AIResult[list[IdeaDraft]]:
        if count < 1:
            return AIResult([], TokenUsage(model=self.config.model))
        inputs = {"cluster_name": cluster_name, "keywords": keywords, "count": count}
        data, usage = self._complete("generate_ideas", prompt, inputs)
        return AIResult(_ideas(data, count), usage)

    def write_article(self, brief: ArticleBrief, *, prompt: str) -> AIResult[ArticleDraft]:
        inputs = {
            "title": brief.title,
            "keywords": brief.keywords,
            "word_count": brief.word_count,
            "tone": brief.tone,
            "structure": brief.structure,
            "include_faq": brief.include_faq,
            "description": brief.description,
            "outline": brief.outline,
        }
        # The approved brief and the site's voice (issue 35), when there are any.
        extras = {
            "angle": brief.angle,
            "reader": brief.reader,
            "questions": brief.questions,
            "internal_links": [{"title": link.title, "url": link.url} for link in brief.internal_links],
            "sources": brief.sources,
            "voice": brief.voice.as_text() if brief.voice else "",
        }
        inputs.update({name: value for name, value in extras.items() if value})
        data, usage = self._complete("write_article", prompt, inputs)
        article = _article(data)
        if not brief.include_faq:
            article = replace(article, faq=[])
        return AIResult(article, usage)

    def extract_image_prompts(self, article: ArticleDraft, *, count: int, style: str, prompt: str) -> AIResult[list[ImagePromptDraft]]:
        if count < 1:
            return AIResult([], TokenUsage(model=self.config.model))
        inputs = {
            "title": article.title,
            "focus_keyword": article.focus_keyword,
            "outline": article.outline,
            "html": article.html,
            "count": count,
            "style": style,
            "image_types": list(IMAGE_TYPES),
        }
        data, usage = self._complete("extract_image_prompts", prompt, inputs)
        return AIResult(_image_prompts(data, count), usage)

    def optimize_article(self, article: ArticleDraft, *, prompt: str) -> AIResult[OptimizedArticle]:
        data, usage = self._complete("optimize_article", prompt, _article_inputs(article))
        optimized = _article(data)
        result = OptimizedArticle(article=optimized, before=analyze(article), after=analyze(optimized), changes=_strings(data["changes"]))
        return AIResult(result, usage)

    def _cluster_by_embeddings(self, keywords: list[KeywordInput]) -> AIResult[list[ClusterDraft]]:
        """Clusters by the endpoint's embeddings model (``config.embedding_model``) with the same
        rules as the local provider (``inkwell.ai.local.clustering``), cut at the
        ``AI_EMBEDDING_CLUSTER_SIMILARITY`` setting. The prompt is not used: there is no chat."""
        model = self.config.embedding_model
        usage = TokenUsage(model=model)

        def vectors(texts: list[str]) -> np.ndarray:
            nonlocal usage
            rows: list = []
            for start in range(0, len(texts), EMBEDDING_BATCH):
                batch = texts[start : start + EMBEDDING_BATCH]
                response = self._call(
                    "cluster_keywords", lambda client, batch=batch: client.embeddings.create(model=model, input=batch, encoding_format="float")
                )
                usage = _add_usage(usage, response)
                data = sorted(getattr(response, "data", None) or [], key=lambda item: getattr(item, "index", 0))
                if len(data) != len(batch):
                    raise InvalidProviderOutput()
                rows.extend(getattr(item, "embedding", None) for item in data)
            try:
                matrix = np.asarray(rows, dtype=np.float32)
            except (TypeError, ValueError):
                raise InvalidProviderOutput() from None
            if matrix.ndim != 2 or not matrix.shape[1] or not np.isfinite(matrix).all():
                raise InvalidProviderOutput()
            return matrix

        similarity = float(settings.INKWELL_AI.get("EMBEDDING_CLUSTER_SIMILARITY", 0.5))
        return AIResult(cluster_by_vectors(keywords, similarity=similarity, embedder=vectors), usage)

    def _complete(self, operation_name: str, prompt: str, inputs: dict) -> tuple[dict, TokenUsage]:
        """Ask, validate, ask again once with the reason if the answer is unusable."""
        operation = _OPERATIONS[operation_name]
        model = self.config.model
        messages = [
            {"role": "system", "content": operation.system_message},
            {"role": "user", "content": _user_message(prompt, inputs)},
        ]
        usage = TokenUsage(model=model)
        request_id = "-"
        for attempt in range(OUTPUT_ATTEMPTS):
            response = self._call(
                operation_name,
                lambda client, messages=messages: client.chat.completions.create(
                    model=model, messages=messages, response_format={"type": "json_object"}
                ),
            )
            usage = _add_usage(usage, response)
            request_id = _safe_request_id(getattr(response, "_request_id", None))
            try:
                return _parse(_content(response), operation), usage
            except _BadOutput as bad:
                reason = bad.reason
                if _finish_reason(response) == "length":
                    reason = "The answer was cut off at the output length limit; write a shorter one."
                if attempt + 1 < OUTPUT_ATTEMPTS:
                    messages = [
                        *messages[:2],
                        {
                            "role": "user",
                            "content": f"Your previous answer was rejected. {reason} "
                            "Answer again with only the JSON object the system message describes.",
                        },
                    ]
        logger.warning(
            "AI provider answer rejected: provider=%s operation=%s model=%s status=200 request_id=%s error=%s",
            PROVIDER_NAME,
            operation_name,
            model,
            request_id,
            InvalidProviderOutput.code,
        )
        raise InvalidProviderOutput()


class OpenAIImageProvider(_OpenAIProvider):
    def generate_image(self, prompt: str, *, size: str, style: str) -> AIResult[GeneratedImage]:
        if not _SIZE.match(size):
            raise ValueError("size must look like 1024x1024")
        model = self.config.model
        full_prompt = f"{prompt.strip()}\n\nStyle: {style}" if style else prompt.strip()

        def generate(client: openai.OpenAI) -> Any:
            # GPT image models always answer in base64 and refuse `response_format`; older and
            # self-hosted models answer with a URL unless asked for base64. A deployment name (Azure)
            # does not tell which kind it is, so a refusal of the parameter is retried without it.
            if not model.startswith("gpt-image"):
                try:
                    return client.images.generate(model=model, prompt=full_prompt, size=size, n=1, response_format="b64_json")
                except openai.BadRequestError as error:
                    if error.param != "response_format":
                        raise
            return client.images.generate(model=model, prompt=full_prompt, size=size, n=1)

        response = self._call("generate_image", generate)
        request_id = _safe_request_id(getattr(response, "_request_id", None))
        try:
            data = self._image_bytes(response)
            image = _decode_image(data)
        except _BadOutput:
            logger.warning(
                "AI provider answer rejected: provider=%s operation=generate_image model=%s status=200 request_id=%s error=%s",
                PROVIDER_NAME,
                model,
                request_id,
                InvalidProviderOutput.code,
            )
            raise InvalidProviderOutput() from None
        usage = getattr(response, "usage", None)
        tokens = TokenUsage(
            prompt_tokens=int(getattr(usage, "input_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            model=model,
        )
        mime_type, width, height = image
        return AIResult(GeneratedImage(data=data, mime_type=mime_type, width=width, height=height, prompt=prompt), tokens)

    def _image_bytes(self, response: Any) -> bytes:
        if not response.data:
            raise _BadOutput("no image")
        item = response.data[0]
        if item.b64_json:
            try:
                return base64.b64decode(item.b64_json, validate=True)
            except (binascii.Error, ValueError):
                raise _BadOutput("bad base64") from None
        if item.url:
            return self._fetch_same_host(item.url)
        raise _BadOutput("no image")

    def _fetch_same_host(self, url: str) -> bytes:
        """Fetch an image URL only from the endpoint's own origin: following an arbitrary URL
        from a provider's answer would let it make this server request anything (SSRF)."""
        if _origin(url) != _origin(self.config.base_url or DEFAULT_BASE_URL):
            raise _BadOutput("image URL on another host")
        data = self._call(
            "generate_image",
            lambda client: client.get(url, cast_to=bytes, options={"follow_redirects": False}),
        )
        if len(data) > MAX_IMAGE_BYTES:
            raise _BadOutput("image too large")
        return data


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        return ("", "", None)
    return (scheme, (parts.hostname or "").lower(), port)


def _image_format(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _decode_image(data: bytes) -> tuple[str, int, int]:
    """The MIME type and size of a PNG, JPEG or WebP image, read from its bytes (never trusted
    from the answer). Pillow only opens the format the magic bytes name: no other decoder runs
    on provider data."""
    image_format = _image_format(data)
    if image_format is None:
        raise _BadOutput("not a PNG, JPEG or WebP image")
    try:
        with Image.open(BytesIO(data), formats=[image_format]) as image:
            width, height = image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise _BadOutput("not a decodable image") from None
    return IMAGE_MIME_TYPES[image_format], width, height
