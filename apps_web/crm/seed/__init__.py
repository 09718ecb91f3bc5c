"""The CRM's world generator: a coherent company book of business from the world's seed.

Every object type draws from its own seeded RNG namespace, ids are assigned in generation order, and
each type is inserted with one flush, so the same seed gives a byte-identical database quickly.
"""

from __future__ import annotations

from ...world.seeding import SeedContext
from .accounts import seed_accounts, seed_contacts
from .activities import seed_activities, seed_notes
from .base import Built, load_users
from .email_templates import email_templates
from .dashboards import seed_dashboards
from .catalog import seed_catalog, seed_line_items, seed_loss_reasons, seed_quotes, seed_shipping, seed_territories
from .pipeline import seed_leads, seed_opportunities
from .service import case_number, seed_cases
from .texts import enrich_texts


def seed_crm(ctx: SeedContext) -> Built:
    built = Built(ctx=ctx, users=load_users(ctx))
    if not built.users:
        return built  # no people, no book of business
    accounts = seed_accounts(built)
    contacts = seed_contacts(built)
    opportunities, roles = seed_opportunities(built)
    leads = seed_leads(built, roles)  # converts some contacts: adjusts their dates before insert
    cases = seed_cases(built)
    activities = seed_activities(built)
    notes = seed_notes(built)
    # The sales process around the deals: new namespaces, new rows and new columns only.
    products, books, entries = seed_catalog(built)
    line_items = seed_line_items(built, entries)
    quotes, quote_lines, approvals = seed_quotes(built, line_items)
    territories, members = seed_territories(built)
    seed_shipping(built)
    seed_loss_reasons(built)
    enrich_texts(built, activities, notes, cases, line_items, products)
    # Foreign-key order: parents before children (ids are explicit, so no flush is needed in between).
    for batch in (territories, members, products, books, entries, accounts, contacts, opportunities, roles, leads, cases, activities,
                  notes, line_items, quotes, quote_lines, approvals, email_templates()):
        ctx.session.add_all(batch)
        ctx.session.flush()
    for batch in seed_dashboards(built):  # their own RNG namespace, new tables only
        ctx.session.add_all(batch)
        ctx.session.flush()
    from ..sharing import seed_rows, seed_running_users  # the org's sharing settings and field-level security: no random draw

    ctx.session.add_all(seed_rows())
    seed_running_users(ctx.session)
    ctx.session.flush()
    return built


__all__ = ["seed_crm", "case_number"]
