"""A document's Delta as the HTML the editor (Quill 2) renders for it, drawn by the server.

The document page sends this markup with the Delta; ``document.js`` puts it into the editor and has
Quill read its blots from it, which costs a fraction of building 20 pages from the Delta
(``setContents``). The page checks that the editor's contents then equal the Delta and falls back to
``setContents`` when they do not, so this renderer can only make the page faster, never wrong; the
tests hold it to Quill's own output for every format a document has.

Quill's markup for the formats the drive keeps: a line is ``<p>``, ``<h1>``-``<h3>`` or ``<h6>`` (the
Title); list items of either kind share one ``<ol>`` (``<li data-list="bullet|ordered">`` with the UI
span Quill puts first); table cells are ``<td data-row>`` grouped into ``<tr>`` by row id and into one
``<table><tbody>``; an empty line or cell holds ``<br>``. Inline formats nest in Quill's order, bold
outermost and the link innermost, and neighbouring runs share their common outer tags; a link whose
scheme Quill does not allow points to ``about:blank``, as Quill makes it.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

INLINE_ORDER = ("bold", "italic", "underline", "link")  # outermost first, as Quill nests them
TAGS = {"bold": "strong", "italic": "em", "underline": "u"}
LIST_UI = '<span class="ql-ui" contenteditable="false"></span>'
LINK_PROTOCOLS = ("http", "https", "mailto", "tel", "sms")  # Quill's Link.PROTOCOL_WHITELIST
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")
Run = tuple[tuple[tuple[str, Any], ...], str]  # the run's formats, outermost first, and its text


def safe_href(url: str) -> str:
    """The link as Quill writes it: ``about:blank`` for a scheme it does not allow (``javascript:``...).
    As a browser reads a URL, surrounding controls and spaces and inner tabs and newlines don't count;
    a URL without a scheme is relative to the page, so allowed."""
    bare = re.sub(r"[\t\n\r]", "", url).strip("".join(map(chr, range(33))))
    m = _SCHEME.match(bare)
    return url if m is None or m[1].lower() in LINK_PROTOCOLS else "about:blank"


def _lines(ops: list[dict[str, Any]]) -> list[tuple[list[Run], dict[str, Any]]]:
    """The Delta's lines: each its runs and the line's format."""
    lines: list[tuple[list[Run], dict[str, Any]]] = []
    runs: list[Run] = []
    for op in ops:
        text = op.get("insert")
        if not isinstance(text, str):
            continue
        attrs = op.get("attributes") or {}
        formats = tuple((k, safe_href(attrs[k]) if k == "link" else attrs[k]) for k in INLINE_ORDER if attrs.get(k))
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if part:
                runs.append((formats, part))
            if k < len(parts) - 1:
                lines.append((runs, attrs))
                runs = []
    if runs:
        lines.append((runs, {}))
    return lines


def _inline(runs: list[Run]) -> str:
    """Runs as nested inline tags: consecutive runs with the same outermost format share its tag."""
    out: list[str] = []
    i = 0
    while i < len(runs):
        formats, text = runs[i]
        if not formats:
            out.append(str(escape(text)))
            i += 1
            continue
        head = formats[0]
        j = i
        inner = []
        while j < len(runs) and runs[j][0][:1] == (head,):
            inner.append((runs[j][0][1:], runs[j][1]))
            j += 1
        name, value = head
        body = _inline(inner)
        if name == "link":
            out.append(f'<a href="{escape(value)}" rel="noopener noreferrer" target="_blank">{body}</a>')
        else:
            out.append(f"<{TAGS[name]}>{body}</{TAGS[name]}>")
        i = j
    return "".join(out)


def editor_html(delta: dict[str, Any]) -> Markup:
    """The editor's markup for ``delta`` (see the module docstring)."""
    out: list[str] = []
    open_list = False
    table_row: Any = None  # the row id of the open table row, None outside a table
    for runs, attrs in _lines(delta.get("ops") or []):
        content = _inline(runs) or "<br>"
        row = attrs.get("table")
        if table_row is not None and row != table_row:
            out.append("</tr>")
            if not row:
                out.append("</tbody></table>")
        if open_list and not attrs.get("list"):
            out.append("</ol>")
            open_list = False
        if row:
            if table_row is None:
                out.append("<table><tbody>")
            if row != table_row:
                out.append("<tr>")
            out.append(f'<td data-row="{escape(row)}">{content}</td>')
            table_row = row
            continue
        table_row = None
        kind = attrs.get("list")
        if kind:
            if not open_list:
                out.append("<ol>")
                open_list = True
            out.append(f'<li data-list="{escape(kind)}">{LIST_UI}{content}</li>')
        elif attrs.get("header"):
            out.append(f"<h{int(attrs['header'])}>{content}</h{int(attrs['header'])}>")
        else:
            out.append(f"<p>{content}</p>")
    if table_row is not None:
        out.append("</tr></tbody></table>")
    if open_list:
        out.append("</ol>")
    return Markup("".join(out))
