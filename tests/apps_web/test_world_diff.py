"""diff_databases and the trigger change log agree exactly on hand-made worlds of several tables."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from apps_web.world import changelog, diff_databases


@pytest.fixture()
def pair(tmp_path: Path) -> tuple[Path, Path]:
    before = tmp_path / "before.sqlite"
    conn = sqlite3.connect(before)
    conn.executescript(
        """
        CREATE TABLE account (id INTEGER PRIMARY KEY, name TEXT, revenue REAL, owner INTEGER);
        CREATE TABLE contact (id INTEGER PRIMARY KEY, account_id INTEGER, email TEXT);
        CREATE TABLE role (opp INTEGER, contact INTEGER, role TEXT, PRIMARY KEY (opp, contact));
        CREATE TABLE tag (label TEXT);
        INSERT INTO account VALUES (1, 'Acme', 1000.5, 3), (2, 'Globex', NULL, 4), (3, 'Initech', 20, 3);
        INSERT INTO contact VALUES (10, 1, 'a@acme.test'), (11, 2, 'g@globex.test');
        INSERT INTO role VALUES (1, 10, 'Decision Maker'), (2, 11, 'Evaluator');
        INSERT INTO tag VALUES ('x'), ('y');
        """
    )
    changelog.install(conn)
    conn.commit()
    conn.close()
    after = tmp_path / "after.sqlite"
    shutil.copyfile(before, after)
    return before, after


def mutate(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        UPDATE account SET name = 'Acme Corp', revenue = 2000 WHERE id = 1;
        UPDATE account SET owner = 3 WHERE id = 3;              -- same value: not a change
        DELETE FROM contact WHERE id = 11;
        INSERT INTO contact VALUES (12, 1, 'new@acme.test');
        UPDATE role SET role = 'Economic Buyer' WHERE opp = 1 AND contact = 10;
        INSERT INTO role VALUES (3, 12, 'Other');
        DELETE FROM role WHERE opp = 3 AND contact = 12;        -- added then removed: no change
        INSERT INTO account VALUES (4, 'Temp', 1, 1);
        UPDATE account SET name = 'Temp2' WHERE id = 4;         -- added then updated: one addition
        UPDATE account SET owner = 9 WHERE id = 2;
        UPDATE account SET owner = 4 WHERE id = 2;              -- changed and changed back: no change
        INSERT INTO tag VALUES ('z');
        """
    )
    conn.commit()
    conn.close()


def test_diff_is_exact_across_tables(pair: tuple[Path, Path]) -> None:
    before, after = pair
    mutate(after)
    diff = diff_databases(before, after)
    assert sorted(diff.tables) == ["account", "contact", "role", "tag"]
    acc = diff.table("account")
    assert [u.key for u in acc.updated] == [1]
    assert acc.updated[0].fields == ["name", "revenue"]
    assert acc.updated[0].change("name") == ("Acme", "Acme Corp")
    assert [r["name"] for r in acc.added] == ["Temp2"] and acc.removed == []
    con = diff.table("contact")
    assert [r["id"] for r in con.added] == [12] and [r["id"] for r in con.removed] == [11] and con.updated == []
    role = diff.table("role")
    assert role.key_columns == ["opp", "contact"]
    assert [(u.key, u.fields) for u in role.updated] == [((1, 10), ["role"])]
    assert role.added == [] and role.removed == []
    assert diff.table("tag").added == [{"label": "z"}]
    assert diff.count == 6


def test_change_log_folds_to_the_same_diff(pair: tuple[Path, Path]) -> None:
    before, after = pair
    mutate(after)
    conn = sqlite3.connect(after)
    logged, seq = changelog.changes_since(conn, 0)
    conn.close()
    exact = diff_databases(before, after)
    assert seq > 0
    assert logged.model_dump() == exact.model_dump()


def test_change_log_since_a_step(pair: tuple[Path, Path]) -> None:
    _, after = pair
    conn = sqlite3.connect(after)
    conn.execute("UPDATE account SET name = 'Step1' WHERE id = 2")
    conn.commit()
    first, seq1 = changelog.changes_since(conn, 0)
    conn.execute("DELETE FROM contact WHERE id = 10")
    conn.commit()
    second, seq2 = changelog.changes_since(conn, seq1)
    nothing, seq3 = changelog.changes_since(conn, seq2)
    conn.close()
    assert first.summary() == ["account #2: name changed"]
    assert second.summary() == ["contact #10 removed"]
    assert nothing.is_empty and seq3 == seq2


def test_identical_worlds_have_no_diff(pair: tuple[Path, Path]) -> None:
    before, after = pair
    assert diff_databases(before, after).is_empty
