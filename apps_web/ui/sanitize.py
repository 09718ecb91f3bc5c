"""Untrusted HTML for any app (a customer's email, a colleague's chat post): formatting survives,
code does not.

``nh3`` (Rust's ammonia) keeps an allow-list of tags and attributes, drops scripts, styles, event
handlers and ``javascript:`` URLs, and makes every link ``rel="noopener noreferrer"``. An app may
widen the lists (e.g. chat keeps the ``data-user`` of a mention).
"""

from __future__ import annotations

import html as _html
import re

import nh3
from markupsafe import Markup

TAGS = frozenset({
    "a", "b", "blockquote", "br", "code", "div", "em", "h1", "h2", "h3", "h4", "hr", "i", "li", "ol", "p", "pre", "s",
    "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "u", "ul",
})
ATTRIBUTES = {"a": {"href", "title"}, "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"},
              "p": {"class"}, "div": {"class"}, "hr": {"class"}, "span": {"class"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})  # no images: nothing loads from outside


def sanitize(html: str, *, attributes: dict[str, set[str]] | None = None) -> str:
    attrs = ATTRIBUTES if attributes is None else {**ATTRIBUTES, **attributes}
    return nh3.clean(html or "", tags=set(TAGS), attributes=attrs, url_schemes=set(URL_SCHEMES), link_rel="noopener noreferrer")


def safe_html(html: str, *, attributes: dict[str, set[str]] | None = None) -> Markup:
    """HTML ready to show inside a page."""
    return Markup(sanitize(html, attributes=attributes))


def text_of(html: str) -> str:
    """The plain text of a fragment (for previews and search), whitespace collapsed."""
    spaced = _BREAKS.sub(" ", html or "")
    return " ".join(_html.unescape(nh3.clean(spaced, tags=set(), attributes={})).split())


_BREAKS = re.compile(r"<(?:br|/p|/div|/li|/tr|/h\d)\b[^>]*>", re.I)
