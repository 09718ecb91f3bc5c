"""Table checks: a document's table found under a heading and/or by its header row, its body rows
counted and matched by column (plain values loosely: case, spacing, number formats; dicts as
conditions), ``only`` refusing extra rows."""

from __future__ import annotations

import json

import pytest

from verifiers import VerifierSpecError, build_verifier, table_rows

PRICING = "Product\tQuantity\tAmount\nCloud Suite\t12\t$14,400.00\nOnboarding\t1\t$2,500.00"
DOC = [("Title", "Acme proposal"), ("Heading 1", "Scope"), ("Table", "Phase\tWeeks\nDiscovery\t2"), ("Heading 1", "Pricing"),
       ("Normal", "Prices are valid for 30 days."), ("Table", PRICING), ("Heading 1", "Terms"), ("Normal", "Net 30.")]


def sql_text(t: str) -> str:
    return "'" + t.replace("'", "''").replace("\t", "' || char(9) || '").replace("\n", "' || char(10) || '") + "'"


def doc(world, item_id: int, name: str, blocks) -> None:
    world.run("CREATE TABLE IF NOT EXISTS drive_item (id INTEGER PRIMARY KEY, name TEXT, parent_id INTEGER)",
              "CREATE TABLE IF NOT EXISTS drive_block (id INTEGER PRIMARY KEY, item_id INTEGER, position INTEGER, style TEXT, text TEXT, runs TEXT)",
              f"INSERT INTO drive_item VALUES ({item_id}, {json.dumps(name)}, 1)")
    for pos, (style, text) in enumerate(blocks):
        world.run(f"INSERT INTO drive_block (item_id, position, style, text, runs) VALUES ({item_id}, {pos}, '{style}', {sql_text(text)}, '[]')")


def verdict(world, params=None, **spec):
    return build_verifier([{"kind": "table", "document": {"name": "Acme proposal"}, **spec}]).verify(world.context(params=params or {}))


ROWS = [{"Product": "Cloud Suite", "Quantity": 12, "Amount": 14400}, {"product": "onboarding", "Amount": "2,500"}]


def test_table_rows_from_block_text() -> None:
    assert table_rows(PRICING)[2] == ["Onboarding", "1", "$2,500.00"]
    assert table_rows("a\t\n\tb") == [["a", ""], ["", "b"]]


def test_rows_under_heading_and_by_header(world) -> None:
    doc(world, 5, "Acme proposal", DOC)
    v = verdict(world, heading="Pricing", rows=2, contains_rows=ROWS, only=True)
    assert v.passed and len(v.checks) == 4, v.checks
    assert verdict(world, header=["product", "QUANTITY", "Amount"], contains_rows=[{"Amount": {"contains": "$14,400"}}]).passed
    # no heading or header: the document's first table (the Scope one)
    assert verdict(world, contains_rows=[{"Phase": "Discovery"}]).passed
    # rows from a task parameter (e.g. the opportunity's line items)
    assert verdict(world, {"items": ROWS}, heading="Pricing", contains_rows="{{ items }}", only=True).passed
    items = [{"name": "Cloud Suite", "qty": 12.0, "total": 14400.0}, {"name": "Onboarding", "qty": 1.0, "total": 2500.0}]
    cols = {"name": "Product", "qty": "{{ q }}", "total": "amount"}
    assert verdict(world, {"items": items, "q": "Quantity"}, heading="Pricing", contains_rows="{{ items }}", columns=cols, only=True).passed
    items[1]["total"] = 2600.0
    assert not verdict(world, {"items": items, "q": "Quantity"}, heading="Pricing", contains_rows="{{ items }}", columns=cols, only=True).passed


def test_wrong_cell_extra_or_missing_row_and_wrong_heading_fail(world) -> None:
    doc(world, 5, "Acme proposal", DOC)
    v = verdict(world, heading="Pricing", contains_rows=[{"Product": "Cloud Suite", "Quantity": 10}])
    assert not v.passed and "the table reads" in v.checks[0].detail
    v = verdict(world, heading="Pricing", contains_rows=ROWS[:1], only=True)
    assert not v.passed and "other rows: Onboarding | 1 | $2,500.00" in v.checks[-1].detail
    v = verdict(world, heading="Pricing", rows=3, contains_rows=[*ROWS, {"Product": "Support"}])
    assert [c.passed for c in v.checks] == [False, True, True, False]
    # the same expected row twice needs two rows
    assert not verdict(world, heading="Pricing", contains_rows=[ROWS[0], ROWS[0]]).passed
    # the table is under Scope, not Terms; the header is not the asked one
    v = verdict(world, heading="Terms", contains_rows=ROWS)
    assert not v.passed and v.checks[0].detail == "no table under that heading"
    v = verdict(world, heading="Scope", header=["Product", "Quantity", "Amount"])
    assert not v.passed and "no table under that heading has the header row" in v.checks[0].detail
    v = verdict(world, heading="Pricing", contains_rows=[{"Price": 14400}])
    assert not v.passed and "no column Price" in v.checks[0].detail
    assert verdict(world, heading="Missing").checks[0].detail == "no heading is Missing in the document"


def test_missing_or_ambiguous_document(world) -> None:
    doc(world, 4, "Other", [])
    assert build_verifier([{"kind": "table", "document": {"name": "Nope"}}]).verify(world.context()).checks[0].detail == "no such document"
    doc(world, 5, "Acme proposal", DOC)
    doc(world, 6, "Acme proposal", DOC)
    assert "2 documents match" in verdict(world, rows=2).checks[0].detail


def test_spec_errors() -> None:
    with pytest.raises(VerifierSpecError):
        build_verifier([{"kind": "table", "document": {"name": "x"}, "rows": -1}])
    with pytest.raises(VerifierSpecError):
        build_verifier([{"kind": "table", "document": {"name": "x"}, "contains_rows": [{"A": {}}]}])
    spec = build_verifier([{"kind": "table", "document": {"nmae": "Q3 memo"}}])
    with pytest.raises(VerifierSpecError, match="no column 'nmae'"):
        spec.validate_schema({"drive_item": ["id", "name"], "drive_block": ["item_id", "position", "style", "text"]})
