"""Server-rendered SVG charts (no chart library, no JS): bar charts for the home page and reports.

Every chart is an ``<svg role="img">`` with a ``<title>`` and ``<desc>`` (the accessible name and a
sentence listing every value), and prints each bar's value next to it so a screenshot or the
accessibility tree alone is enough to read it. Labels are escaped: they may be user data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from markupsafe import Markup, escape


# Salesforce-like categorical palette.
PALETTE = ["#1b96ff", "#0b827c", "#ff5d2d", "#9050e9", "#e3066a", "#06a59a", "#dd7a01", "#3a49da", "#c23934", "#2e844a"]


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    href: str | None = None


def _fmt_default(value: float) -> str:
    return f"{value:,.0f}"


def _truncate(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def bar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    description: str = "",
    fmt: Callable[[float], str] = _fmt_default,
    width: int = 520,
    bar_height: int = 22,
    gap: int = 8,
    label_width: int = 150,
    color: str = PALETTE[0],
    chart_id: str | None = None,
) -> Markup:
    """A horizontal bar chart: one row per bar (label, bar, value label), scaled to the largest."""
    # Ids derive from the title, never from a counter: two renders of a page must be identical.
    cid = chart_id or "chart-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "x")
    value_width = 70
    plot = max(width - label_width - value_width - 8, 40)
    top = 4
    height = top + len(bars) * (bar_height + gap) + 4
    biggest = max((b.value for b in bars), default=0) or 1
    summary = "; ".join(f"{b.label}: {fmt(b.value)}" for b in bars) or "No data"
    desc = f"{description} {summary}." if description else f"{summary}."
    out = [
        f'<svg class="chart bar-chart" id="{cid}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-labelledby="{cid}-title {cid}-desc" preserveAspectRatio="xMinYMin meet">',
        f'<title id="{cid}-title">{escape(title)}</title>',
        f'<desc id="{cid}-desc">{escape(desc)}</desc>',
        f'<line class="axis" x1="{label_width}" y1="0" x2="{label_width}" y2="{height}" />',
    ]
    for i, b in enumerate(bars):
        y = top + i * (bar_height + gap)
        w = 0 if b.value <= 0 else max(2.0, plot * b.value / biggest)
        mid = y + bar_height / 2
        label = escape(_truncate(b.label, 24))
        out.append(f'<g class="bar" data-label="{escape(b.label)}" data-value="{b.value:.2f}">')
        out.append(f'<text class="bar-label" x="{label_width - 8}" y="{mid:.1f}" text-anchor="end" dominant-baseline="central">{label}</text>')
        rect = f'<rect x="{label_width}" y="{y}" width="{w:.1f}" height="{bar_height}" rx="2" fill="{color}"><title>{escape(b.label)}: {escape(fmt(b.value))}</title></rect>'
        out.append(f'<a href="{escape(b.href)}">{rect}</a>' if b.href else rect)
        out.append(f'<text class="bar-value" x="{label_width + w + 6:.1f}" y="{mid:.1f}" dominant-baseline="central">{escape(fmt(b.value))}</text>')
        out.append("</g>")
    if not bars:
        out.append(f'<text class="bar-label" x="{label_width + 8}" y="{top + bar_height / 2}" dominant-baseline="central">No data</text>')
    out.append("</svg>")
    return Markup("".join(out))


def short_money(value: float) -> str:
    """Chart labels: $4.92M, $494K, $950 (three significant figures where it matters)."""
    v = abs(value)
    sign = "-" if value < 0 else ""
    if v >= 1e9:
        return f"{sign}${v / 1e9:.2f}B"
    if v >= 1e6:
        return f"{sign}${v / 1e6:.2f}M"
    if v >= 1e3:
        return f"{sign}${v / 1e3:.0f}K"
    return f"{sign}${v:,.0f}"


def money_chart(bars: Sequence[Bar], *, title: str, description: str = "", **kw) -> Markup:
    """A bar chart whose values are currency amounts ($1.23M style labels)."""
    return bar_chart(bars, title=title, description=description, fmt=short_money, **kw)


__all__ = ["Bar", "PALETTE", "bar_chart", "money_chart", "short_money"]
