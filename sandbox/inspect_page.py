"""What an oracle step can target on a page: every interactive element with its accessible role and
name, the named container it sits in (a dialog, a form, a group...), and the step to write for it.

Read from the page's whole ARIA snapshot (not only what is on screen), in the same terms the task
player resolves targets in (``{role, name, within}``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

CONTAINERS = {"dialog", "alertdialog", "form", "group", "region", "table", "navigation", "banner", "toolbar",
              "menu", "listbox", "tablist", "complementary", "search"}
CLICKABLE = {"button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "checkbox", "radio", "switch",
             "option", "treeitem", "listitem"}
FILLABLE = {"textbox", "searchbox", "spinbutton"}
CHOOSABLE = {"combobox"}
_LINE = re.compile(r'^(?P<indent>\s*)- (?P<role>[a-z]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>.*)$')


@dataclass
class Target:
    role: str
    name: str
    within: tuple[str, str] | None  # the nearest named container (role, name)
    count: int = 1  # elements with the same role, name and container on the page

    def target(self) -> dict[str, Any]:
        t: dict[str, Any] = {"role": self.role, "name": self.name}
        if self.within is not None:
            t["within"] = {"role": self.within[0], "name": self.within[1]}
        return t

    def step(self) -> str:
        """The YAML step an oracle would use for this element."""
        t = _flow(self.target())
        if self.role in FILLABLE:
            if self.role == "searchbox":
                return f"click: {t}  # then type: ..., key: Return"
            return f"fill: {_flow({'label': self.name, **({'within': self.target()['within']} if self.within else {})})}  # text: ..."
        if self.role in CHOOSABLE:
            return f"select: {_flow({'label': self.name, **({'within': self.target()['within']} if self.within else {})})}  # option: ... (lookup: for a type-ahead)"
        return f"click: {t}"


def _quote(value: str) -> str:
    if re.fullmatch(r"[A-Za-z][\w .()/&'-]*", value) and not value.endswith(" ") and ": " not in value:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _flow(d: dict[str, Any]) -> str:
    parts = []
    for k, v in d.items():
        parts.append(f"{k}: {_flow(v) if isinstance(v, dict) else _quote(str(v))}")
    return "{" + ", ".join(parts) + "}"


def targets(snapshot: str) -> list[Target]:
    """The interactive elements of an ARIA snapshot (Playwright's YAML form), in page order."""
    out: list[Target] = []
    stack: list[tuple[int, str, str | None]] = []  # (indent, role, name) of open nodes
    for line in snapshot.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        indent, role, name = len(m.group("indent")), m.group("role"), m.group("name")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if name is not None and (role in CLICKABLE or role in FILLABLE or role in CHOOSABLE):
            name = name.replace('\\"', '"')
            within = next(((r, n) for _, r, n in reversed(stack) if r in CONTAINERS and n), None)
            out.append(Target(role, name, within))
        stack.append((indent, role, name))
    seen: dict[tuple[Any, ...], list[Target]] = {}
    for t in out:
        seen.setdefault((t.role, t.name, t.within), []).append(t)
    for group in seen.values():
        for t in group:
            t.count = len(group)
    return out


def split_url(url: str, apps: list[str]) -> tuple[str, str]:
    """``http://crm.localhost/x``, ``crm.localhost/x`` or ``crm:/x`` -> (app, path)."""
    if re.match(r"^[a-z][\w-]*:/", url) and not url.startswith(("http:", "https:")):
        app, _, path = url.partition(":")
        return app, path or "/"
    parts = urlsplit(url if "://" in url else f"http://{url}")
    host = (parts.hostname or "").lower()
    app = host[: -len(".localhost")] if host.endswith(".localhost") else host
    if app not in apps:
        raise ValueError(f"{url!r} is on no app (apps: {', '.join(f'{a}.localhost' for a in apps)})")
    path = parts.path or "/"
    return app, path + (f"?{parts.query}" if parts.query else "")


async def inspect(url: str, *, persona: str | None = None, seed: int = 0) -> tuple[str, str, list[Target]]:
    """Open ``url`` in a fresh world of ``seed`` signed in as ``persona``: (app, page title, targets)."""
    from apps_web import registry

    from .env import AsyncSandboxEnv
    from .observe import ObserveOptions
    from .spec import DEFAULT_ROLE, free_spec

    apps = [s.name for s in registry.discover()]
    app, path = split_url(url, apps)
    # without a persona: whom a free-form episode of the app signs in (its default role)
    spec = free_spec(app, path, persona=persona, role=DEFAULT_ROLE, seed=seed)
    env = AsyncSandboxEnv(spec, observe=ObserveOptions(screenshot="none"))
    try:
        obs, _info = await env.reset(seed=seed)
        snapshot = await env.page.locator("body").aria_snapshot()
        return app, obs.get("title", ""), targets(snapshot)
    finally:
        await env.close()
