"""Mail world generator: every user has a mailbox, ~3,000 messages in threads tied to the CRM's
records, determinism, and the CRM's data untouched by installing mail."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from apps_web import registry
from apps_web.world import WorldStore
from apps_web.world.build import build_template
from apps_web.world.clock import DEFAULT_CLOCK

CRM_TABLES = ["crm_account", "crm_contact", "crm_lead", "crm_opportunity", "crm_opportunity_contact_role", "crm_case", "crm_activity", "crm_note"]


@pytest.fixture(scope="module")
def db(store: WorldStore):
    conn = sqlite3.connect(f"file:{store.template(0, 1)}?mode=ro", uri=True)
    yield conn
    conn.close()


def table_digest(path: Path, tables: list[str]) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        out = {}
        for t in tables:
            h = hashlib.sha256()
            for row in conn.execute(f"SELECT * FROM {t} ORDER BY id"):
                h.update(repr(row).encode())
            out[t] = h.hexdigest()
        return out


def test_every_user_has_a_mailbox_with_the_well_known_folders(db) -> None:
    users = db.execute("SELECT count(*) FROM identity_user").fetchone()[0]
    assert db.execute("SELECT count(*) FROM mail_mailbox WHERE kind = 'user'").fetchone()[0] == users
    bad = db.execute("SELECT count(*) FROM mail_mailbox b JOIN identity_user u ON u.id = b.user_id WHERE b.address != lower(u.email)").fetchone()[0]
    assert bad == 0
    kinds = db.execute("SELECT b.id, group_concat(f.kind) FROM mail_mailbox b JOIN mail_folder f ON f.mailbox_id = b.id GROUP BY b.id").fetchall()
    for _, ks in kinds:
        assert {"inbox", "drafts", "sent", "archive", "deleted", "junk"} <= set(ks.split(","))


def test_shared_mailboxes_members_and_threads(db) -> None:
    shared = dict(db.execute("SELECT substr(address, 1, instr(address, '@') - 1), id FROM mail_mailbox WHERE kind = 'shared' AND user_id IS NULL").fetchall())
    assert set(shared) == {"support", "sales", "billing"}
    # members by role: support for support@, the sales team for sales@, finance for billing@
    for local, roles in (("support", ("support_agent", "support_manager")), ("sales", ("sales_rep", "sales_manager")), ("billing", ("finance",))):
        members = {r for (r,) in db.execute("SELECT u.role FROM mail_mailbox_member m JOIN identity_user u ON u.id = m.user_id WHERE m.mailbox_id = ?",
                                              (shared[local],))}
        assert members == set(roles)
    # customers write to support@ about real CRM cases (the case number or subject in the subject); answers go out from support@
    rows = db.execute("SELECT m.subject, c.case_number, c.subject FROM mail_message m JOIN crm_case c ON c.id = m.crm_case_id "
                      "WHERE m.mailbox_id = ? AND m.from_address NOT LIKE 'support@%'", (shared["support"],)).fetchall()
    assert len(rows) >= 30 and all(num in subj or csubj in subj for subj, num, csubj in rows)
    assert db.execute("SELECT count(*) FROM mail_message m JOIN mail_folder f ON f.id = m.folder_id WHERE m.mailbox_id = ? AND f.kind = 'sent' "
                      "AND m.from_address LIKE 'support@%' AND m.in_reply_to IS NOT NULL", (shared["support"],)).fetchone()[0] >= 10
    # billing@: questions about invoices of won deals, most with the invoice attached
    inv = db.execute("SELECT count(*), sum(has_attachments) FROM mail_message m JOIN crm_opportunity o ON o.id = m.crm_opportunity_id "
                     "WHERE m.mailbox_id = ? AND o.stage = 'Closed Won' AND m.subject LIKE '%INV-%' AND m.from_address NOT LIKE 'billing@%'", (shared["billing"],)).fetchone()
    assert inv[0] >= 4 and inv[1] >= inv[0] // 2
    assert db.execute("SELECT count(*) FROM mail_message WHERE mailbox_id = ?", (shared["sales"],)).fetchone()[0] >= 5


def test_volume_threads_and_clock(db) -> None:
    n = db.execute("SELECT count(*) FROM mail_message").fetchone()[0]
    assert 2700 <= n <= 4200  # the desk appends IT staff, who get mailboxes too
    threads = db.execute("SELECT count(*) FROM (SELECT conversation_id FROM mail_message GROUP BY conversation_id HAVING count(DISTINCT internet_message_id) >= 3)").fetchone()[0]
    assert threads >= 100, "conversations of three messages or more"
    latest = db.execute("SELECT max(sent_at) FROM mail_message").fetchone()[0]
    assert datetime.fromisoformat(latest) < DEFAULT_CLOCK
    # a reply's quoted history holds its parent's body
    child, parent = db.execute(
        "SELECT c.body_html, p.unique_body_html FROM mail_message c JOIN mail_message p ON p.internet_message_id = c.in_reply_to "
        "AND p.mailbox_id = c.mailbox_id LIMIT 1").fetchone()
    assert parent in child
    # every copy's recipients name real addresses; internal recipients got a copy
    missing = db.execute("""
        SELECT count(*) FROM mail_recipient r JOIN mail_message m ON m.id = r.message_id JOIN mail_folder f ON f.id = m.folder_id AND f.kind = 'sent'
        JOIN mail_mailbox b ON b.address = r.address
        WHERE r.kind IN ('to', 'cc') AND NOT EXISTS (SELECT 1 FROM mail_message x WHERE x.mailbox_id = b.id AND x.internet_message_id = m.internet_message_id)
    """).fetchone()[0]
    assert missing == 0


def test_customer_mail_matches_the_crm_records(db) -> None:
    """Amounts and close dates quoted in deal threads are the opportunity's own."""
    rows = db.execute("""
        SELECT m.unique_body_html, o.amount, o.close_date FROM mail_message m JOIN crm_opportunity o ON o.id = m.crm_opportunity_id
        WHERE m.unique_body_html LIKE '%total%$%' AND m.from_address NOT LIKE '%finance%'
    """).fetchall()
    checked = 0
    for body, amount, _close in rows:
        figures = re.findall(r"\$([\d,]+) (?:for|quote)|total of \$([\d,]+)|comes to \$([\d,]+)|stays at \$([\d,]+)", body)
        for groups in figures:
            value = next(g for g in groups if g)
            assert float(value.replace(",", "")) == amount
            checked += 1
    assert checked >= 20
    dated = db.execute("""
        SELECT count(*), sum(instr(m.unique_body_html, rtrim(substr('JanFebMarAprMayJunJulAugSepOctNovDec', 3 * cast(substr(o.close_date, 6, 2) AS int) - 2, 3)))) > 0
        FROM mail_message m JOIN crm_opportunity o ON o.id = m.crm_opportunity_id WHERE m.unique_body_html LIKE '%signed by%'
    """).fetchone()
    assert dated[0] > 0
    senders = db.execute("SELECT count(DISTINCT m.from_address) FROM mail_message m JOIN crm_contact c ON lower(c.email) = m.from_address").fetchone()[0]
    assert senders >= 100, "customers (CRM contacts) write from their own addresses"


def test_text_is_varied(db) -> None:
    bodies = [r[0] for r in db.execute("SELECT DISTINCT unique_body_html FROM mail_message WHERE crm_account_id IS NOT NULL")]
    assert len(bodies) >= 800
    openings = {re.sub(r"<[^>]+>", " ", b).split(".")[0][:60] for b in bodies}
    assert len(openings) >= 300
    subjects = db.execute("SELECT count(DISTINCT subject) FROM mail_message").fetchone()[0]
    assert subjects >= 700


def test_mail_leaves_the_crm_untouched(tmp_path: Path, monkeypatch, store) -> None:  # noqa: ANN001
    """The same seed without the mail app: every CRM (and identity) row is identical (the same seed
    gives the same world: tests/apps_web/test_world_store.py)."""
    crm_only = tmp_path / "crm.sqlite"
    specs = tuple(s for s in registry.discover() if s.name != "mail")
    monkeypatch.setattr(registry, "discover", lambda: specs)
    build_template(crm_only, seed=0, scale=1, version="t")
    assert table_digest(crm_only, CRM_TABLES + ["identity_user"]) == table_digest(store.template(0, 1), CRM_TABLES + ["identity_user"])
    with sqlite3.connect(crm_only) as conn:
        assert conn.execute("SELECT count(*) FROM mail_message").fetchone()[0] == 0
