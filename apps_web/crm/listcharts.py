"""List View Charts: a chart of the rows a list view shows (its view, filters and search), in a panel
beside the list, as Lightning's chart icon opens.

A chart (``crm_list_view_chart``) has a type (Vertical Bar, Horizontal Bar, Donut), an aggregate
(Count of records, or Sum / Average of a number field) and a grouping field (a picklist, the owner or
the account). It is computed with one grouped query over every row of the list (not only the page
shown) and drawn with the UI kit's SVG charts: each bar or slice carries its label and value as a
tooltip and an accessible name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from sqlalchemy import and_, func, or_, select
from sqlmodel import Session
from sqlmodel import select as model_select

from ..identity.models import User
from ..ui import money
from ..ui.charts import Bar, bar_chart, column_chart, pie_chart
from .listing import Filter, ListField, ListParams, ListSpec, ViewContext, _condition
from .models import ListViewChart
from .models import RecentView as RECENT

CHART_TYPES = {"vertical_bar": "Vertical Bar Chart", "horizontal_bar": "Horizontal Bar Chart", "donut": "Donut Chart"}
AGGREGATES = {"count": "Count", "sum": "Sum", "average": "Average"}
GROUP_KINDS = ("picklist", "user", "lookup")
MAX_GROUPS = 20
BLANK = "(blank)"


def group_fields(spec: ListSpec) -> list[ListField]:
    return sorted((f for f in spec.fields.values() if f.kind in GROUP_KINDS), key=lambda f: f.label.lower())


def number_fields(spec: ListSpec) -> list[ListField]:
    return sorted((f for f in spec.fields.values() if f.numeric and not f.extra), key=lambda f: f.label.lower())


def charts_of(session: Session, user: User, object_key: str, view_key: str) -> list[ListViewChart]:
    q = model_select(ListViewChart).where(ListViewChart.object_type == object_key, ListViewChart.view_key == view_key,
                                          ListViewChart.owner_id == user.id).order_by(ListViewChart.id)
    return list(session.exec(q).all())


def check(spec: ListSpec, form: dict[str, str]) -> dict[str, str]:
    """The New Chart dialog's errors (Salesforce's wording); {} when the chart can be saved."""
    errors: dict[str, str] = {}
    name = form.get("name", "").strip()
    if not name:
        errors["name"] = "Complete this field."
    elif len(name) > 80:
        errors["name"] = "Chart Name: data value too large (max length=80)."
    if form.get("chart_type") not in CHART_TYPES:
        errors["chart_type"] = "Select a chart type."
    aggregate = form.get("aggregate")
    if aggregate not in AGGREGATES:
        errors["aggregate"] = "Select an aggregate type."
    elif aggregate != "count" and form.get("aggregate_field") not in {f.key for f in number_fields(spec)}:
        errors["aggregate_field"] = f"Select a field to {AGGREGATES[aggregate].lower()}."
    if form.get("group_field") not in {f.key for f in group_fields(spec)}:
        errors["group_field"] = "Select a grouping field."
    return errors


@dataclass
class RenderedChart:
    chart: ListViewChart
    svg: Markup
    bars: list[Bar]
    heading: str  # "Sum of Amount by Stage"


def _conditions(spec: ListSpec, params: ListParams, ctx: ViewContext, view: Any) -> list[Any]:
    """The list's own conditions: its view, its filters (the panel's, when valid) and its search."""
    conds: list[Any] = list(view.where(ctx)) if view.where else []
    for flt in params.filters:
        cond, _error = _condition(spec.fields[flt.field], flt)
        if cond is not None:
            conds.append(cond)
    if params.q:
        conds.append(or_(*(e.contains(params.q, autoescape=True) for e in spec.search)))
    return conds


def values(session: Session, spec: ListSpec, params: ListParams, ctx: ViewContext, chart: ListViewChart) -> list[Bar]:
    """(group value, aggregate) over every row of the list, largest first (ties by label)."""
    view = spec.view(params.view)
    model = spec.model
    group = spec.fields[chart.group_field]
    if chart.aggregate == "count":
        agg = func.count(model.id)
    else:
        expr = spec.fields[chart.aggregate_field].expr
        agg = func.coalesce(func.sum(expr), 0) if chart.aggregate == "sum" else func.avg(expr)
    query = select(group.expr.label("g"), agg.label("v")).select_from(model)
    for alias, onclause in spec.joins:
        query = query.outerjoin(alias, onclause)
    if view.recent:
        seen = select(RECENT.record_id).where(RECENT.user_id == ctx.user.id, RECENT.object_type == spec.object_key).distinct().subquery()
        query = query.where(model.id.in_(select(seen.c.record_id)))
    from .sharing import visible

    conds = _conditions(spec, params, ctx, view) + visible(session, ctx.user, spec.object_key, model)  # only rows the user may see
    if conds:
        query = query.where(and_(*conds))
    rows = session.execute(query.group_by(group.expr)).all()
    bars = [Bar(r.g if r.g not in (None, "") else BLANK, float(r.v or 0)) for r in rows]
    bars.sort(key=lambda b: (-b.value, b.label.lower()))
    return bars[:MAX_GROUPS]


def heading(spec: ListSpec, chart: ListViewChart) -> str:
    group = spec.fields[chart.group_field].label
    if chart.aggregate == "count":
        return f"Count of Records by {group}"
    return f"{AGGREGATES[chart.aggregate]} of {spec.fields[chart.aggregate_field].label} by {group}"


def render(session: Session, spec: ListSpec, params: ListParams, ctx: ViewContext, chart: ListViewChart) -> RenderedChart | None:
    if chart.group_field not in spec.fields or (chart.aggregate != "count" and chart.aggregate_field not in spec.fields):
        return None
    bars = values(session, spec, params, ctx, chart)
    # Each bar or slice links to the list narrowed to its group: focusable, named with its label and value.
    from .objects import OBJECTS

    path = OBJECTS[spec.object_key].path
    bars = [Bar(b.label, b.value, params.url(path, page=1, charts=True, filters=params.filters + (
        Filter(chart.group_field, "equals", "" if b.label == BLANK else b.label),))) for b in bars]
    money_field = chart.aggregate != "count" and spec.fields[chart.aggregate_field].kind == "money"
    fmt = (lambda v: money(v)) if money_field else (lambda v: f"{v:,.0f}" if chart.aggregate != "average" else f"{v:,.2f}")
    title = f"{chart.name}: {heading(spec, chart)}"
    cid = f"lvchart-{chart.id}"
    if chart.chart_type == "donut":
        svg = pie_chart(bars, title=title, fmt=fmt, chart_id=cid, legend_values=True, donut=True, size=150,
                        center=fmt(sum(b.value for b in bars)) if chart.aggregate != "average" else "")
    elif chart.chart_type == "horizontal_bar":
        svg = bar_chart(bars, title=title, fmt=fmt, chart_id=cid, width=320, label_width=120, tooltips=True)
    else:
        svg = column_chart(bars, title=title, fmt=fmt, chart_id=cid, width=320, height=220)
    return RenderedChart(chart, svg, bars, heading(spec, chart))


__all__ = ["AGGREGATES", "CHART_TYPES", "RenderedChart", "charts_of", "check", "group_fields", "heading", "number_fields", "render", "values"]
