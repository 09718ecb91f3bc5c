"""Section checks: the text under a heading of a document, up to the next heading of the same or a
higher level, must contain (or match) the facts and must not mention the decoys."""

from __future__ import annotations

import json

import pytest

from verifiers import VerifierSpecError, build_verifier, section_text

MEMO = [("Title", "Q3 memo"), ("Heading 1", "Summary"), ("Normal", "Revenue was $1.2M."), ("Heading 1", "Risks"),
        ("Normal", "The Acme renewal slips to Q4."), ("Heading 2", "Mitigation"), ("List Bullet", "Weekly call with Acme"),
        ("Heading 1", "Next steps"), ("Normal", "Review the $900K pipeline.")]


def doc(world, item_id: int, name: str, blocks) -> None:
    world.run("CREATE TABLE IF NOT EXISTS drive_item (id INTEGER PRIMARY KEY, name TEXT, parent_id INTEGER)",
              "CREATE TABLE IF NOT EXISTS drive_block (id INTEGER PRIMARY KEY, item_id INTEGER, position INTEGER, style TEXT, text TEXT, runs TEXT)",
              f"INSERT INTO drive_item VALUES ({item_id}, {json.dumps(name)}, 1)")
    for pos, (style, text) in enumerate(blocks):
        world.run(f"INSERT INTO drive_block (item_id, position, style, text, runs) VALUES ({item_id}, {pos}, '{style}', {json.dumps(text)}, '[]')")


def verdict(world, **spec):
    return build_verifier([{"kind": "section", "document": {"name": "Q3 memo"}, **spec}]).verify(world.context(params={"fig": "$1.2M"}))


def test_section_text_stops_at_same_or_higher_level() -> None:
    blocks = [{"style": s, "text": t} for s, t in MEMO]
    assert section_text(blocks, 3) == "The Acme renewal slips to Q4.\nMitigation\nWeekly call with Acme"
    assert section_text(blocks, 5) == "Weekly call with Acme"
    assert section_text(blocks, 7) == "Review the $900K pipeline."


def test_contains_under_the_right_heading(world) -> None:
    doc(world, 5, "Q3 memo", MEMO)
    assert verdict(world, heading={"iequals": "summary"}, expect={"contains": "{{ fig }}"}).passed
    v = verdict(world, heading="Risks", style="Heading 1", expect={"regex": "(?i)acme.*q4"}, excludes=["$900K"])
    assert v.passed and len(v.checks) == 2
    # The figure is in the document, but under another heading: fails, showing what the section says.
    v = verdict(world, heading="Next steps", expect={"contains": "{{ fig }}"})
    assert not v.passed and "the section reads" in v.checks[0].detail and v.checks[0].actual == "Review the $900K pipeline."
    assert not verdict(world, heading="Risks", excludes=["weekly CALL"]).passed


def test_missing_heading_document_or_ambiguous_document_fails(world) -> None:
    doc(world, 5, "Q3 memo", [(s if s != "Heading 1" else "Normal", t) for s, t in MEMO])  # titles typed as plain text
    v = verdict(world, heading="Risks", expect={"contains": "Acme"})
    assert not v.passed and "no heading" in v.checks[0].detail
    assert not verdict(world, heading="Risks", style="Heading 2", expect={"contains": "Acme"}).passed
    doc(world, 6, "Q3 memo", MEMO)
    assert "2 documents match" in verdict(world, heading="Risks", expect={"contains": "Acme"}).checks[0].detail
    v = build_verifier([{"kind": "section", "document": {"name": "Other"}, "heading": "Risks"}]).verify(world.context())
    assert not v.passed and v.checks[0].detail == "no such document"


def test_schema_names_the_tables() -> None:
    spec = build_verifier([{"kind": "section", "document": {"nmae": "Q3 memo"}, "heading": "Risks"}])
    with pytest.raises(VerifierSpecError, match="no column 'nmae'"):
        spec.validate_schema({"drive_item": ["id", "name"], "drive_block": ["item_id", "position", "style", "text"]})
