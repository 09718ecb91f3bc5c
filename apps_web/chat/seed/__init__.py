"""The chat generator: the company's teams and channels, 1:1 and group chats, and about 2,000
messages per unit of scale about the CRM's deals and cases and the desk's incidents, plus
announcements and social noise; reactions, mentions, Activity, read state and working hours.

It runs after the apps it reads (``seed_after``), only reads their tables, and draws from its own
RNG namespaces, so installing chat never changes another app's data for a seed. Rows go straight
to the driver in bulk to keep template builds fast.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from ...world.seeding import SeedContext
from ..models import Activity, Conversation, File, Member, Mention, Message, Reaction, Team, WorkProfile
from .builder import ChatBuilder
from .content import Content
from .world import load_facts, load_people


def seed_chat(ctx: SeedContext) -> dict | None:
    people = load_people(ctx.session)
    if not people:
        return None
    b = ChatBuilder(ctx.clock.now, people, load_facts(ctx.session), ctx.random("chat.content"))
    content = Content(b)
    content.run(max(1, ctx.scale))
    content.files()
    rows = b.finish()
    rows["profiles"] = work_profiles(ctx, people)
    dbapi = ctx.session.connection().connection.driver_connection
    for model, key in ((Team, "teams"), (Conversation, "convs"), (Member, "members"), (Message, "messages"), (Mention, "mentions"),
                       (Reaction, "reactions"), (Activity, "activity"), (File, "files"), (WorkProfile, "profiles")):
        data = rows[key]
        if data:
            columns = list(data[0])
            sql = f'insert into {model.__tablename__} ({", ".join(columns)}) values ({", ".join("?" * len(columns))})'
            dbapi.executemany(sql, [tuple(_db(r[c]) for c in columns) for r in data])
    return rows


def work_profiles(ctx: SeedContext, people) -> list[dict]:  # noqa: ANN001
    """Working hours for everyone; a few people are out of office around the world's today."""
    rng = ctx.random("chat.presence")
    today = ctx.clock.today
    out = []
    away = set(rng.sample([p.id for p in people], min(4, len(people))))
    for p in people:
        start = rng.choice((7 * 60 + 30, 8 * 60, 8 * 60 + 30, 9 * 60, 9 * 60, 9 * 60 + 15, 10 * 60))
        row = {"id": len(out) + 1, "user_id": p.id, "start_minute": start, "end_minute": start + rng.choice((8, 8.5, 9)) * 60,
               "workdays": "01234", "lunch_minute": rng.choice((11 * 60 + 45, 12 * 60, 12 * 60 + 30, 13 * 60)),
               "focus_minute": None, "focus_length": 0, "ooo_start": None, "ooo_end": None, "status_message": ""}
        if rng.random() < 0.25:
            row["focus_minute"], row["focus_length"] = rng.choice((9 * 60 + 30, 10 * 60, 14 * 60, 15 * 60)), rng.choice((60, 90, 120))
        if p.id in away:
            first = today - timedelta(days=rng.randint(0, 3))
            last = today + timedelta(days=rng.randint(1, 9))
            row["ooo_start"], row["ooo_end"] = first, last
            row["status_message"] = rng.choice(("On vacation until {d}, back {n}.", "Out of office until {d}. For urgent matters contact my manager.",
                                                "Parental leave until {d}.", "At a conference until {d}, limited access to chat.")).format(
                d=f"{last:%b} {last.day}", n=f"{(last + timedelta(days=1)):%A}")
            row["end_minute"] = int(row["end_minute"])
        row["end_minute"] = int(row["end_minute"])
        out.append(row)
    return out


def _db(value):
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, date):
        return value.isoformat()
    return value


__all__ = ["seed_chat"]
