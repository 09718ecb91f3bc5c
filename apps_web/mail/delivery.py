"""What sending means, shared by the UI, the API and the world generator: quoting the message a reply
answers, the plain-text preview, and the company-wide distribution list."""

from __future__ import annotations

import re
from datetime import datetime
from html import escape, unescape

EVERYONE_LOCAL = "everyone"  # everyone@<company domain>: the All Employees distribution list
_TAG = re.compile(r"<[^>]+>")
_BLOCK = re.compile(r"</(p|div|li|h\d|tr)>|<br\s*/?>", re.I)
_SPACE = re.compile(r"\s+")


def fmt_sent(t: datetime) -> str:
    """Outlook's quote-header date: "Monday, March 16, 2026 9:30 AM"."""
    hour = t.hour % 12 or 12
    return f"{t:%A}, {t:%B} {t.day}, {t.year} {hour}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"


def quote_header(name: str, address: str, sent: datetime | None, to: list[str], cc: list[str], subject: str) -> str:
    """The separator and header Outlook puts above the quoted message of a reply or forward."""
    rows = [f"<b>From:</b> {escape(name)} &lt;{escape(address)}&gt;"]
    if sent is not None:
        rows.append(f"<b>Sent:</b> {escape(fmt_sent(sent))}")
    rows.append(f"<b>To:</b> {escape('; '.join(to))}")
    if cc:
        rows.append(f"<b>Cc:</b> {escape('; '.join(cc))}")
    rows.append(f"<b>Subject:</b> {escape(subject)}")
    return '<hr class="quote-sep"><div class="quote-header"><p>' + "<br>".join(rows) + "</p></div>"


def html_to_text(html: str) -> str:
    return _SPACE.sub(" ", unescape(_TAG.sub(" ", _BLOCK.sub(" ", html or "")))).strip()


def text_preview(html: str, limit: int = 200) -> str:
    text = html_to_text(html)
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
