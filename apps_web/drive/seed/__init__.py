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
from .tables import build_price_lists


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
    if "crm_opportunity_line_item" in tables:  # what the documents' tables are drawn from (tables.py)
        crm["line_items"] = _rows(ctx.session, "select l.opportunity_id, p.name as product, p.product_code as code, p.quantity_unit as unit, l.quantity, "
                                  "l.list_price, l.unit_price, l.discount, l.total_price from crm_opportunity_line_item l "
                                  "join crm_product p on p.id = l.product_id order by l.opportunity_id, l.sort_order, l.id")
        crm["contacts"] = _rows(ctx.session, "select id, account_id, first_name, last_name, title, email, phone from crm_contact order by id")
        crm["contact_roles"] = _rows(ctx.session, "select opportunity_id, contact_id, role, is_primary from crm_opportunity_contact_role order by id")
        crm["price_books"] = _rows(ctx.session, "select b.id as book, b.name as book_name, p.product_code as code, p.name as product, p.family, "
                                   "p.quantity_unit as unit, e.unit_price from crm_pricebook_entry e join crm_pricebook b on b.id = e.pricebook_id "
                                   "join crm_product p on p.id = e.product_id where e.is_active and p.is_active and b.is_active order by b.id, p.id")
    b = DriveBuilder(ctx.clock.now)
    build_personal(b, ctx, people, crm)
    build_team_sites(b, ctx, people, crm)
    build_dataroom(b, ctx, people)
    build_invoices(b, ctx, people)  # its rows are appended after the rest
    build_price_lists(b, ctx, crm)  # after them: the documents added with tables leave the other items' ids as they were
    b.insert(ctx.session)
    return b


__all__ = ["seed_drive"]
