"""The mail generator: every employee's mailbox, and about 3,000 messages per unit of scale in threads
tied to the CRM's records (customers writing about their deals and cases, internal pipeline and
approval threads), plus IT notices, company announcements and newsletters.

It runs after the CRM (``seed_after``), only reads the CRM's tables, and draws from its own RNG
namespaces, so installing mail never changes another app's data for a seed. Rows are inserted in
bulk (Core inserts with explicit ids) to keep template builds fast.
"""

from __future__ import annotations

from datetime import datetime

from ...world.seeding import SeedContext
from ..models import Attachment, Folder, Mailbox, Message, Recipient
from .builder import MailBuilder
from .threads import (announcements, case_threads, deal_threads, headsup_threads, internal_threads, invoice_threads, it_notices,
                      newsletters, recap_threads, team_updates)
from ..calendar.seed import seed_calendar
from .shared import seed_shared
from .world import load_crm, load_people


def seed_mail(ctx: SeedContext) -> MailBuilder | None:
    people = load_people(ctx.session, ctx.company)
    if not people:
        return None
    crm = load_crm(ctx.session)
    b = MailBuilder(ctx, people, crm)
    deal_threads(b)
    case_threads(b)
    recap_threads(b)
    internal_threads(b)
    headsup_threads(b)
    team_updates(b)
    invoice_threads(b)
    it_notices(b)
    announcements(b)
    newsletters(b)
    b.finish()
    # Straight to the driver: SQLAlchemy's per-row processing would triple the generator's time.
    dbapi = ctx.session.connection().connection.driver_connection
    for model, rows in ((Mailbox, b.mailboxes), (Folder, b.folders), (Message, b.messages), (Recipient, b.recipients), (Attachment, b.attachments)):
        if rows:
            columns = list(rows[0])
            sql = f'insert into {model.__tablename__} ({", ".join(columns)}) values ({", ".join("?" * len(columns))})'
            dbapi.executemany(sql, [tuple(_db(r[c]) for c in columns) for r in rows])
    seed_calendar(ctx, people, crm)  # appends its rows after the messages: their ids never move
    seed_shared(ctx, people, crm)  # support@, sales@, billing@: appended after everything above
    return b


def _db(value):
    # The text form SQLAlchemy gives datetimes in SQLite, so the ORM reads these rows back unchanged.
    return value.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(value, datetime) else value


__all__ = ["seed_mail"]
