"""A small text-model client for OpenAI-compatible (chat completions) and Anthropic-compatible
(messages) endpoints, with a reply cache on disk so a run replays exactly and offline.

A model is named by a spec string::

    openai:gpt-4o-mini                              # OPENAI_BASE_URL or api.openai.com, key in OPENAI_API_KEY
    openai:qwen2.5-7b-instruct@http://localhost:8000/v1   # any OpenAI-compatible server (vLLM, llama.cpp, Ollama's /v1)
    anthropic:claude-sonnet-4-5                     # ANTHROPIC_BASE_URL or api.anthropic.com, key in ANTHROPIC_API_KEY
    openai:my-model@http://gpu-box:8000/v1,key=GPU_BOX_KEY,images=false,cache=runs/model-cache

Options after commas: ``key`` (the environment variable holding the API key), ``images`` (whether the
model accepts images; default true), ``cache`` (the cache folder; default ``$SANDBOX_MODEL_CACHE`` or
``~/.cache/cua-sandbox/models``), ``offline`` (only the cache, never the network; also
``SANDBOX_MODEL_OFFLINE=1``), ``max_tokens``, ``timeout`` (seconds), ``reasoning`` (an OpenAI
reasoning model: no temperature, ``max_completion_tokens``).

Every request is sent at temperature 0 and its reply is stored under the hash of (endpoint kind,
model, the exact request body, and the caller's ``scope``), so the same request gets the same reply
from the cache, without the endpoint. A cache miss with no endpoint configured (no key and no URL)
raises :class:`ModelUnavailable` saying what to set. A rate-limited or overloaded endpoint (429, 5xx,
529) or a dropped connection is asked again up to 4 times, waiting as its Retry-After says (at most
30 s; else 1, 2, 4 s); then the error names the endpoint and the API's message.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from .http import ANTHROPIC_URL, OPENAI_URL, add_usage, anthropic_data, anthropic_headers, openai_data, openai_headers

Kind = Literal["openai", "anthropic"]
KINDS: dict[str, dict[str, str]] = {
    "openai": {"key": "OPENAI_API_KEY", "url_env": "OPENAI_BASE_URL", "url": OPENAI_URL, "api": "chat completions"},
    "anthropic": {"key": "ANTHROPIC_API_KEY", "url_env": "ANTHROPIC_BASE_URL", "url": ANTHROPIC_URL, "api": "messages"},
}
ATTEMPTS = 4  # requests per reply when the endpoint is rate limited, overloaded or unreachable
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
MAX_BACKOFF = 30.0
_TRUE = {"1", "true", "yes", "on", ""}
_FALSE = {"0", "false", "no", "off"}


class ModelError(RuntimeError):
    """The model could not be asked (a bad spec, an error reply, a transport failure)."""


class ModelUnavailable(ModelError):
    """No cached reply for a request and no endpoint to ask."""


def default_cache_dir() -> Path:
    env = os.environ.get("SANDBOX_MODEL_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "cua-sandbox" / "models"


@dataclass(frozen=True)
class ModelConfig:
    """Which model, where, and how (see the module's docstring for the spec string)."""

    kind: Kind
    model: str
    base_url: str | None = None  # None: the kind's *_BASE_URL variable, else the hosted API
    key_env: str | None = None  # None: OPENAI_API_KEY / ANTHROPIC_API_KEY
    images: bool = True
    cache_dir: Path | None = None  # None: default_cache_dir()
    offline: bool = False
    max_tokens: int = 1024
    timeout: float = 120.0
    reasoning: bool = False  # an OpenAI reasoning model: no temperature, max_completion_tokens
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def parse(cls, spec: str) -> ModelConfig:
        """``KIND:MODEL[@URL][,option=value...]``; raises ValueError with the accepted form."""
        text = str(spec or "").strip()
        head, *opts = [p.strip() for p in text.split(",")]
        kind, sep, rest = head.partition(":")
        kind = kind.strip().lower()
        if not sep or kind not in KINDS or not rest.strip():
            raise ValueError(f"a model is KIND:MODEL[@URL][,key=ENV_VAR,images=false,...] with KIND openai or anthropic, "
                             f"such as openai:gpt-4o-mini@http://localhost:8000/v1; got {spec!r}")
        model, at, url = rest.partition("@")
        if not model.strip():
            raise ValueError(f"the model's name is missing in {spec!r}")
        if at and not url.strip().startswith(("http://", "https://")):
            raise ValueError(f"the endpoint after '@' is an http(s) URL, such as http://localhost:8000/v1; got {url!r}")
        fields: dict[str, Any] = {}
        for opt in opts:
            if not opt:
                continue
            name, eq, value = opt.partition("=")
            name, value = name.strip().replace("-", "_"), value.strip()
            if name == "key" and value:
                fields["key_env"] = value
            elif name in ("images", "offline", "reasoning"):
                low = value.lower() if eq else ""
                if low not in _TRUE | _FALSE:
                    raise ValueError(f"model option {name} is true or false; got {value!r}")
                fields[name] = low in _TRUE
            elif name == "cache" and value:
                fields["cache_dir"] = Path(value).expanduser()
            elif name in ("max_tokens", "timeout") and value:
                try:
                    fields[name] = int(value) if name == "max_tokens" else float(value)
                except ValueError:
                    raise ValueError(f"model option {name} is a number; got {value!r}") from None
            else:
                raise ValueError(f"unknown model option {opt!r} (options: key=ENV_VAR, images=true|false, cache=DIR, offline, max_tokens=N, "
                                 "timeout=S, reasoning)")
        return cls(kind=kind, model=model.strip(), base_url=url.strip().rstrip("/") or None, **fields)  # type: ignore[arg-type]

    @property
    def name(self) -> str:
        """``kind:model`` (no URL, no key): what verdicts and logs record."""
        return f"{self.kind}:{self.model}"

    def endpoint(self) -> str | None:
        """The base URL to ask, or None when nothing is configured (no URL given or in the
        environment, and no key for the hosted API)."""
        k = KINDS[self.kind]
        url = self.base_url or os.environ.get(k["url_env"])
        if url:
            return url.rstrip("/")
        return k["url"] if self.api_key() else None

    def api_key(self) -> str | None:
        return os.environ.get(self.key_env or KINDS[self.kind]["key"]) or None


@dataclass(frozen=True)
class ModelReply:
    """The text of a reply, whether it came from the cache, and its cache key."""

    text: str
    cached: bool
    key: str
    data: dict[str, Any] = field(default_factory=dict, repr=False)


def _png_digest(data: str) -> str:
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def _without_images(body: Any) -> Any:
    """The request as stored beside its reply: image data replaced by its digest."""
    if isinstance(body, dict):
        out = {}
        for k, v in body.items():
            if isinstance(v, str) and ((k == "url" and v.startswith("data:")) or (k == "data" and body.get("type") == "base64")):
                out[k] = _png_digest(v)
            else:
                out[k] = _without_images(v)
        return out
    if isinstance(body, list):
        return [_without_images(v) for v in body]
    return body


class ModelClient:
    """Ask a model for one reply (a system text, a user text, optional PNG images); sync, thread-safe."""

    def __init__(self, config: ModelConfig | str) -> None:
        self.config = ModelConfig.parse(config) if isinstance(config, str) else config
        self.usage: dict[str, int] = {"requests": 0, "input_tokens": 0, "output_tokens": 0, "cached": 0}
        self._lock = threading.Lock()
        self._http: Any = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def images(self) -> bool:
        return self.config.images

    @property
    def cache_dir(self) -> Path:
        return self.config.cache_dir or default_cache_dir()

    def with_options(self, **changes: Any) -> ModelClient:
        return ModelClient(replace(self.config, **changes))

    # -- the request -------------------------------------------------------------------------------
    def body(self, system: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The request body for the endpoint's kind. ``messages``: ``{"role", "text", "images"}``
        (images are PNG bytes, left out when the model does not take images)."""
        c = self.config
        if c.kind == "anthropic":
            out = []
            for m in messages:
                content: list[dict[str, Any]] = [{"type": "text", "text": m["text"]}]
                for png in (m.get("images") or ()) if c.images else ():
                    content.append({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(png).decode()}})
                out.append({"role": m["role"], "content": content})
            return {"model": c.model, "max_tokens": c.max_tokens, "temperature": 0, "system": system, "messages": out}
        chat: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for m in messages:
            pngs = list(m.get("images") or ()) if c.images else []
            if pngs and m["role"] == "user":
                parts: list[dict[str, Any]] = [{"type": "text", "text": m["text"]}]
                parts += [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(p).decode()}} for p in pngs]
                chat.append({"role": m["role"], "content": parts})
            else:
                chat.append({"role": m["role"], "content": m["text"]})
        if c.reasoning:  # o-series and later: the temperature is fixed and the limit has another name
            return {"model": c.model, "messages": chat, "max_completion_tokens": c.max_tokens}
        return {"model": c.model, "messages": chat, "temperature": 0, "max_tokens": c.max_tokens}

    def key(self, body: dict[str, Any], scope: dict[str, Any] | None = None) -> str:
        """The cache key: sha256 of (kind, model, the exact request body, the caller's scope)."""
        blob = json.dumps({"kind": self.config.kind, "model": self.config.model, "request": body, "scope": scope or {}},
                          sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    def complete(self, system: str, messages: list[dict[str, Any]] | str, *, scope: dict[str, Any] | None = None) -> ModelReply:
        """The model's reply text: from the cache when this exact request (in this scope) was asked
        before, else from the endpoint (then stored)."""
        if isinstance(messages, str):
            messages = [{"role": "user", "text": messages}]
        body = self.body(system, messages)
        key = self.key(body, scope)
        path = self.cache_dir / key[:2] / f"{key}.json"
        if path.exists():
            try:
                stored = json.loads(path.read_text())
                with self._lock:
                    self.usage["cached"] += 1
                return ModelReply(text=self._text(stored["reply"]), cached=True, key=key, data=stored["reply"])
            except (ValueError, KeyError, OSError):
                pass  # a torn or foreign file: ask again and overwrite it
        data = self._post(body, key)
        text = self._text(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"kind": self.config.kind, "model": self.config.model, "scope": scope or {},
                                   "request": _without_images(body), "reply": data}, indent=1, ensure_ascii=False, default=str))
        os.replace(tmp, path)
        return ModelReply(text=text, cached=False, key=key, data=data)

    def _post(self, body: dict[str, Any], key: str) -> dict[str, Any]:
        c = self.config
        k = KINDS[c.kind]
        offline = c.offline or os.environ.get("SANDBOX_MODEL_OFFLINE", "").strip().lower() in _TRUE - {""}
        url = None if offline else c.endpoint()
        if url is None:
            why = "the run is offline (cache only)" if offline else f"no endpoint is configured for {c.name}"
            raise ModelUnavailable(
                f"no cached reply for this request to {c.name} (key {key[:12]}, cache {self.cache_dir}) and {why}: "
                + ("unset SANDBOX_MODEL_OFFLINE and drop ',offline' to ask the model, or " if offline else "")
                + f"set {c.key_env or k['key']} for the hosted API, or give an endpoint ({c.kind}:{c.model}@http://HOST:PORT"
                + ("/v1" if c.kind == "openai" else "") + f" or {k['url_env']})")
        import httpx

        with self._lock:
            if self._http is None:
                self._http = httpx.Client(timeout=c.timeout)
            client = self._http
        if c.kind == "anthropic":
            target, headers, check = f"{url}/v1/messages", anthropic_headers(c.api_key()), anthropic_data
        else:
            target, headers, check = f"{url}/chat/completions", openai_headers(c.api_key()), openai_data
        # The waits below are the provider's own condition (its Retry-After, else a short backoff after a
        # refused connection): there is nothing to poll. They run only on a failed request, in the judge's
        # or co-worker's thread, never on a step of an episode without a model.
        for attempt in range(ATTEMPTS):
            try:
                response = client.post(target, json=body, headers=headers)
            except httpx.HTTPError as exc:
                if attempt + 1 < ATTEMPTS:
                    time.sleep(_backoff(attempt, None))
                    continue
                raise ModelError(f"{c.name} at {url} could not be reached: {type(exc).__name__}: {exc}") from None
            if response.status_code in RETRY_STATUS and attempt + 1 < ATTEMPTS:  # rate limited or overloaded: wait as told
                time.sleep(_backoff(attempt, response.headers.get("retry-after")))
                continue
            data = check(response)
            break
        with self._lock:
            add_usage(self.usage, data)
        return data

    def _text(self, data: dict[str, Any]) -> str:
        if self.config.kind == "anthropic":
            blocks = data.get("content") or []
            return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text").strip()
        choices = data.get("choices") or []
        if not choices:
            raise ModelError(f"{self.name} replied without choices: {json.dumps(data)[:300]}")
        content = (choices[0].get("message") or {}).get("content")
        if isinstance(content, list):  # some servers answer with content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return str(content or "").strip()

    def close(self) -> None:
        with self._lock:
            if self._http is not None:
                self._http.close()
                self._http = None


def _backoff(attempt: int, retry_after: str | None) -> float:
    """Seconds to wait before attempt ``attempt + 2``: the server's Retry-After (capped), else 1, 2, 4..."""
    try:
        if retry_after is not None:
            return max(0.0, min(float(retry_after), MAX_BACKOFF))
    except ValueError:
        pass
    return min(2.0 ** attempt, MAX_BACKOFF)


def parse_json_reply(text: str) -> Any:
    """The JSON object of a model's reply: the whole text, or inside a ```json fence, or the first
    ``{...}`` span; ValueError when there is none."""
    t = (text or "").strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        t = t.rsplit("```", 1)[0].strip()
    try:
        return json.loads(t)
    except ValueError:
        pass
    start, end = t.find("{"), t.rfind("}")
    if start >= 0 and end > start:
        return json.loads(t[start:end + 1])
    raise ValueError("no JSON object in the reply")


__all__ = ["KINDS", "ModelClient", "ModelConfig", "ModelError", "ModelReply", "ModelUnavailable", "default_cache_dir", "parse_json_reply"]
