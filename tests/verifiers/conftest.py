"""Hand-made world pairs: a small SQLite world, a mutated copy, and the diff between them."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

# tests/ has no __init__.py, so pytest puts tests/ on sys.path and tests/verifiers/ would shadow the
# real package as a namespace package under a plain `pytest` run; put the project root first.
ROOT = Path(__file__).resolve().parents[2]
if sys.path[:1] != [str(ROOT)]:
    sys.path.insert(0, str(ROOT))
if getattr(sys.modules.get("verifiers"), "__file__", "") is None:
    del sys.modules["verifiers"]

from apps_web.world import diff_databases  # noqa: E402
from verifiers import VerifyContext  # noqa: E402

SCHEMA = """
CREATE TABLE crm_account (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, industry TEXT, revenue REAL, updated_at TEXT
);
CREATE TABLE crm_opportunity (
    id INTEGER PRIMARY KEY, account_id INTEGER, name TEXT, stage TEXT, amount REAL,
    close_date TEXT, is_closed INTEGER DEFAULT 0, updated_at TEXT
);
CREATE TABLE crm_case (
    id INTEGER PRIMARY KEY, account_id INTEGER, subject TEXT, status TEXT, closed_at TEXT
);
CREATE TABLE team_member (
    team_id INTEGER, user_id INTEGER, role TEXT, PRIMARY KEY (team_id, user_id)
);
CREATE TABLE recent_view (id INTEGER PRIMARY KEY, record TEXT, viewed_at TEXT);
"""

SEED = """
INSERT INTO crm_account VALUES (1, 'Acme Corp', 'Manufacturing', 1250000.0, '2026-03-01 09:00:00.000000');
INSERT INTO crm_account VALUES (2, 'Globex', 'Energy', 830000.5, '2026-03-01 09:00:00.000000');
INSERT INTO crm_account VALUES (3, 'Initech', 'Software', NULL, '2026-03-01 09:00:00.000000');
INSERT INTO crm_opportunity VALUES (10, 1, 'Acme renewal', 'Negotiation', 50000.0, '2026-03-31', 0, '2026-03-01 09:00:00.000000');
INSERT INTO crm_opportunity VALUES (11, 1, 'Acme expansion', 'Prospecting', 12000.0, '2026-04-15', 0, '2026-03-01 09:00:00.000000');
INSERT INTO crm_opportunity VALUES (12, 2, 'Globex pilot', 'Qualification', 8000.0, '2026-05-01', 0, '2026-03-01 09:00:00.000000');
INSERT INTO crm_case VALUES (100, 1, 'Broken widget', 'Open', NULL);
INSERT INTO crm_case VALUES (101, 1, 'Late delivery', 'Escalated', NULL);
INSERT INTO crm_case VALUES (102, 2, 'Invoice question', 'Closed', '2026-02-20 10:00:00.000000');
INSERT INTO team_member VALUES (1, 7, 'owner');
INSERT INTO team_member VALUES (1, 8, 'member');
INSERT INTO team_member VALUES (2, 7, 'member');
"""


def build_template(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    conn.executescript(SCHEMA + SEED)
    conn.commit()
    conn.close()
    return path


class WorldPair:
    """A start world and an end world (a copy to mutate); ``context()`` diffs them."""

    def __init__(self, root: Path, template: Path) -> None:
        self.start = root / "start.sqlite"
        self.end = root / "end.sqlite"
        shutil.copyfile(template, self.start)
        shutil.copyfile(template, self.end)

    def run(self, *statements: str) -> WorldPair:
        conn = sqlite3.connect(self.end)
        conn.execute("PRAGMA synchronous=OFF")
        for sql in statements:
            conn.execute(sql)
        conn.commit()
        conn.close()
        return self

    def context(self, **fields: Any) -> VerifyContext:
        return VerifyContext(start_db=self.start, end_db=self.end, diff=diff_databases(self.start, self.end), **fields)


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_template(tmp_path_factory.mktemp("verifier-template") / "template.sqlite")


@pytest.fixture
def world(tmp_path: Path, world_template: Path) -> WorldPair:
    return WorldPair(tmp_path, world_template)
