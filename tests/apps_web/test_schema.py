"""`sandbox schema`: the tables, columns, picklists and relations a task author needs."""

from __future__ import annotations

import json
import subprocess
import sys

from apps_web.schema import as_text, describe


def test_describe_reads_models_fields_and_counts(store) -> None:  # noqa: ANN001
    tables = {t["table"]: t for t in describe("crm", store.template(0))}
    assert "identity_user" in tables and "crm_opportunity" in tables
    cols = {c["name"]: c for c in tables["crm_opportunity"]["columns"]}
    assert cols["stage"]["picklist"][0] == "Prospecting" and cols["stage"]["required"]
    assert cols["account_id"]["references"] == "crm_account.id" and cols["account_id"]["label"] == "Account Name"
    assert tables["crm_opportunity"]["rows"] == 250
    text = as_text(list(tables.values()))
    assert "stage" in text and "picklist: Prospecting | Qualification" in text


def test_cli_json_and_unknown_app() -> None:
    out = subprocess.run([sys.executable, "-m", "sandbox.cli", "schema", "crm", "--json"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert any(t["table"] == "crm_lead" for t in data)
    bad = subprocess.run([sys.executable, "-m", "sandbox.cli", "schema", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "no app 'nope'" in bad.stderr
