"""Tools from the apps' JSON APIs: the API route is the one declaration, every interface reads it.

Each operation under an app's ``/api/`` becomes a tool named ``<app>_<operation>``: its arguments
are the route's path and query parameters and the fields of its JSON body, its description the
route's summary and docstring. A path parameter with an enumerated set of values (a table name)
gives one tool per value (``desk_create_incident``); a route names it with a ``{param}``
placeholder in its ``name`` (``name="create_{table_key}"``).

Where one route serves several values of such a parameter with different bodies, the operation's
``x-bodies`` extension maps each value to its body schema (values without one get no tool).

A call is an HTTP request to the app through the host, as the persona, in one world: the same
validation, permissions and side effects as the forms, and nothing for an app to write twice. The
MCP server, the shell CLI and the episode's ``tool_call`` action all call tools through here.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from .identity.session import SESSION_COOKIE, session_cookie
from .worlds import WORLD_HEADER

API_PREFIX = "/api/"
SKIP_PREFIXES = ("/api/docs",)
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CALL_TIMEOUT = 30.0


class ToolError(Exception):
    """A call that did not succeed: a bad argument, a refusal or the app's validation message."""

    def __init__(self, message: str, *, status: int | None = None, errors: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.errors = errors or {}


@dataclass(frozen=True)
class Tool:
    """One operation of an app's API, described for a model and callable by name."""

    name: str  # <app>_<operation>
    app: str
    description: str
    input_schema: dict[str, Any]
    method: str
    path: str  # with {param} placeholders
    fixed: dict[str, str] = field(default_factory=dict)  # path parameters set by the tool itself
    path_params: tuple[str, ...] = ()
    query_params: tuple[str, ...] = ()
    body_fields: tuple[str, ...] = ()  # body properties lifted to the top level of the arguments
    body_arg: str | None = None  # the argument holding the whole body, when it is not an object
    output_schema: dict[str, Any] | None = None

    @property
    def read_only(self) -> bool:
        return self.method == "GET"

    def request(self, arguments: dict[str, Any]) -> tuple[str, str, dict[str, Any], Any]:
        """(method, path, query, json body) for ``arguments``; ToolError names what is wrong."""
        if not isinstance(arguments, dict):
            raise ToolError(f"{self.name}: arguments must be a JSON object, got {type(arguments).__name__}.")
        known = set(self.path_params) | set(self.query_params) | set(self.body_fields) | ({self.body_arg} if self.body_arg else set())
        unknown = sorted(set(arguments) - known)
        if unknown:
            accepted = ", ".join(sorted(known)) or "none"
            raise ToolError(f"{self.name}: unknown argument(s) {', '.join(unknown)}; it accepts: {accepted}.")
        missing = [n for n in self.input_schema.get("required", []) if arguments.get(n) in (None, "")]
        if missing:
            raise ToolError(f"{self.name}: missing required argument(s) {', '.join(missing)}.")
        values = {**self.fixed, **{n: arguments[n] for n in self.path_params if n in arguments}}
        path = self.path
        for name, value in values.items():
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        query = {n: _query_value(arguments[n]) for n in self.query_params if arguments.get(n) is not None}
        body: Any = None
        if self.body_arg is not None and self.body_arg in arguments:
            body = arguments[self.body_arg]
        elif self.body_fields:
            body = {n: arguments[n] for n in self.body_fields if n in arguments}
        return self.method, path, query, body

    def describe(self) -> dict[str, Any]:
        """The JSON form a model or an MCP client reads."""
        out = {"name": self.name, "description": self.description, "input_schema": self.input_schema}
        if self.output_schema:
            out["output_schema"] = self.output_schema
        return out


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return value


# -- declaring request bodies ---------------------------------------------------------------------------
def json_body(title: str, properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """``openapi_extra`` declaring a route's JSON object body, for routes that read raw JSON (so that
    errors come back in the forms' words): the tools, the MCP server and the fuzzing read it."""
    schema: dict[str, Any] = {"type": "object", "title": title, "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


# -- deriving tools from an app's OpenAPI document ----------------------------------------------------
def _resolve(schema: Any, components: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """``schema`` with every ``$ref`` into the document's components inlined (cycles cut to ``{}``)."""
    if isinstance(schema, list):
        return [_resolve(s, components, seen) for s in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[1]
        if name in seen or name not in components:
            return {}
        return _resolve(copy.deepcopy(components[name]), components, seen + (name,))
    return {k: _resolve(v, components, seen) for k, v in schema.items()}


def _operation_name(op: dict[str, Any], path: str, method: str) -> str:
    """The route's name, recovered from FastAPI's operation id (``<name><path>_<method>``, non-word
    characters as ``_``); an ``api_`` prefix dropped."""
    op_id = op.get("operationId") or ""
    suffix = re.sub(r"\W", "_", path) + "_" + method.lower()
    name = op_id[: -len(suffix)] if op_id.endswith(suffix) and len(op_id) > len(suffix) else op_id
    name = name or re.sub(r"\W+", "_", f"{method.lower()}{path}").strip("_")
    for param in re.findall(r"{(\w+)}", path):  # a "{param}" placeholder of the name, sanitised to "_param_"
        name = name.replace(f"_{param}_", "{" + param + "}")
    return name[4:] if name.startswith("api_") else name


def _description(op: dict[str, Any], name: str) -> str:
    summary = (op.get("summary") or "").strip()
    doc = (op.get("description") or "").strip()
    if doc and doc != summary:
        return f"{summary}. {doc}" if summary and not summary.endswith(".") else f"{summary} {doc}".strip()
    return summary or name.replace("_", " ")


HTTP_METHODS = ("get", "post", "patch", "put", "delete")


def tools_from_openapi(app_name: str, document: dict[str, Any]) -> list[Tool]:
    """The tools of one app from its OpenAPI document (operations under ``/api/``)."""
    components = document.get("components", {}).get("schemas", {})
    out: dict[str, Tool] = {}
    for path, item in document.get("paths", {}).items():
        if not path.startswith(API_PREFIX) or path.startswith(SKIP_PREFIXES):
            continue
        for method in HTTP_METHODS:
            op = item.get(method)
            if op is None or method == "put" and "patch" in item:  # PUT and PATCH alike: one tool
                continue
            for tool in _tools_of_operation(app_name, method.upper(), path, op, components):
                out.setdefault(tool.name, tool)
    return sorted(out.values(), key=lambda t: t.name)


def _tools_of_operation(app: str, method: str, path: str, op: dict[str, Any], components: dict[str, Any]) -> list[Tool]:
    params = [_resolve(p, components) for p in op.get("parameters", [])]
    path_params = [p for p in params if p.get("in") == "path"]
    query_params = [p for p in params if p.get("in") == "query"]
    expand = next((p for p in path_params if p.get("schema", {}).get("enum")), None)
    base = _operation_name(op, path, method)
    variants: list[tuple[str, dict[str, str]]] = []
    if expand is not None:
        for value in expand["schema"]["enum"]:
            placeholder = "{" + expand["name"] + "}"
            name = base.replace(placeholder, str(value)) if placeholder in base else f"{base}_{value}"
            variants.append((name, {expand["name"]: str(value)}))
    else:
        variants.append((base, {}))

    body_schema: dict[str, Any] | None = None
    body_required = False
    request_body = op.get("requestBody")
    if request_body:
        body_required = bool(request_body.get("required"))
        content = request_body.get("content", {})
        media = content.get("application/json") or next(iter(content.values()), {})
        body_schema = _resolve(media.get("schema", {}), components)
    output = None
    for status in ("200", "201"):
        media = op.get("responses", {}).get(status, {}).get("content", {}).get("application/json")
        if media and media.get("schema"):
            output = _resolve(media["schema"], components)
            break

    variant_bodies = {k: _resolve(v, components) for k, v in (op.get("x-bodies") or {}).items()}
    tools = []
    for name, fixed in variants:
        value = next(iter(fixed.values()), None)
        if variant_bodies and value not in variant_bodies:
            continue  # the route serves other values of the parameter, but takes no body for this one
        own_body = variant_bodies.get(value, body_schema) if variant_bodies else body_schema
        properties: dict[str, Any] = {}
        required: list[str] = []
        for p in path_params + query_params:
            if p["name"] in fixed:
                continue
            schema = dict(p.get("schema", {}))
            if p.get("description"):
                schema.setdefault("description", p["description"])
            properties[p["name"]] = schema
            if p.get("required"):
                required.append(p["name"])
        body_fields: tuple[str, ...] = ()
        body_arg = None
        if own_body is not None:
            fields = own_body.get("properties")
            if isinstance(fields, dict) and fields and not set(fields) & set(properties):
                properties.update(fields)
                required += [r for r in own_body.get("required", []) if r in fields]
                body_fields = tuple(fields)
            else:
                body_arg = "body"
                properties["body"] = own_body or {"type": "object", "description": "The JSON body."}
                if body_required:
                    required.append("body")
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        full = f"{app}_{name}"
        if not TOOL_NAME.match(full):
            continue
        description = _description(op, name)
        if fixed:
            description = f"{description} ({', '.join(f'{k}={v}' for k, v in fixed.items())})"
        tools.append(Tool(
            name=full, app=app, description=description, input_schema=schema, method=method, path=path, fixed=fixed,
            path_params=tuple(p["name"] for p in path_params if p["name"] not in fixed),
            query_params=tuple(p["name"] for p in query_params), body_fields=body_fields, body_arg=body_arg,
            output_schema=output if isinstance(output, dict) and output.get("type") == "object" else None,
        ))
    return tools


def app_tools(spec: Any) -> list[Tool]:
    """The tools of one app (an ``AppSpec``), from its router alone: no host, no world."""
    from fastapi import FastAPI

    app = FastAPI(title=spec.title)
    app.include_router(spec.router())
    return tools_from_openapi(spec.name, app.openapi())


def host_tools(host: Any, apps: list[str] | tuple[str, ...] | None = None) -> list[Tool]:
    """Every tool of the host's apps (or of ``apps``), in app then name order."""
    out: list[Tool] = []
    for spec in host.state.specs:
        if apps is not None and spec.name not in apps:
            continue
        app = host.apps[spec.name]
        out.extend(tools_from_openapi(spec.name, app.openapi()))
    return out


# -- calling tools -----------------------------------------------------------------------------------
@dataclass
class ToolResult:
    """A tool call's outcome: ``ok`` with the app's JSON ``data``, or ``error`` (what was wrong)."""

    tool: str
    ok: bool
    status: int
    data: Any = None
    error: str | None = None
    errors: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "ok": self.ok, "status": self.status}
        if self.ok:
            out["data"] = self.data
        else:
            out["error"] = self.error
            if self.errors:
                out["errors"] = self.errors
        return out

    def text(self) -> str:
        """The result as a model reads it: the data's JSON, or the error and its field messages."""
        if self.ok:
            return json.dumps(self.data, ensure_ascii=False, default=str)
        lines = [self.error or "The call failed."]
        lines += [f"- {k}: {v}" for k, v in self.errors.items() if k != "__all__"]
        return "\n".join(lines)


def _error_of(status: int, payload: Any, text: str) -> tuple[str, dict[str, str]]:
    errors: dict[str, str] = {}
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):  # {"error": {"message", "detail"}}
        inner = payload["error"]
        message, more = str(inner.get("message") or ""), inner.get("detail")
        if isinstance(more, str) and more and more not in message:  # ServiceNow's {"message": "Operation Failed", "detail": why}
            message = f"{message}: {more}" if message else more
        payload = {"detail": message, "errors": more if isinstance(more, dict) else {}}
    if isinstance(payload, dict):
        if isinstance(payload.get("errors"), dict):
            errors = {str(k): str(v) for k, v in payload["errors"].items()}
        detail = payload.get("detail")
        if isinstance(detail, list):  # FastAPI's request validation
            parts = []
            for d in detail:
                loc = ".".join(str(x) for x in d.get("loc", [])[1:]) if isinstance(d, dict) else ""
                msg = d.get("msg", "invalid") if isinstance(d, dict) else str(d)
                parts.append(f"{loc}: {msg}" if loc else msg)
                if loc:
                    errors.setdefault(loc, msg)
            return "Invalid arguments: " + "; ".join(parts), errors
        if isinstance(detail, str) and detail:
            return detail, errors
    if status >= 500:
        return f"The app failed to handle the call (HTTP {status}); nothing was saved. Try again or report it.", errors
    return (text.strip()[:300] or f"HTTP {status}"), errors


class ToolSession:
    """Calls tools as one user in one world, through the host (in process, or over the network).

    ``host`` is the host ASGI app (calls go in process) or None with ``base_url`` (``http://localhost:PORT``)
    naming a running host. ``token`` is the session cookie's value (``session_cookie``).
    """

    def __init__(self, tools: list[Tool], *, world_id: str, token: str | None, host: Any = None, base_url: str | None = None) -> None:
        if (host is None) == (base_url is None):
            raise ValueError("give the host ASGI app or the base URL of a running host, not both")
        self.tools = {t.name: t for t in tools}
        self.world_id = world_id
        self._token = token
        self._port = ""
        self._origin = "http://testserver"  # in process: any origin, the Host header picks the app
        if base_url is not None:
            m = re.match(r"^(https?://[^/:]+)(:\d+)?/?$", base_url)
            if not m:
                raise ValueError(f"base URL {base_url!r}: expected http://HOST[:PORT]")
            # Connect to the host as given; <app>.localhost names need not resolve outside a browser.
            self._origin, self._port = m.group(1) + (m.group(2) or ""), m.group(2) or ""
        transport = httpx.ASGITransport(app=host) if host is not None else None
        self._client = httpx.AsyncClient(transport=transport, timeout=CALL_TIMEOUT, follow_redirects=False)
        self._local = host is not None

    @classmethod
    def for_host(cls, host: Any, world_id: str, username: str | None, apps: list[str] | tuple[str, ...] | None = None) -> ToolSession:
        """A session on an in-process host, signed in as ``username`` (the host's own secret signs it)."""
        token = session_cookie(host.state.secret, username, world_id) if username else None
        return cls(host_tools(host, apps), world_id=world_id, token=token, host=host)

    def _url(self, path: str) -> str:
        return f"{self._origin}{path}"

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        tool = self.tools.get(name)
        if tool is None:
            near = difflib.get_close_matches(str(name), list(self.tools), n=3, cutoff=0.6)
            hint = f" Did you mean {', '.join(near)}?" if near else f" {len(self.tools)} tools are available; list them first."
            return ToolResult(tool=name, ok=False, status=404, error=f"No tool named {name!r}.{hint}")
        try:
            method, path, query, body = tool.request(arguments or {})
        except ToolError as exc:
            return ToolResult(tool=name, ok=False, status=400, error=str(exc))
        headers = {WORLD_HEADER: self.world_id, "Accept": "application/json", "Host": f"{tool.app}.localhost{self._port}"}
        if self._token:
            headers["Cookie"] = f"{SESSION_COOKIE}={self._token}"
        try:
            response = await self._client.request(
                method, self._url(path), params=query or None, headers=headers,
                json=body if body is not None else None,
            )
        except httpx.HTTPError as exc:
            return ToolResult(tool=name, ok=False, status=0, error=f"The app could not be reached ({type(exc).__name__}: {exc}); nothing was sent.")
        try:
            payload = response.json() if response.content else None
        except ValueError:
            payload = None
        if response.is_success:
            return ToolResult(tool=name, ok=True, status=response.status_code, data=payload)
        message, errors = _error_of(response.status_code, payload, response.text)
        return ToolResult(tool=name, ok=False, status=response.status_code, error=message, errors=errors)

    async def aclose(self) -> None:
        await self._client.aclose()


__all__ = ["Tool", "ToolError", "ToolResult", "ToolSession", "app_tools", "host_tools", "json_body", "tools_from_openapi"]
