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
    donut: bool = False,
    center: str = "",
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
    if donut and total:
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{r * 0.58:.1f}" fill="#fff"/>')
        if center:
            out.append(f'<text class="donut-total" x="{cx}" y="{cy}" text-anchor="middle" dominant-baseline="central">{escape(center)}</text>')
    if not slices or not total:
        out.append(f'<text class="bar-label" x="{cx}" y="{cy}" text-anchor="middle">No data</text>')
    out.append("</svg>")
    return Markup("".join(out))


def column_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    description: str = "",
    fmt: Callable[[float], str] = _fmt_default,
    width: int = 420,
    height: int = 220,
    color: str = PALETTE[0],
    chart_id: str | None = None,
    value_fmt: Callable[[float], str] | None = None,
) -> Markup:
    """A vertical bar (column) chart: one column per bar, its value above it and its label below;
    every column has a tooltip (``data-tip``) and, when it links somewhere, an accessible name with
    its label and value."""
    cid = chart_id or "chart-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "x")
    top, bottom, left = 18, 40, 8
    plot_h = height - top - bottom
    n = max(len(bars), 1)
    slot = (width - left * 2) / n
    bar_w = max(min(slot * 0.62, 56), 4)
    biggest = max((b.value for b in bars), default=0) or 1
    summary = "; ".join(f"{b.label}: {fmt(b.value)}" for b in bars) or "No data"
    desc = f"{description} {summary}." if description else f"{summary}."
    base = top + plot_h
    out = [
        f'<svg class="chart column-chart" id="{cid}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-labelledby="{cid}-title {cid}-desc" preserveAspectRatio="xMinYMin meet">',
        f'<title id="{cid}-title">{escape(title)}</title>',
        f'<desc id="{cid}-desc">{escape(desc)}</desc>',
        f'<line class="axis" x1="{left}" y1="{base}" x2="{width - left}" y2="{base}" />',
    ]
    max_chars = max(int(slot / 6.5), 4)
    for i, b in enumerate(bars):
        h = 0 if b.value <= 0 else max(2.0, plot_h * b.value / biggest)
        x = left + i * slot + (slot - bar_w) / 2
        tip = f"{b.label}: {fmt(b.value)}"
        rect = (f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" rx="2" fill="{color}" data-tip="{escape(tip)}">'
                f"<title>{escape(tip)}</title></rect>")
        out.append(f'<g class="bar" data-label="{escape(b.label)}" data-value="{b.value:.2f}">')
        out.append(f'<a href="{escape(b.href)}" aria-label="{escape(tip)}">{rect}</a>' if b.href else rect)
        cx = x + bar_w / 2
        out.append(f'<text class="bar-value" x="{cx:.1f}" y="{base - h - 4:.1f}" text-anchor="middle">{escape((value_fmt or fmt)(b.value))}</text>')
        out.append(f'<text class="bar-label" x="{cx:.1f}" y="{base + 14}" text-anchor="middle">{escape(_truncate(b.label, max_chars))}</text>')
        out.append("</g>")
    if not bars:
        out.append(f'<text class="bar-label" x="{width / 2}" y="{base - plot_h / 2}" text-anchor="middle">No data</text>')
    out.append("</svg>")
    return Markup("".join(out))


def gauge_chart(
    value: float,
    *,
    title: str,
    lo: float,
    b1: float,
    b2: float,
    hi: float,
    fmt: Callable[[float], str] = _fmt_default,
    colors: Sequence[str] = ("#ea001e", "#fe9339", "#2e844a"),
    width: int = 260,
    chart_id: str | None = None,
) -> Markup:
    """A gauge: a half dial in three segments (``lo``-``b1``, ``b1``-``b2``, ``b2``-``hi``), a needle at
    ``value`` (clamped to the dial) and the value printed under it. The accessible description names
    the value and every segment."""
    cid = chart_id or "chart-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "x")
    height = int(width * 0.62)
    cx, cy = width / 2, width / 2 - 10
    r_out, r_in = width / 2 - 40, width / 2 - 70
    span = (hi - lo) or 1

    def pt(v: float, r: float) -> tuple[float, float]:
        a = math.pi * (1 - (min(max(v, lo), hi) - lo) / span)
        return cx + r * math.cos(a), cy - r * math.sin(a)

    segs = [(lo, b1, colors[0]), (b1, b2, colors[1]), (b2, hi, colors[2])]
    desc = (f"{fmt(value)}. Segments: {fmt(lo)} to {fmt(b1)}, {fmt(b1)} to {fmt(b2)}, {fmt(b2)} to {fmt(hi)}.")
    tip = f"{title}: {fmt(value)}"
    out = [
        f'<svg class="chart gauge-chart" id="{cid}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-labelledby="{cid}-title {cid}-desc" data-value="{value:.2f}">',
        f'<title id="{cid}-title">{escape(title)}</title>',
        f'<desc id="{cid}-desc">{escape(desc)}</desc>',
    ]
    for a, b, color in segs:
        x1, y1 = pt(a, r_out)
        x2, y2 = pt(b, r_out)
        x3, y3 = pt(b, r_in)
        x4, y4 = pt(a, r_in)
        label = f"{fmt(a)} to {fmt(b)}"
        out.append(f'<path class="gauge-segment" d="M{x1:.1f},{y1:.1f} A{r_out:.1f},{r_out:.1f} 0 0 1 {x2:.1f},{y2:.1f} L{x3:.1f},{y3:.1f} '
                   f'A{r_in:.1f},{r_in:.1f} 0 0 0 {x4:.1f},{y4:.1f} Z" fill="{color}"><title>{escape(label)}</title></path>')
    nx, ny = pt(value, r_out - 4)
    out.append(f'<line class="gauge-needle" x1="{cx:.1f}" y1="{cy:.1f}" x2="{nx:.1f}" y2="{ny:.1f}" stroke="#181818" stroke-width="3" '
               f'stroke-linecap="round" data-tip="{escape(tip)}"><title>{escape(tip)}</title></line>')
    out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="#181818" data-tip="{escape(tip)}"/>')
    out.append(f'<text class="gauge-value" x="{cx:.1f}" y="{cy + 28:.1f}" text-anchor="middle">{escape(fmt(value))}</text>')
    out.append(f'<text class="bar-label" x="{cx - r_out:.1f}" y="{cy + 14:.1f}" text-anchor="middle">{escape(fmt(lo))}</text>')
    out.append(f'<text class="bar-label" x="{cx + r_out:.1f}" y="{cy + 14:.1f}" text-anchor="middle">{escape(fmt(hi))}</text>')
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


__all__ = ["Bar", "PALETTE", "bar_chart", "column_chart", "gauge_chart", "money_chart", "pie_chart", "short_money"]
