"""Charts on a sheet (Excel's Insert > Chart): the data a chart reads from its range and its drawing
as SVG, server-side from the computed cell values.

A range's first column holds the categories and each further column is a series; when the first row
holds text over the series columns it is their header (the series' names), as Excel reads a selection.
A one-column range is one series over the categories 1, 2, 3... Every bar, point and slice carries its
exact value as a tooltip (``<title>``, Excel's wording: Series "Revenue" Point "East" Value: 1,250)
and as its accessible name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Any

from markupsafe import Markup
from sqlmodel import Session, select

from .formulas import col_name
from .models import CHART_KINDS, CHART_LABELS, Cell, Chart, Sheet
from .sheets import SheetError, parse_range, range_name

MAX_ROWS, MAX_SERIES = 200, 12
# Excel's default palette (Office theme accents 1-6, then their darker shades).
PALETTE = ("#4472c4", "#ed7d31", "#a5a5a5", "#ffc000", "#5b9bd5", "#70ad47", "#264478", "#9e480e", "#636363", "#997300", "#255e91", "#43682b")


@dataclass
class Series:
    name: str
    values: list[float | None]


@dataclass
class ChartData:
    categories: list[str]
    series: list[Series]


def check_source(text: str) -> str:
    """The range as written in the chart ("A1:C7"), or SheetError with Excel's kind of message."""
    try:
        r1, c1, r2, c2 = parse_range(text.strip().replace("$", "").upper())
    except ValueError:
        raise SheetError("The reference isn't valid. Select a range like A1:C7 for the chart's data.") from None
    if r1 == r2 and c1 == c2:
        raise SheetError("Select more than one cell for the chart's data (a range like A1:B7).")
    if r2 - r1 + 1 > MAX_ROWS or c2 - c1 > MAX_SERIES:
        raise SheetError(f"A chart can show at most {MAX_SERIES} series of {MAX_ROWS} points.")
    return range_name(r1, c1, r2, c2)


def check_kind(kind: str) -> str:
    if kind not in CHART_KINDS:
        raise SheetError(f"Unknown chart type “{kind}”.")
    return kind


def read(values: dict[tuple[int, int], tuple[str, float | None]], source: str) -> ChartData:
    """The categories and series of ``source`` from the sheet's computed ``values`` {(row, col): (shown, number)}."""
    r1, c1, r2, c2 = parse_range(source)
    shown = lambda r, c: values.get((r, c), ("", None))  # noqa: E731
    first_series_col = c1 + 1 if c2 > c1 else c1
    header = any(shown(r1, c)[0] != "" and shown(r1, c)[1] is None for c in range(first_series_col, c2 + 1)) and r2 > r1
    body = range(r1 + 1 if header else r1, r2 + 1)
    if c2 > c1:
        categories = [shown(r, c1)[0] for r in body]
    else:
        categories = [str(i + 1) for i in range(len(body))]
    series = []
    for n, c in enumerate(range(first_series_col, c2 + 1), start=1):
        name = shown(r1, c)[0] if header else f"Series{n}"
        series.append(Series(name or f"Series{n}", [shown(r, c)[1] for r in body]))
    return ChartData(categories, series)


def default_title(data: ChartData) -> str:
    return data.series[0].name if len(data.series) == 1 else "Chart Title"


def sheet_values(session: Session, sheet_id: int) -> dict[tuple[int, int], tuple[str, float | None]]:
    return {(c.row, c.col): (c.value, c.number) for c in session.exec(select(Cell).where(Cell.sheet_id == sheet_id)).all()}


def charts_of(session: Session, sheet: Sheet) -> list[Chart]:
    return list(session.exec(select(Chart).where(Chart.sheet_id == sheet.id).order_by(Chart.id)).all())


def touching(charts: list[Chart], sheet_id: int, cells: list[Cell]) -> list[Chart]:
    """The charts whose range holds one of the changed ``cells``."""
    out = []
    for ch in charts:
        r1, c1, r2, c2 = parse_range(ch.source)
        if any(c.sheet_id == sheet_id == ch.sheet_id and r1 <= c.row <= r2 and c1 <= c.col <= c2 for c in cells):
            out.append(ch)
    return out


def as_json(ch: Chart, data: ChartData, sheet_name: str) -> dict[str, Any]:
    return {"id": ch.id, "sheet": sheet_name, "kind": ch.kind, "range": ch.source, "title": ch.title, "anchor": ch.anchor,
            "width": ch.width, "height": ch.height, "categories": data.categories,
            "series": [{"name": s.name, "values": s.values} for s in data.series]}


# -- drawing ----------------------------------------------------------------------------------------
def number_label(v: float) -> str:
    """A value as the chart labels it: thousands separated, at most two decimals."""
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:,.2f}".rstrip("0").rstrip(".")


def nice_scale(lo: float, hi: float) -> tuple[float, float, float]:
    """Axis (min, max, step) with about five round steps, zero included, as Excel's automatic axis."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if lo == hi:
        hi = 1.0
    raw = (hi - lo) / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step, step


def tip(series: str, point: str, v: float) -> str:
    return f'Series "{series}" Point "{point}" Value: {number_label(v)}'


def _mark(tag: str, label: str, **attrs: Any) -> str:
    a = " ".join(f'{k.rstrip("_").replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<{tag} {a} role="img" aria-label="{escape(label)}"><title>{escape(label)}</title></{tag}>'


def svg(ch: Chart, data: ChartData) -> Markup:
    w, h = ch.width, ch.height
    out = [f'<svg class="chart-svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg" font-family="Calibri, Inter, sans-serif" font-size="11">',
           f'<text x="{w / 2:.0f}" y="24" text-anchor="middle" font-size="15" fill="#595959" class="chart-title">{escape(ch.title)}</text>']
    legend = [(s.name, PALETTE[i % len(PALETTE)]) for i, s in enumerate(data.series)]
    if ch.kind == "pie":
        legend = [(c, PALETTE[i % len(PALETTE)]) for i, c in enumerate(data.categories)]
        out += _pie(data, w, h)
    else:
        out += _axes(ch.kind, data, w, h)
    # The legend, centred along the bottom.
    items = legend[:16]
    widths = [14 + 6.2 * len(n) + 14 for n, _ in items]
    x = max(8.0, (w - sum(widths)) / 2)
    for (name, color), iw in zip(items, widths):
        out.append(f'<rect x="{x:.1f}" y="{h - 17}" width="8" height="8" fill="{color}"/><text x="{x + 12:.1f}" y="{h - 9}" fill="#595959">{escape(name)}</text>')
        x += iw
    out.append("</svg>")
    return Markup("".join(out))


def _axes(kind: str, data: ChartData, w: int, h: int) -> list[str]:
    vals = [v for s in data.series for v in s.values if v is not None]
    lo, hi, step = nice_scale(min(vals, default=0.0), max(vals, default=1.0))
    out: list[str] = []
    left, right, top, bottom = 56, w - 16, 40, h - 44
    if kind == "bar":
        left = 16 + min(110, 6 * max((len(c) for c in data.categories), default=1))
    n = max(len(data.categories), 1)
    ticks = [lo + i * step for i in range(int(round((hi - lo) / step)) + 1)]

    def scale(v: float) -> float:  # value -> pixel along the value axis
        if kind == "bar":
            return left + (v - lo) / (hi - lo) * (right - left)
        return bottom - (v - lo) / (hi - lo) * (bottom - top)

    for t in ticks:  # gridlines and value labels
        p = scale(t)
        if kind == "bar":
            out.append(f'<line x1="{p:.1f}" y1="{top}" x2="{p:.1f}" y2="{bottom}" stroke="#d9d9d9"/><text x="{p:.1f}" y="{bottom + 14}" text-anchor="middle" fill="#595959">{number_label(t)}</text>')
        else:
            out.append(f'<line x1="{left}" y1="{p:.1f}" x2="{right}" y2="{p:.1f}" stroke="#d9d9d9"/><text x="{left - 6}" y="{p + 4:.1f}" text-anchor="end" fill="#595959">{number_label(t)}</text>')
    band = ((bottom - top) if kind == "bar" else (right - left)) / n
    k = max(len(data.series), 1)
    zero = scale(0.0)
    for i, cat in enumerate(data.categories):  # category labels
        mid = (top if kind == "bar" else left) + band * (i + 0.5)
        label = escape(cat if len(cat) <= 14 else cat[:13] + "…")
        if kind == "bar":
            out.append(f'<text x="{left - 6}" y="{mid + 4:.1f}" text-anchor="end" fill="#595959">{label}</text>')
        else:
            out.append(f'<text x="{mid:.1f}" y="{bottom + 16}" text-anchor="middle" fill="#595959">{label}</text>')
    for si, s in enumerate(data.series):
        color = PALETTE[si % len(PALETTE)]
        if kind == "line":
            pts = [(left + band * (i + 0.5), scale(v), v, data.categories[i]) for i, v in enumerate(s.values) if v is not None]
            if pts:
                out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2.25" points="{" ".join(f"{x:.1f},{y:.1f}" for x, y, _v, _c in pts)}"/>')
            for x, y, v, cat in pts:
                out.append(_mark("circle", tip(s.name, cat, v), cx=f"{x:.1f}", cy=f"{y:.1f}", r="4", fill=color, class_="chart-point"))
            continue
        inner = band * 0.62 / k
        for i, v in enumerate(s.values):
            if v is None:
                continue
            off = band * (i + 0.19) + inner * si
            a, b = sorted((zero, scale(v)))
            if kind == "bar":
                out.append(_mark("rect", tip(s.name, data.categories[i], v), x=f"{a:.1f}", y=f"{top + off:.1f}", width=f"{b - a:.1f}", height=f"{inner:.1f}",
                                 fill=color, class_="chart-point"))
            else:
                out.append(_mark("rect", tip(s.name, data.categories[i], v), x=f"{left + off:.1f}", y=f"{a:.1f}", width=f"{inner:.1f}", height=f"{b - a:.1f}",
                                 fill=color, class_="chart-point"))
    if kind == "bar":
        out.append(f'<line x1="{zero:.1f}" y1="{top}" x2="{zero:.1f}" y2="{bottom}" stroke="#bfbfbf"/>')
    else:
        out.append(f'<line x1="{left}" y1="{zero:.1f}" x2="{right}" y2="{zero:.1f}" stroke="#bfbfbf"/>')
    return out


def _pie(data: ChartData, w: int, h: int) -> list[str]:
    """The first series as slices (negative and empty values are left out, as Excel draws a pie)."""
    s = data.series[0]
    parts = [(data.categories[i], v) for i, v in enumerate(s.values) if v is not None and v > 0]
    total = sum(v for _c, v in parts)
    cx, cy, r = w / 2, 40 + (h - 84) / 2, max(20.0, (h - 84) / 2)
    out: list[str] = []
    if not total:
        return out
    angle = -math.pi / 2
    for i, (cat, v) in enumerate(parts):
        color = PALETTE[data.categories.index(cat) % len(PALETTE)]
        sweep = v / total * 2 * math.pi
        label = tip(s.name, cat, v)
        if len(parts) == 1:
            out.append(_mark("circle", label, cx=f"{cx:.1f}", cy=f"{cy:.1f}", r=f"{r:.1f}", fill=color, stroke="#fff", class_="chart-point"))
            break
        x1, y1 = cx + r * math.cos(angle), cy + r * math.sin(angle)
        x2, y2 = cx + r * math.cos(angle + sweep), cy + r * math.sin(angle + sweep)
        large = 1 if sweep > math.pi else 0
        d = f"M{cx:.1f},{cy:.1f} L{x1:.2f},{y1:.2f} A{r:.1f},{r:.1f} 0 {large} 1 {x2:.2f},{y2:.2f} Z"
        out.append(_mark("path", label, d=d, fill=color, stroke="#fff", stroke_width="1.5", class_="chart-point"))
        angle += sweep
    return out


def for_export(session: Session, item_id: int) -> list[tuple[str, str, str, str, str, bool]]:
    """(sheet name, kind, range, title, anchor, first row is a header) of the workbook's charts, for .xlsx."""
    out = []
    for sheet in session.exec(select(Sheet).where(Sheet.item_id == item_id).order_by(Sheet.position)).all():
        found = charts_of(session, sheet)
        values = sheet_values(session, sheet.id) if found else {}
        for x in found:
            r1, c1, r2, c2 = parse_range(x.source)
            first = c1 + 1 if c2 > c1 else c1
            header = r2 > r1 and any(values.get((r1, c), ("", None))[0] != "" and values.get((r1, c), ("", None))[1] is None for c in range(first, c2 + 1))
            out.append((sheet.name, x.kind, x.source, x.title, x.anchor, header))
    return out


def kind_label(kind: str) -> str:
    return CHART_LABELS.get(kind, kind)


def anchor_beside(source: str) -> str:
    """Where Excel drops a new chart: to the right of its data, one column apart, level with its top."""
    r1, _c1, _r2, c2 = parse_range(source)
    return f"{col_name(c2 + 2)}{r1}"


__all__ = ["ChartData", "Series", "anchor_beside", "as_json", "charts_of", "check_kind", "check_source", "default_title", "for_export", "kind_label",
           "read", "sheet_values", "svg", "touching"]
