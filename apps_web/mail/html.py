"""Message bodies are untrusted HTML (a customer wrote them): formatting survives, code does not.

``nh3`` (Rust's ammonia) keeps an allow-list of tags and attributes, drops scripts, styles, event
handlers and ``javascript:`` URLs, and makes every link ``rel="noopener noreferrer"``.
"""

from __future__ import annotations

import nh3
from markupsafe import Markup

TAGS = {
    "a", "b", "blockquote", "br", "code", "div", "em", "h1", "h2", "h3", "h4", "hr", "i", "li", "ol", "p", "pre", "s",
    "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "u", "ul",
}
ATTRIBUTES = {"a": {"href", "title"}, "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"},
              "p": {"class"}, "div": {"class"}, "hr": {"class"}, "span": {"class"}}
URL_SCHEMES = {"http", "https", "mailto"}  # no images: like Outlook, nothing loads from outside


def sanitize(html: str) -> str:
    return nh3.clean(html or "", tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel="noopener noreferrer")


def safe_body(html: str) -> Markup:
    """A message body ready to show inside the page."""
    return Markup(sanitize(html))
