"""What the drive pages show: sizes, file icons, and the page frame's context."""

from __future__ import annotations

from markupsafe import Markup


def size_label(n: int | None, kind: str = "file") -> str:
    if kind == "folder":
        return ""
    n = n or 0
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1048576:.1f} MB"


COLORS = {"folder": "#dcb64f", "document": "#185abd", "sheet": "#107c41", "file": "#6b6b6b"}
LETTERS = {"document": "W", "sheet": "X"}


def file_icon(kind: str) -> Markup:
    """Office-like file-type icons (inline SVG: a folder, a Word W, an Excel X, a page)."""
    if kind == "folder":
        return Markup('<svg class="ficon" viewBox="0 0 24 24" aria-hidden="true"><path fill="#dcb64f" d="M2 6a2 2 0 0 1 2-2h5l2 2h9a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2z"/></svg>')
    letter = LETTERS.get(kind)
    color = COLORS.get(kind, "#6b6b6b")
    inner = f'<rect x="2" y="6" width="12" height="12" rx="1.5" fill="{color}"/><text x="8" y="15.5" font-size="9" font-weight="700" fill="#fff" text-anchor="middle" font-family="Inter,sans-serif">{letter}</text>' if letter else ""
    return Markup(f'<svg class="ficon" viewBox="0 0 24 24" aria-hidden="true"><path fill="#fff" stroke="{color}" stroke-width="1.2" d="M6 2.5h9l4.5 4.5v14.5H6z"/>{inner}</svg>')
