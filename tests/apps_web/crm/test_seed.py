"""CRM world generator: counts that scale, coherent relations, dates against the clock, determinism."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime
from pathlib import Path

import pytest

from apps_web.crm.picklists import (
    CASE_STATUSES, CLOSED_STAGES, LEAD_STATUSES, OPEN_STAGES, STAGE_FORECAST, STAGE_PROBABILITY,
)
from apps_web.world import WorldStore
from apps_web.world.clock import DEFAULT_CLOCK

NOW = DEFAULT_CLOCK
CRM_TABLES = ["crm_account", "crm_contact", "crm_lead", "crm_opportunity", "crm_opportunity_contact_role", "crm_case", "crm_activity", "crm_note"]
MINIMUM = {"crm_account": 150, "crm_contact": 500, "crm_lead": 200, "crm_opportunity": 250, "crm_case": 300, "crm_activity": 1000, "crm_note": 100}


@pytest.fixture(scope="module")
def db(store: WorldStore):
    conn = sqlite3.connect(f"file:{store.template(0, 1)}?mode=ro", uri=True)
    yield conn
    conn.close()


def count(conn: sqlite3.Connection, table: str, where: str = "1") -> int:
    return conn.execute(f"SELECT count(*) FROM {table} WHERE {where}").fetchone()[0]


def ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def test_counts_at_scale_1(db) -> None:
    for table, minimum in MINIMUM.items():
        assert count(db, table) >= minimum, table


def test_counts_scale_with_scale(store: WorldStore, db) -> None:
    with sqlite3.connect(f"file:{store.template(0, 2)}?mode=ro", uri=True) as big:
        for table in MINIMUM:
            ratio = count(big, table) / count(db, table)
            assert 1.8 <= ratio <= 2.2, (table, ratio)


def test_owners_are_people_in_the_right_roles(db) -> None:
    role = dict(db.execute("SELECT id, role FROM identity_user").fetchall())
    owners = [r for (r,) in db.execute("SELECT owner_id FROM crm_account")]
    assert owners and all(role[o] == "sales_rep" for o in owners)
    case_roles = {role[o] for (o,) in db.execute("SELECT owner_id FROM crm_case")}
    assert case_roles <= {"support_agent", "support_manager"} and "support_agent" in case_roles
    assert len({o for o in owners}) >= 10  # the book is spread over the team


def test_accounts_look_real(db) -> None:
    rows = db.execute("SELECT name, website, phone, billing_city, employees, annual_revenue, parent_id, type FROM crm_account").fetchall()
    assert all(r[1].startswith("www.") and r[2] and r[3] for r in rows)
    assert sum(1 for r in rows if r[6]) >= 8  # subsidiaries of parent accounts
    # Revenue follows head count: the 20 biggest employers out-earn the 20 smallest on average.
    by_size = sorted(rows, key=lambda r: r[4])
    assert sum(r[5] for r in by_size[-20:]) > 10 * sum(r[5] for r in by_size[:20])
    # A few same-name twins, told apart by their city.
    twins = db.execute("SELECT name, count(*), count(DISTINCT billing_city) FROM crm_account GROUP BY name HAVING count(*) > 1").fetchall()
    assert len(twins) >= 2 and all(n == cities for _, n, cities in twins)
    assert {r[7] for r in rows} >= {"Customer - Direct", "Prospect", "Customer - Channel"}


def test_contacts_belong_to_existing_accounts_at_their_domain(db) -> None:
    assert count(db, "crm_contact", "account_id IS NULL OR account_id NOT IN (SELECT id FROM crm_account)") == 0
    per_account = [n for (n,) in db.execute("SELECT count(*) FROM crm_contact GROUP BY account_id")]
    assert len(per_account) == count(db, "crm_account") and min(per_account) >= 3 and max(per_account) <= 5
    rows = db.execute("SELECT c.email, a.website FROM crm_contact c JOIN crm_account a ON a.id = c.account_id").fetchall()
    assert all(email.endswith("@" + site.removeprefix("www.")) for email, site in rows)
    assert count(db, "crm_contact") == len({e for e, _ in rows})  # unique emails
    # Reports-to stays inside the account.
    assert count(db, "crm_contact c JOIN crm_contact b ON b.id = c.reports_to_id", "b.account_id != c.account_id") == 0
    assert count(db, "crm_contact", "reports_to_id IS NOT NULL") > 200


def test_opportunities_are_coherent(db) -> None:
    rows = db.execute("SELECT stage, probability, forecast_category, close_date, created_at, amount, account_id, name FROM crm_opportunity").fetchall()
    today = NOW.date()
    for stage, prob, forecast, close, created, amount, account_id, name in rows:
        assert prob == STAGE_PROBABILITY[stage] and forecast == STAGE_FORECAST[stage]
        assert amount > 0 and account_id and " - " in name
        assert ts(created) < NOW and ts(created).date() <= date.fromisoformat(close) or stage in OPEN_STAGES
        if stage in CLOSED_STAGES:
            assert date.fromisoformat(close) < today
    stages = {r[0] for r in rows}
    assert stages == set(OPEN_STAGES) | set(CLOSED_STAGES)
    open_close = [date.fromisoformat(r[3]) for r in rows if r[0] in OPEN_STAGES]
    overdue = sum(1 for d in open_close if d < today)
    assert 0 < overdue < len(open_close) / 3  # mostly ahead, some overdue
    assert count(db, "crm_opportunity o JOIN crm_account a ON a.id = o.account_id", "a.name != substr(o.name, 1, length(a.name))") == 0


def test_contact_roles_have_one_primary_from_the_same_account(db) -> None:
    primaries = db.execute("SELECT opportunity_id, sum(is_primary) FROM crm_opportunity_contact_role GROUP BY opportunity_id").fetchall()
    assert primaries and all(n == 1 for _, n in primaries)
    assert count(db, "crm_opportunity_contact_role r JOIN crm_opportunity o ON o.id = r.opportunity_id JOIN crm_contact c ON c.id = r.contact_id", "c.account_id != o.account_id") == 0


def test_leads_spread_and_converted_ones_link_to_what_they_became(db) -> None:
    statuses = dict(db.execute("SELECT status, count(*) FROM crm_lead GROUP BY status").fetchall())
    assert set(statuses) == set(LEAD_STATUSES) and min(statuses.values()) >= 20
    rows = db.execute(
        "SELECT l.converted_account_id, l.converted_contact_id, l.converted_opportunity_id, l.converted_at, l.created_at, c.account_id, c.email, l.email, o.account_id"
        " FROM crm_lead l JOIN crm_contact c ON c.id = l.converted_contact_id LEFT JOIN crm_opportunity o ON o.id = l.converted_opportunity_id"
        " WHERE l.status = 'Closed - Converted'"
    ).fetchall()
    assert len(rows) == statuses["Closed - Converted"]
    for acct, _contact, opp, converted_at, created_at, contact_acct, c_email, l_email, opp_acct in rows:
        assert acct == contact_acct and c_email == l_email
        assert opp is None or opp_acct == acct
        assert ts(created_at) < ts(converted_at) < NOW
    assert sum(1 for r in rows if r[2]) > len(rows) / 2
    assert count(db, "crm_lead", "status != 'Closed - Converted' AND (converted_at IS NOT NULL OR converted_contact_id IS NOT NULL)") == 0
    # Open leads are companies that are not accounts yet.
    assert count(db, "crm_lead", "status != 'Closed - Converted' AND company IN (SELECT name FROM crm_account)") == 0


def test_cases_are_numbered_in_order_and_closed_ones_have_closed_at(db) -> None:
    rows = db.execute("SELECT case_number, status, created_at, closed_at, contact_id, account_id FROM crm_case ORDER BY id").fetchall()
    assert rows[0][0] == "00001001" and [r[0] for r in rows] == [f"{1001 + i:08d}" for i in range(len(rows))]
    assert [r[2] for r in rows] == sorted(r[2] for r in rows)
    for number, status, created, closed, _, _ in rows:
        assert status in CASE_STATUSES
        assert (closed is not None) == (status == "Closed"), number
        if closed:
            assert ts(created) < ts(closed) < NOW
    assert 0.3 < sum(1 for r in rows if r[1] == "Closed") / len(rows) < 0.85
    assert count(db, "crm_case c JOIN crm_contact p ON p.id = c.contact_id", "p.account_id != c.account_id") == 0


def test_activities_relate_to_existing_records_around_the_clock(db) -> None:
    tables = {"account": "crm_account", "contact": "crm_contact", "lead": "crm_lead", "opportunity": "crm_opportunity", "case": "crm_case"}
    kinds = dict(db.execute("SELECT related_type, count(*) FROM crm_activity GROUP BY related_type").fetchall())
    assert set(kinds) == set(tables)
    for kind, table in tables.items():
        assert count(db, "crm_activity", f"related_type = '{kind}' AND related_id NOT IN (SELECT id FROM {table})") == 0
        assert count(db, "crm_note", f"related_type = '{kind}' AND related_id NOT IN (SELECT id FROM {table})") == 0
    assert count(db, "crm_activity", "status = 'Completed' AND completed_at IS NULL") == 0
    assert count(db, "crm_activity", "status != 'Completed' AND completed_at IS NOT NULL") == 0
    assert count(db, "crm_activity", f"completed_at > '{NOW}'") == 0
    today = NOW.date().isoformat()
    assert count(db, "crm_activity", f"kind = 'task' AND status != 'Completed' AND due_date < '{today}'") > 20  # overdue work
    assert count(db, "crm_activity", f"due_date > '{today}'") > 100  # planned work
    assert count(db, "crm_activity", "kind = 'meeting' AND (start_at IS NULL OR end_at <= start_at)") == 0
    assert {k for (k,) in db.execute("SELECT DISTINCT kind FROM crm_activity")} == {"task", "call", "meeting"}


def test_every_timestamp_is_in_the_past(db) -> None:
    for table in CRM_TABLES:
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] in ("created_at", "updated_at")]
        for col in cols:
            assert count(db, table, f"{col} IS NULL OR {col} > '{NOW}'") == 0, (table, col)
        if cols == ["created_at", "updated_at"]:
            assert count(db, table, "updated_at < created_at") == 0, table


def test_foreign_keys_hold(db) -> None:
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []


def _rows(path: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(path) as conn:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}


def test_other_seed_other_data(store: WorldStore) -> None:
    """Another seed draws other companies and people (the same seed gives the same bytes, across
    processes and hash seeds: tests/apps_web/test_world_store.py)."""
    rows_a = _rows(store.template(0, 1))
    other = _rows(store.template(1, 1))
    for table in ("crm_account", "crm_contact", "crm_opportunity", "crm_case"):
        assert rows_a[table] != other[table], table
    names_a = {r[3] for r in rows_a["crm_account"]}
    assert len(names_a & {r[3] for r in other["crm_account"]}) < len(names_a) / 2
