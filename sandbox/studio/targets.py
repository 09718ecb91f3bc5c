"""The oracle target of what a person pressed: ``{role, name}`` (or a label, or text), scoped by a
named container or an index only when needed, and kept only when the task player's own locator
(``tasks.player.locate``) finds exactly the pressed element with it.

The probe in the page (scripts/probe.js) proposes names the way a person reads them; this module
checks each proposal on the live page before the press's effect, so a drafted oracle step is a
semantic target that replays (in this world and, with templated names, in other seeds' worlds) and
not a coordinate. A press that no proposal pins down keeps its coordinates.
"""

from __future__ import annotations

from typing import Any

from tasks.model import Target
from tasks.player import locate

# [matches, index of the match that is (or holds) the element at (x, y), or -1]
_WHERE_JS = """(els, [x, y]) => {
  const hit = document.elementFromPoint(x, y);
  return [els.length, hit ? els.findIndex((e) => e === hit || e.contains(hit)) : -1];
}"""
FIELD_TAGS = ("input", "textarea", "select")


def _proposals(hint: dict[str, Any]) -> list[Target]:
    role, name, tag, label = hint.get("role"), hint.get("name") or "", hint.get("tag"), hint.get("label") or ""
    out: list[Target] = []
    if role and name:
        out.append(Target(role=role, name=name))
    if label and (tag in FIELD_TAGS or tag == "label"):
        out.append(Target(label=label))
    if name and not role and tag not in FIELD_TAGS:
        out.append(Target(text=name))
    return out


async def _where(page: Any, target: Target, x: float, y: float) -> tuple[int, int]:
    n, i = await locate(page, target).evaluate_all(_WHERE_JS, [x, y])
    return int(n), int(i)


async def pressed_target(page: Any, hint: dict[str, Any] | None, x: float, y: float) -> dict[str, Any] | None:
    """The target an oracle step would use for the element pressed at (x, y), or None."""
    if not hint:
        return None
    for target in _proposals(hint):
        n, i = await _where(page, target, x, y)
        if i < 0:
            continue  # the proposal names something else: the next one
        if n == 1:
            return _dump(target)
        for c in hint.get("containers") or []:  # the nearest named container that makes it unique
            scoped = target.model_copy(update={"within": Target(role=c["role"], name=c["name"])})
            n2, i2 = await _where(page, scoped, x, y)
            if n2 == 1 and i2 == 0:
                return _dump(scoped)
        return _dump(target.model_copy(update={"nth": i}))
    return None


def _dump(target: Target) -> dict[str, Any]:
    return target.model_dump(exclude_none=True)
