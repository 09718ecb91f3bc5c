"""Seeded dashboards: the folders and dashboards a sales and service org already has (new tables only,
from their own RNG namespace, so the rest of the world is the same as before they existed)."""

from __future__ import annotations

from datetime import timedelta

from ...identity.models import Role
from ..models import Dashboard, DashboardComponent, DashboardFilter, DashboardFolder
from .base import Built


def seed_dashboards(built: Built) -> list:
    rng = built.ctx.random("crm.dashboards")
    managers = built.role(Role.sales_manager) or built.sales_reps
    support = built.support_managers
    marketing = built.role(Role.marketing) or built.role(Role.admin) or managers
    sales_head, service_head, marketer = rng.choice(managers), rng.choice(support), rng.choice(marketing)

    def when() -> dict:
        at = (built.now - timedelta(days=rng.randint(20, 200), minutes=rng.randint(0, 600))).replace(second=0, microsecond=0)
        return {"created_at": at, "updated_at": at}

    folders = [
        DashboardFolder(id=1, name="Sales Leadership", owner_id=sales_head.id, access="Viewer", created_by_id=sales_head.id, **when()),
        DashboardFolder(id=2, name="Service Team", owner_id=service_head.id, access="Editor", created_by_id=service_head.id, **when()),
    ]
    target = rng.choice([1_500_000, 2_000_000, 2_500_000, 3_000_000])
    dashboards = [
        Dashboard(id=1, name="Sales Pipeline", description="Open pipeline, this quarter's wins and the reps behind them.",
                  folder="Sales Leadership", folder_id=1, owner_id=sales_head.id, created_by_id=sales_head.id, **when()),
        Dashboard(id=2, name="Service Overview", description="Case volume by status, priority and channel.",
                  folder="Service Team", folder_id=2, owner_id=service_head.id, created_by_id=service_head.id, **when()),
        Dashboard(id=3, name="Lead Generation", description="Open leads by source and rating.",
                  folder="Public Dashboards", owner_id=marketer.id, created_by_id=marketer.id, **when()),
    ]
    P, W, C, L = "pipeline-by-stage-and-owner", "deals-won-this-quarter", "cases-by-status-and-priority", "open-leads-by-source"
    specs = [
        (1, "Open Pipeline by Stage", P, "column", "stage", "amount:sum", None, None),
        (1, "Open Pipeline", P, "metric", None, "amount:sum", None, None),
        (1, "Closed Won This Quarter", W, "gauge", None, "amount:sum", None, (0, target * 0.4, target * 0.75, target)),
        (1, "Pipeline by Territory", P, "bar", "territory", "amount:sum", None, None),
        (1, "Top Reps by Open Pipeline", P, "table", "owner", "amount:sum", 5, None),
        (1, "Won Deals by Type", W, "donut", "type", "count", None, None),
        (2, "Cases by Status", C, "donut", "status", "count", None, None),
        (2, "Cases by Priority", C, "bar", "priority", "count", None, None),
        (2, "Total Cases", C, "metric", None, "count", None, None),
        (2, "Cases by Origin", C, "table", "origin", "count", 5, None),
        (3, "Open Leads by Source", L, "column", "source", "count", None, None),
        (3, "Open Leads by Rating", L, "donut", "rating", "count", None, None),
        (3, "Open Leads", L, "metric", None, "count", None, None),
    ]
    comps = []
    positions: dict[int, int] = {}
    for i, (dash, title, src, display, group, measure, rows, gauge) in enumerate(specs, start=1):
        positions[dash] = positions.get(dash, 0) + 1
        lo, b1, b2, hi = gauge or (None, None, None, None)
        comps.append(DashboardComponent(id=i, dashboard_id=dash, position=positions[dash], title=title, standard_report=src, display=display,
                                        group_by=group, measure=measure, max_rows=rows, min_value=lo, breakpoint1=b1, breakpoint2=b2, max_value=hi))
    filters = [
        DashboardFilter(id=1, dashboard_id=1, position=1, field="owner", label="Owner"),
        DashboardFilter(id=2, dashboard_id=1, position=2, field="territory", label="Territory"),
        DashboardFilter(id=3, dashboard_id=1, position=3, field="close_date", label="Close Date"),
        DashboardFilter(id=4, dashboard_id=2, position=1, field="owner", label="Owner"),
    ]
    return [folders, dashboards, comps, filters]
