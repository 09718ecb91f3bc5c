"""Desk world generator: counts, coherence (priority matrix, dependent categories, assignees in their
groups, states that fit their fields), readable text, determinism, and that the CRM is untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlmodel import Session

from apps_web import registry
from apps_web.desk.choices import CATEGORIES, protocol_group
from apps_web.identity.seed import seed_users
from apps_web.world import WorldStore
from apps_web.world.build import company_for, create_schema
from apps_web.world.clock import DEFAULT_CLOCK, WorldClock
from apps_web.world.db import engine_for
from apps_web.world.seeding import SeedContext

@pytest.fixture(scope="module")
def db(store: WorldStore):
    conn = sqlite3.connect(f"file:{store.template(0, 1)}?mode=ro", uri=True)
    yield conn
    conn.close()


def one(conn, sql: str, *args):
    return conn.execute(sql, args).fetchone()[0]


def test_counts_at_scale_1(db) -> None:
    assert one(db, "SELECT count(*) FROM desk_incident") == 1000
    assert 500 <= one(db, "SELECT count(*) FROM desk_ci") <= 700
    assert 110 <= one(db, "SELECT count(*) FROM desk_kb_article") <= 140
    assert one(db, "SELECT count(*) FROM desk_kb_article WHERE knowledge_base = 'Company Protocols'") >= 10
    assert one(db, "SELECT count(*) FROM desk_req_item") == one(db, "SELECT count(*) FROM desk_request") >= 100
    assert one(db, "SELECT count(*) FROM desk_approval WHERE state = 'requested'") >= 1
    assert one(db, "SELECT count(*) FROM desk_incident WHERE state IN ('New', 'In Progress', 'On Hold')") >= 50


def test_numbers_follow_opening_order_over_six_months(db) -> None:
    rows = db.execute("SELECT number, opened_at FROM desk_incident ORDER BY id").fetchall()
    assert rows[0][0] == "INC0010001" and rows[-1][0] == "INC0011000"
    assert [r[1] for r in rows] == sorted(r[1] for r in rows)
    first, last = rows[0][1][:10], rows[-1][1]
    assert first >= "2025-09-10" and last <= str(DEFAULT_CLOCK)


def test_priority_matrix_and_dependent_categories(db) -> None:
    for impact, urgency, priority, cat, sub in db.execute("SELECT impact, urgency, priority, category, subcategory FROM desk_incident"):
        assert priority == impact + urgency - 1
        assert sub in CATEGORIES[cat]


def test_assignees_belong_to_their_group_and_states_fit(db) -> None:
    bad = one(db, """SELECT count(*) FROM desk_incident i WHERE assigned_to_id IS NOT NULL AND NOT EXISTS
                     (SELECT 1 FROM desk_group_member m WHERE m.group_id = i.assignment_group_id AND m.user_id = i.assigned_to_id)""")
    assert bad == 0
    assert one(db, "SELECT count(*) FROM desk_incident WHERE state IN ('Resolved', 'Closed') AND (close_code IS NULL OR close_notes IS NULL OR resolved_at IS NULL)") == 0
    assert one(db, "SELECT count(*) FROM desk_incident WHERE state = 'On Hold' AND on_hold_reason IS NULL") == 0
    assert one(db, "SELECT count(*) FROM desk_incident WHERE state != 'On Hold' AND on_hold_reason IS NOT NULL") == 0
    assert one(db, "SELECT count(*) FROM desk_incident WHERE state = 'Closed' AND closed_at < resolved_at") == 0


def test_most_incidents_follow_the_assignment_protocol(db) -> None:
    groups = dict(db.execute("SELECT id, name FROM desk_group"))
    rows = db.execute("SELECT category, subcategory, assignment_group_id FROM desk_incident WHERE assignment_group_id IS NOT NULL").fetchall()
    follow = sum(groups[g] == protocol_group(c, s) for c, s, g in rows)
    assert follow / len(rows) > 0.85


def test_text_is_varied_and_tied_to_the_records(db) -> None:
    descriptions = [r[0] for r in db.execute("SELECT description FROM desk_incident")]
    assert len(set(descriptions)) > 990  # nearly every ticket reads differently
    shorts = [r[0] for r in db.execute("SELECT short_description FROM desk_incident")]
    assert len(set(shorts)) > 300
    # A hardware ticket names the caller's own laptop.
    row = db.execute("""SELECT i.short_description, i.description, c.name FROM desk_incident i JOIN desk_ci c ON c.id = i.ci_id
                        WHERE i.subcategory = 'Laptop' AND c.assigned_to_id = i.caller_id LIMIT 1""").fetchone()
    assert row and row[2] in row[0] + row[1]
    notes = [r[0] for r in db.execute("SELECT body FROM desk_journal")]
    assert len(notes) > 2000 and len(set(notes)) > 800
    assert one(db, "SELECT count(*) FROM desk_incident WHERE account_id IS NOT NULL") >= 20


def test_agents_are_appended_after_the_companys_people(db) -> None:
    it = db.execute("SELECT min(id), max(id), count(*) FROM identity_user WHERE department = 'IT' AND title NOT IN ('Systems Administrator', 'IT Specialist')").fetchone()
    others = one(db, "SELECT max(id) FROM identity_user WHERE NOT (department = 'IT' AND title NOT IN ('Systems Administrator', 'IT Specialist'))")
    assert it[2] >= 20 and it[0] > others


def _tables(path: Path, tables: list[str]) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
    finally:
        conn.close()


def test_the_desk_changes_no_crm_row(tmp_path: Path, db, store: WorldStore) -> None:
    """A world built without the desk has exactly the CRM rows and people of one built with it."""
    path = tmp_path / "crm-only.db"
    engine = engine_for(path)
    create_schema(engine)
    company, domain = company_for(0)
    with Session(engine) as session:
        ctx = SeedContext(session=session, seed=0, scale=1, clock=WorldClock(DEFAULT_CLOCK), company=company, domain=domain)
        seed_users(ctx)
        session.flush()
        specs = registry.seed_order(registry.discover())
        for hook in ("seed", "seed_last"):  # as the world build runs them: every generator, then the appended rows
            for spec in specs:
                if getattr(spec, hook) is not None and spec.name != "desk":
                    getattr(spec, hook)(ctx)
                    session.flush()
        session.commit()
    engine.dispose()
    crm_tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'crm\\_%' ESCAPE '\\'")]
    assert "crm_account" in crm_tables
    without = _tables(path, crm_tables + ["identity_user"])
    with_desk = _tables(Path(store.template(0, 1)), crm_tables + ["identity_user"])
    for table in crm_tables:
        assert without[table] == with_desk[table], table
    people = without["identity_user"]
    assert with_desk["identity_user"][: len(people)] == people  # the desk only appends its agents
    assert len(with_desk["identity_user"]) > len(people)
