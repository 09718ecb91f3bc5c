"""The drive generator: every employee's "My files" with documents that match the company (account
plans for their CRM accounts, proposals whose amounts match the opportunities, pipeline and budget
workbooks, runbooks), team sites per department, and one data room for an acquisition's due
diligence with about 40 contracts written from clause variants (see ``contracts``).

It runs after the CRM (``seed_after``), only reads other apps' tables, draws from its own RNG
namespaces ("drive.*"), and inserts rows in bulk."""

from __future__ import annotations

from sqlalchemy import text

from ...world.seeding import SeedContext
from .builder import DriveBuilder
from .dataroom import build_dataroom
from .files import build_personal, build_team_sites
from .invoices import build_invoices


def _rows(session, sql: str) -> list[dict]:  # noqa: ANN001
    return [dict(r._mapping) for r in session.execute(text(sql))]


def seed_drive(ctx: SeedContext) -> DriveBuilder | None:
    people = _rows(ctx.session, "select id, username, first_name, last_name, title, department, role, manager_id from identity_user where active order by id")
    if not people:
        return None
    tables = {r["name"] for r in _rows(ctx.session, "select name from sqlite_master where type='table'")}
    crm: dict = {"accounts": {}, "opportunities": []}
    if "crm_opportunity" in tables:
        crm["accounts"] = {r["id"]: r for r in _rows(ctx.session, "select id, name, industry, billing_city as city, owner_id, annual_revenue, employees from crm_account order by id")}
        crm["opportunities"] = _rows(ctx.session, "select id, name, account_id, amount, stage, close_date, owner_id, probability from crm_opportunity order by id")
    b = DriveBuilder(ctx.clock.now)
    build_personal(b, ctx, people, crm)
    build_team_sites(b, ctx, people, crm)
    build_dataroom(b, ctx, people)
    build_invoices(b, ctx, people)  # last: its rows are appended after the rest
    b.insert(ctx.session)
    return b


__all__ = ["seed_drive"]
