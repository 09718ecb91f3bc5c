"""Server-rendered SVG charts of the UI kit (no chart library): bar and pie charts for home pages,
dashboards and reports, used by every app.

Every chart is an ``<svg role="img">`` with a ``<title>`` and ``<desc>`` (the accessible name and a
sentence listing every value). A bar chart prints each bar's value next to it by default; with
``tooltips=True`` each bar or slice also carries ``data-tip`` (its label and value), which the kit's
script shows in a tooltip on hover or focus, as chart widgets do in the products cloned here. Labels
are escaped: they may be user data.
"""

from __future__ import annotations

import math
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
    show_values: bool = True,
    tooltips: bool = False,
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
        tip = f"{b.label}: {fmt(b.value)}"
        tip_attr = f' data-tip="{escape(tip)}"' if tooltips else ""
        rect = f'<rect x="{label_width}" y="{y}" width="{w:.1f}" height="{bar_height}" rx="2" fill="{color}"{tip_attr}><title>{escape(tip)}</title></rect>'
        link_label = f' aria-label="{escape(tip)}"' if tooltips else ""
        out.append(f'<a href="{escape(b.href)}"{link_label}>{rect}</a>' if b.href else rect)
        if show_values:
            out.append(f'<text class="bar-value" x="{label_width + w + 6:.1f}" y="{mid:.1f}" dominant-baseline="central">{escape(fmt(b.value))}</text>')
        out.append("</g>")
    if not bars:
        out.append(f'<text class="bar-label" x="{label_width + 8}" y="{top + bar_height / 2}" dominant-baseline="central">No data</text>')
    out.append("</svg>")
    return Markup("".join(out))


def pie_chart(
    slices: Sequence[Bar],
    *,
    title: str,
    description: str = "",
    fmt: Callable[[float], str] = _fmt_default,
    size: int = 220,
    palette: Sequence[str] = PALETTE,
    chart_id: str | None = None,
    legend_values: bool = False,
) -> Markup:
    """A pie chart with a legend; each slice has a tooltip (``data-tip``) with its label, value and share.

    The legend names the slices (with their values only when ``legend_values``); the accessible
    description lists every value and share.
    """
    cid = chart_id or "chart-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "x")
    total = sum(max(s.value, 0) for s in slices)
    share = lambda v: f"{100 * v / total:.1f}%" if total else "0%"  # noqa: E731
    summary = "; ".join(f"{s.label}: {fmt(s.value)} ({share(s.value)})" for s in slices) or "No data"
    desc = f"{description} {summary}." if description else f"{summary}."
    legend_w = 190
    rows = max(len(slices), 1)
    height = max(size, rows * 20 + 8)
    r = size / 2 - 6
    cx = cy = size / 2
    out = [
        f'<svg class="chart pie-chart" id="{cid}" viewBox="0 0 {size + legend_w} {height}" width="{size + legend_w}" height="{height}" role="img" '
        f'aria-labelledby="{cid}-title {cid}-desc" preserveAspectRatio="xMinYMin meet">',
        f'<title id="{cid}-title">{escape(title)}</title>',
        f'<desc id="{cid}-desc">{escape(desc)}</desc>',
    ]
    angle = -math.pi / 2
    for i, s in enumerate(slices):
        color = palette[i % len(palette)]
        tip = f"{s.label}: {fmt(s.value)} ({share(s.value)})"
        frac = max(s.value, 0) / total if total else 0
        if frac <= 0:
            shape = ""
        elif frac >= 0.9999:
            shape = f'<circle cx="{cx}" cy="{cy}" r="{r:.1f}" fill="{color}" data-tip="{escape(tip)}"><title>{escape(tip)}</title></circle>'
        else:
            end = angle + 2 * math.pi * frac
            x1, y1 = cx + r * math.cos(angle), cy + r * math.sin(angle)
            x2, y2 = cx + r * math.cos(end), cy + r * math.sin(end)
            large = 1 if frac > 0.5 else 0
            shape = (f'<path d="M{cx:.1f},{cy:.1f} L{x1:.2f},{y1:.2f} A{r:.1f},{r:.1f} 0 {large} 1 {x2:.2f},{y2:.2f} Z" fill="{color}" '
                     f'stroke="#fff" stroke-width="1" data-tip="{escape(tip)}"><title>{escape(tip)}</title></path>')
            angle = end
        if shape:
            out.append(f'<a href="{escape(s.href)}" aria-label="{escape(tip)}">{shape}</a>' if s.href else shape)
        ly = 8 + i * 20
        text = f"{s.label} ({fmt(s.value)})" if legend_values else s.label
        out.append(f'<rect x="{size + 8}" y="{ly}" width="12" height="12" rx="2" fill="{color}"/>'
                   f'<text class="bar-label" x="{size + 26}" y="{ly + 6}" dominant-baseline="central">{escape(_truncate(text, 26))}</text>')
    if not slices or not total:
        out.append(f'<text class="bar-label" x="{cx}" y="{cy}" text-anchor="middle">No data</text>')
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


__all__ = ["Bar", "PALETTE", "bar_chart", "money_chart", "pie_chart", "short_money"]
