"""Message bodies are untrusted HTML (a customer wrote them): the UI kit's sanitiser keeps the
formatting and drops the code (scripts, styles, event handlers, ``javascript:`` URLs)."""

from __future__ import annotations

from ..ui.sanitize import ATTRIBUTES, TAGS, URL_SCHEMES, sanitize
from ..ui.sanitize import safe_html as safe_body

__all__ = ["ATTRIBUTES", "TAGS", "URL_SCHEMES", "safe_body", "sanitize"]
