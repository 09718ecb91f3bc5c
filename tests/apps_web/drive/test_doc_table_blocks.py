"""Table blocks of documents without a browser: the editor's Delta both ways, .docx import of a file
made by python-docx (as Word users' tools write it) and export back, the PDF's grid, bad tables
refused with a message that says what is wrong."""

from __future__ import annotations

import io
import re

import docx
import pytest

from apps_web.drive import documents as d
from apps_web.drive.pdf import document_pdf

BLOCKS = [d.block("Heading 1", "Pricing"), d.table(["Item", "Qty", "Amount"], ["Cloud Suite", {"text": "12", "bold": True}, "$14,400.00"], ["Onboarding"]),
          d.block("Normal", "Prices valid for 30 days.")]


def test_normalize_pads_rows_and_keeps_text() -> None:
    got = d.normalize(BLOCKS)
    assert got[1]["rows"][2] == [[{"text": "Onboarding"}], [], []]
    assert d.block_text(got[1]) == "Item\tQty\tAmount\nCloud Suite\t12\t$14,400.00\nOnboarding\t\t"
    assert d.table_cells(got[1])[1] == ["Cloud Suite", "12", "$14,400.00"]
    # a tab or a new line typed in a cell is a space: they separate cells and rows in the block's text
    assert d.block_text(d.normalize([d.table(["a\tb", "c\nd"])])[0]) == "a b\tc d"
    # a tab in a paragraph stays (documents without tables keep their rows)
    assert d.normalize([d.block("Normal", "a\tb")])[0]["runs"] == [{"text": "a\tb"}]


@pytest.mark.parametrize("bad, message", [
    ({"style": "Table", "rows": []}, "needs at least one row"),
    ({"style": "Table", "rows": [[]]}, "needs at least one row"),
    ({"style": "Table", "rows": [["x"] * 21]}, "21 columns; a table can have at most 20"),
    ({"style": "Table", "rows": [[[{"bold": True, "text": 3}]]]}, "row 1, cell 1: every run needs a text string"),
])
def test_bad_tables_are_refused_with_a_clear_message(bad, message) -> None:
    with pytest.raises(d.DocumentError, match=re.escape(message)):
        d.normalize([d.block("Normal", "x"), bad])


def test_delta_round_trip_and_rows_in_the_world() -> None:
    blocks = d.normalize(BLOCKS)
    delta = d.to_delta(blocks)
    cells = [op for op in delta["ops"] if op.get("attributes", {}).get("table")]
    assert len(cells) == 9 and cells[0]["attributes"]["table"] == cells[2]["attributes"]["table"] != cells[3]["attributes"]["table"]
    assert d.from_delta(delta) == blocks
    # a table at the end gets a paragraph after it to type in, dropped again when left empty
    assert d.to_delta(blocks[:2])["ops"][-1] == {"insert": "\n"} and d.from_delta(d.to_delta(blocks[:2])) == blocks[:2]
    two = d.normalize([d.table(["a"]), d.table(["b"])])
    assert d.from_delta(d.to_delta(two)) == two
    row = d.rows_for(7, blocks)[1]
    assert row["style"] == "Table" and row["text"].startswith("Item\tQty") and row["runs"].startswith('[[[{"text":"Item"}]')
    assert d.rows_for(7, blocks)[0]["runs"] == '[{"text":"Pricing"}]'


def test_docx_from_python_docx_and_back() -> None:
    src = docx.Document()
    src.add_heading("Pricing", level=1)
    t = src.add_table(rows=3, cols=3)
    t.style = "Table Grid"
    for r, row in enumerate([["Item", "Qty", "Amount"], ["Cloud Suite", "12", "$14,400.00"], ["Support", "1", "$900.00"]]):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
    t.cell(2, 0).paragraphs[0].runs[0].bold = True
    t.cell(0, 1).merge(t.cell(0, 2))  # a merged header cell is one cell
    src.add_paragraph("Valid for 30 days.")
    buf = io.BytesIO()
    src.save(buf)
    blocks = d.from_docx(buf.getvalue())
    assert [b["style"] for b in blocks] == ["Heading 1", "Table", "Normal"]
    assert d.table_cells(blocks[1]) == [["Item", "Qty Amount", ""], ["Cloud Suite", "12", "$14,400.00"], ["Support", "1", "$900.00"]]
    assert blocks[1]["rows"][2][0] == [{"text": "Support", "bold": True}]
    again = docx.Document(io.BytesIO(d.to_docx(blocks, "Pricing")))
    assert [[c.text for c in r.cells] for r in again.tables[0].rows][1:] == [["Cloud Suite", "12", "$14,400.00"], ["Support", "1", "$900.00"]]
    assert again.tables[0].style.name == "Table Grid"
    assert d.from_docx(d.to_docx(blocks)) == blocks


def test_pdf_draws_the_grid_and_lists_the_cells() -> None:
    data, text = document_pdf("Pricing", d.normalize(BLOCKS))
    assert text.split("\n") == ["Pricing", "Item\tQty\tAmount", "Cloud Suite\t12\t$14,400.00", "Onboarding\t\t", "Prices valid for 30 days."]
    assert data.count(b" re S") == 3 and data.count(b" l S") >= 6  # a bordered box a row, a line between columns
    assert document_pdf("Pricing", d.normalize(BLOCKS)) == (data, text)
