"""Filter logic of list views and reports: "1 AND (2 OR NOT 3)" over numbered filters.

``parse`` checks a logic string against the number of filters with Salesforce's messages and gives
a tree; ``combine`` turns the tree and one SQL condition per filter into a single condition;
``normalize`` writes the logic back in one canonical spelling (upper-case operators, single spaces,
no space inside parentheses), which is what the database stores.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import and_, not_, or_

_TOKEN = re.compile(r"\s*(\(|\)|\d+|[A-Za-z]+|\S)")


class LogicError(ValueError):
    """A filter logic the product refuses; ``str(err)`` is the message shown under the field."""


@dataclass(frozen=True)
class Node:
    op: str  # "num" | "and" | "or" | "not"
    num: int = 0
    args: tuple["Node", ...] = ()


def _tokens(text: str) -> list[str]:
    out = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            break
        tok = m.group(1)
        out.append(tok.upper() if tok.isalpha() else tok)
        pos = m.end()
    return out


def parse(text: str, count: int) -> Node | None:
    """The tree of a logic over filters 1..count (None for an empty logic: every filter ANDed)."""
    toks = _tokens(text or "")
    if not toks:
        return None
    for t in toks:
        if not (t.isdigit() or t in ("AND", "OR", "NOT", "(", ")")):
            raise LogicError("Check the spelling in your filter logic.")
    depth = 0
    for t in toks:
        depth += t == "("
        depth -= t == ")"
        if depth < 0:
            raise LogicError("Your filter has extra parentheses.")
    if depth > 0:
        raise LogicError("Your filter is missing a parenthesis.")
    pos = 0

    def peek() -> str | None:
        return toks[pos] if pos < len(toks) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def unary() -> Node:
        t = peek()
        if t is None:
            raise LogicError("Your filter logic is incomplete.")
        if t == "NOT":
            take()
            return Node("not", args=(unary(),))
        if t == "(":
            take()
            node = expr()
            if peek() != ")":
                raise LogicError("Your filter is missing a parenthesis.")
            take()
            return node
        if t.isdigit():
            take()
            n = int(t)
            if n < 1 or n > count:
                raise LogicError(f"The filter logic references an undefined filter: {n}.")
            return Node("num", num=n)
        raise LogicError("Check the spelling in your filter logic.")

    def expr() -> Node:
        first = unary()
        op: str | None = None
        args = [first]
        while peek() in ("AND", "OR"):
            t = take()
            if op is not None and t != op:
                raise LogicError("Your filter must use parentheses around successive AND and OR expressions.")
            op = t
            args.append(unary())
        return first if op is None else Node(op.lower(), args=tuple(args))

    node = expr()
    if pos != len(toks):
        raise LogicError("Check the spelling in your filter logic." if peek() != ")" else "Your filter has extra parentheses.")
    used = _numbers(node)
    if set(range(1, count + 1)) - used:
        raise LogicError("Some filter conditions are defined but not referenced in your filter logic.")
    return node


def _numbers(node: Node) -> set[int]:
    if node.op == "num":
        return {node.num}
    out: set[int] = set()
    for a in node.args:
        out |= _numbers(a)
    return out


def normalize(text: str | None) -> str | None:
    """One spelling of a (valid) logic: "1 AND (2 OR 3)"; None when empty."""
    toks = _tokens(text or "")
    if not toks:
        return None
    out = ""
    for t in toks:
        if t == ")" or (out.endswith("(")):
            out += t
        else:
            out += (" " if out else "") + t
    return out


def combine(node: Node | None, conditions: Sequence[Any]) -> Any:
    """One SQL condition from the tree and each filter's condition (index 0 is filter 1)."""
    if node is None:
        return and_(*conditions) if conditions else None
    if node.op == "num":
        return conditions[node.num - 1]
    parts = [combine(a, conditions) for a in node.args]
    if node.op == "not":
        return not_(parts[0])
    return and_(*parts) if node.op == "and" else or_(*parts)


__all__ = ["LogicError", "Node", "combine", "normalize", "parse"]
