"""The drive's generator: deterministic, fast, tied to the CRM, and a data room whose ground truth
(``drive_contract``) matches what the contracts say in the numbered sections it names."""

from __future__ import annotations

import re
import sqlite3
import time

from sqlmodel import Session

from apps_web.drive.seed.contracts import PLAN
from apps_web.world import WorldStore
from apps_web.world.seeding import SeedContext


def test_deterministic_fast_and_consistent(store: WorldStore, tmp_path) -> None:
    a, b = store.create(seed=0), store.create(seed=0)
    dump = "SELECT kind, name, parent_id, text FROM drive_item ORDER BY id"
    assert a.connect().execute(dump).fetchall() == b.connect().execute(dump).fetchall()
    other = store.create(seed=1)
    assert other.connect().execute("SELECT text FROM drive_item WHERE kind = 'document' ORDER BY id LIMIT 60").fetchall() != \
        a.connect().execute("SELECT text FROM drive_item WHERE kind = 'document' ORDER BY id LIMIT 60").fetchall()
    # The Headcount sheet: counts from the people of each world, the heads and the plan vary with the seed.
    heads = ("SELECT c.ref, c.input FROM drive_cell c JOIN drive_sheet s ON s.id = c.sheet_id WHERE s.name = 'Headcount' "
             "AND c.row BETWEEN 2 AND 6 AND c.col IN (1, 2, 4, 5) ORDER BY c.row, c.col")
    for w in (a, other):
        with w.connect() as conn:
            got = dict(conn.execute(heads).fetchall())
            people = dict(conn.execute("SELECT department, count(*) FROM identity_user WHERE active GROUP BY department").fetchall())
        assert {got[f"A{r}"]: int(got[f"B{r}"]) for r in range(2, 7)} == people
    assert a.connect().execute(heads).fetchall() != other.connect().execute(heads).fetchall()
    # The generators run again (as the build does, before the rows other apps append last): the drive's
    # rows are the same, and its generator alone costs well under a second of CPU.
    from apps_web import registry
    from apps_web.identity.seed import seed_users
    from apps_web.world.build import company_for, create_schema
    from apps_web.world.clock import DEFAULT_CLOCK, WorldClock
    from apps_web.world.db import engine_for

    path = tmp_path / "w.sqlite"
    engine = engine_for(path)
    create_schema(engine)
    company, domain = company_for(0)
    drive_cpu = None
    with Session(engine) as session:
        ctx = SeedContext(session=session, seed=0, scale=1, clock=WorldClock(DEFAULT_CLOCK), company=company, domain=domain)
        seed_users(ctx)
        session.flush()
        for spec in registry.seed_order(registry.discover()):
            if spec.seed is not None:
                t0 = time.process_time()
                spec.seed(ctx)
                session.flush()
                if spec.name == "drive":
                    drive_cpu = time.process_time() - t0
        session.commit()
    engine.dispose()
    assert drive_cpu is not None and drive_cpu < 1.0
    with sqlite3.connect(path) as conn:
        assert conn.execute(dump).fetchall() == a.connect().execute(dump).fetchall()


def test_documents_match_the_crm_and_the_data_room_ground_truth(store: WorldStore) -> None:
    w = store.create(seed=2)
    with w.connect() as conn:
        # Proposals state their opportunity's amount.
        for text, amount in conn.execute("SELECT i.text, o.amount FROM drive_item i JOIN crm_opportunity o ON o.id = i.crm_opportunity_id WHERE i.name LIKE 'Proposal - %'"):
            assert f"${amount:,.0f}" in text
        # About 40 contracts in the five folders, varied, each clause where the ground truth says.
        rows = conn.execute("SELECT item_id, contract_type, coc, coc_section, assignment, assignment_section, liability, liability_section, "
                            "governing_law, governing_law_section FROM drive_contract").fetchall()
        assert len(rows) == sum(n for *_x, n in PLAN)
        assert {r[2] for r in rows} == {"none", "notice", "consent", "termination"} and {"uncapped", "capped"} <= {r[6] for r in rows}
        texts = set()
        for item, _type, coc, coc_sec, assign, assign_sec, liab, liab_sec, law, law_sec in rows:
            blocks = {m.group(1): t for (t,) in conn.execute("SELECT text FROM drive_block WHERE item_id = ?", (item,))
                      if (m := re.match(r"(\d+\.\d+) ", t))}
            if coc == "termination":
                assert "terminat" in blocks[coc_sec] and "Change of Control" in blocks[coc_sec]
            elif coc == "none":
                assert coc_sec == "" and not any("Change of Control" in t for t in blocks.values())
            assert law.split(" ")[0] in blocks[law_sec]
            if assign == "prohibited":
                assert "void" in blocks[assign_sec]
            if liab == "uncapped":
                assert "limit" in blocks[liab_sec].lower() and "exceed" not in blocks[liab_sec]
            elif liab == "capped":
                assert "exceed" in blocks[liab_sec].lower() or "limited to" in blocks[liab_sec]
            texts.add(conn.execute("SELECT text FROM drive_item WHERE id = ?", (item,)).fetchone()[0])
        assert len(texts) == len(rows)
        # The index lists every contract; the data room is restricted, with per-group permissions.
        assert conn.execute("SELECT count(*) FROM drive_cell c JOIN drive_item i ON i.id = c.item_id WHERE i.name = 'Contract Index' AND c.col = 2 AND c.row > 1").fetchone()[0] == len(rows)
        assert conn.execute("SELECT count(*) FROM drive_share s JOIN drive_site d ON d.root_id = s.item_id WHERE d.kind = 'dataroom' AND s.group_name = 'Finance'").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM drive_activity WHERE action = 'viewed'").fetchone()[0] >= 20
