"""A document's structured content: blocks (style + formatted runs), converted to and from the
editor's Delta (Quill's JSON of inserts) and .docx files (python-docx).

A table is one block ``{"style": "Table", "rows": [[cell, ...], ...]}`` whose cells are lists of runs
(one paragraph a cell, as the editor's table cells). In the world it is one ``drive_block`` row like
a paragraph: ``style`` "Table", ``text`` the cells' texts (cells joined by tabs, rows by new lines) and
``runs`` the JSON of the rows, so a document without tables keeps exactly the rows it had."""

from __future__ import annotations

import io
import json
from typing import Any

from sqlmodel import Session, delete, select

from .models import Block

STYLES = ("Title", "Heading 1", "Heading 2", "Heading 3", "Normal", "List Bullet", "List Number", "Table")
TABLE = "Table"
MAX_TABLE_ROWS, MAX_TABLE_COLS = 500, 20  # Word for the web's Insert Table grid goes to 8 x 10; a pasted table may be larger
HEADER_STYLE = {1: "Heading 1", 2: "Heading 2", 3: "Heading 3", 6: "Title"}  # Word's Title rides on Quill's unused h6, so a save keeps it
RUN_MARKS = ("bold", "italic", "underline")
MAX_TEXT = 2_000_000  # characters in one document


class DocumentError(ValueError):
    pass


def block(style: str, *runs: Any) -> dict[str, Any]:
    """A block from plain strings and/or run dicts (the seed's shorthand)."""
    rs = [{"text": r} if isinstance(r, str) else dict(r) for r in runs]
    return {"style": style, "runs": [r for r in rs if r.get("text")]}


def table(*rows: list[Any]) -> dict[str, Any]:
    """A table block from rows of cells, each a string, a run dict or a list of those."""
    def cell(c: Any) -> list[dict[str, Any]]:
        items = c if isinstance(c, list) else [c]
        return [r for r in ({"text": x} if isinstance(x, str) else dict(x) for x in items) if r.get("text")]
    return {"style": TABLE, "rows": [[cell(c) for c in row] for row in rows]}


def runs_text(runs: list[dict[str, Any]]) -> str:
    return "".join(r.get("text", "") for r in runs)


def block_text(b: dict[str, Any]) -> str:
    if b.get("style") == TABLE:
        return "\n".join("\t".join(runs_text(c) for c in row) for row in b.get("rows", []))
    return runs_text(b.get("runs", []))


def table_cells(b: dict[str, Any]) -> list[list[str]]:
    """A table block's cell texts, row by row."""
    return [[runs_text(c) for c in row] for row in b.get("rows", [])]


def _clean_runs(runs: Any, where: str, cell: bool = False) -> list[dict[str, Any]]:
    if not isinstance(runs, list):
        raise DocumentError(f"{where}: runs must be a list of {{text, bold, italic, underline, link}}.")
    clean: list[dict[str, Any]] = []
    for r in runs:
        if not isinstance(r, dict) or not isinstance(r.get("text", ""), str):
            raise DocumentError(f"{where}: every run needs a text string.")
        text = r.get("text", "").replace("\n", " ")
        if cell:  # a cell's text has no tabs: they separate the cells in the block's text
            text = text.replace("\t", " ")
        if not text:
            continue
        run: dict[str, Any] = {"text": text}
        for mark in RUN_MARKS:
            if r.get(mark):
                run[mark] = True
        if r.get("link"):
            run["link"] = str(r["link"])[:500]
        if clean and {k: v for k, v in clean[-1].items() if k != "text"} == {k: v for k, v in run.items() if k != "text"}:
            clean[-1]["text"] += text
        else:
            clean.append(run)
    return clean


def _clean_table(b: dict[str, Any], i: int) -> dict[str, Any]:
    rows = b.get("rows")
    where = f"The table in block {i + 1}"
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) and r for r in rows):
        raise DocumentError(f"{where} needs at least one row of cells: rows is a list of rows, each a list of cells (lists of runs).")
    if len(rows) > MAX_TABLE_ROWS:
        raise DocumentError(f"{where} has {len(rows)} rows; a table can have at most {MAX_TABLE_ROWS}.")
    cols = max(len(r) for r in rows)
    if cols > MAX_TABLE_COLS:
        raise DocumentError(f"{where} has {cols} columns; a table can have at most {MAX_TABLE_COLS}.")
    out = []
    for r, row in enumerate(rows):
        cells = []
        for c, cell in enumerate(row):
            if isinstance(cell, str):
                cell = [{"text": cell}]
            elif isinstance(cell, dict):
                cell = cell.get("runs", [cell])
            cells.append(_clean_runs(cell, f"{where}, row {r + 1}, cell {c + 1}", cell=True))
        out.append(cells + [[] for _ in range(cols - len(cells))])  # rows as wide as the widest, as Word draws them
    return {"style": TABLE, "rows": out}


def normalize(blocks: Any) -> list[dict[str, Any]]:
    """Validated blocks (the API's and the editor's input share this check)."""
    if not isinstance(blocks, list):
        raise DocumentError("blocks must be a list of {style, runs}.")
    out, total = [], 0
    for i, b in enumerate(blocks):
        if not isinstance(b, dict):
            raise DocumentError(f"Block {i + 1} is not an object with style and runs.")
        style = b.get("style", "Normal")
        if style not in STYLES:
            raise DocumentError(f"Block {i + 1} has an unknown style “{style}”. Use one of: {', '.join(STYLES)}.")
        if style == TABLE:
            t = _clean_table(b, i)
            total += len(block_text(t))
            out.append(t)
            continue
        runs = b.get("runs")
        if runs is None and "text" in b:
            runs = [{"text": str(b["text"])}]
        clean = _clean_runs(runs, f"Block {i + 1}")
        total += sum(len(r["text"]) for r in clean)
        out.append({"style": style, "runs": clean})
    if total > MAX_TEXT:
        raise DocumentError(f"The document is too long ({total:,} characters); the limit is {MAX_TEXT:,}.")
    return out


# -- Quill Delta -------------------------------------------------------------------------------
def _line_style(attrs: dict[str, Any]) -> str:
    if attrs.get("header") in HEADER_STYLE:
        return HEADER_STYLE[attrs["header"]]
    if attrs.get("list") == "bullet":
        return "List Bullet"
    if attrs.get("list") == "ordered":
        return "List Number"
    return "Normal"


def from_delta(delta: Any) -> list[dict[str, Any]]:
    """Blocks from a Quill Delta: text inserts with inline attributes, each line's format on its "\\n".
    A line formatted ``table: <row id>`` is a table cell: neighbouring cells with the same row id make
    a row, neighbouring rows a table."""
    ops = delta.get("ops") if isinstance(delta, dict) else delta
    if not isinstance(ops, list):
        raise DocumentError("The editor sent no content (expected a Delta with ops).")
    blocks: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    row_id: Any = None  # the row being read when the last block is a table, else None
    for op in ops:
        if not isinstance(op, dict):
            raise DocumentError("The editor's content is malformed.")
        ins = op.get("insert")
        if not isinstance(ins, str):
            continue  # embeds (images) are not kept
        attrs = op.get("attributes") or {}
        parts = ins.split("\n")
        for k, part in enumerate(parts):
            if part:
                run: dict[str, Any] = {"text": part}
                for mark in RUN_MARKS:
                    if attrs.get(mark):
                        run[mark] = True
                if attrs.get("link"):
                    run["link"] = attrs["link"]
                runs.append(run)
            if k < len(parts) - 1:  # a newline ends a line: its attributes are the line's format
                cell_row = attrs.get("table")
                if cell_row:
                    if row_id is None:
                        blocks.append({"style": TABLE, "rows": [[runs]]})
                    elif cell_row == row_id:
                        blocks[-1]["rows"][-1].append(runs)
                    else:
                        blocks[-1]["rows"].append([runs])
                    row_id = cell_row
                else:
                    blocks.append({"style": _line_style(attrs), "runs": runs})
                    row_id = None
                runs = []
    if runs:
        blocks.append({"style": "Normal", "runs": runs})
    while blocks and blocks[-1]["style"] == "Normal" and not blocks[-1]["runs"] and len(blocks) > 1:
        blocks.pop()  # Quill's trailing empty line
    blocks = [b for i, b in enumerate(blocks) if not (0 < i < len(blocks) - 1 and b["style"] == "Normal" and not b["runs"]
                                                      and blocks[i - 1]["style"] == TABLE and blocks[i + 1]["style"] == TABLE)]  # the line between two tables
    return normalize(blocks)


def to_delta(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    ops: list[dict[str, Any]] = []

    def put(runs: list[dict[str, Any]], line: dict[str, Any]) -> None:
        for r in runs:
            attrs = {k: r[k] for k in (*RUN_MARKS, "link") if r.get(k)}
            ops.append({"insert": r["text"], **({"attributes": attrs} if attrs else {})})
        ops.append({"insert": "\n", **({"attributes": line} if line else {})})

    tables = 0
    for i, b in enumerate(blocks):
        style = b["style"]
        if style == TABLE:
            if i and blocks[i - 1]["style"] == TABLE:
                put([], {})  # two tables in a row stay two tables in the editor
            tables += 1
            for r, row in enumerate(b["rows"]):
                for cell in row:
                    put(cell, {"table": f"row-t{tables}r{r + 1}"})
            continue
        line: dict[str, Any] = {}
        if style.startswith("Heading"):
            line["header"] = int(style[-1])
        elif style == "Title":
            line["header"] = 6
        elif style == "List Bullet":
            line["list"] = "bullet"
        elif style == "List Number":
            line["list"] = "ordered"
        put(b["runs"], line)
    if blocks and blocks[-1]["style"] == TABLE:
        put([], {})  # a paragraph after the table to type in (dropped again on save when left empty)
    return {"ops": ops or [{"insert": "\n"}]}


# -- suggestions (tracked changes) -------------------------------------------------------------
def splice(runs: list[dict[str, Any]], start: int, end: int, text: str) -> list[dict[str, Any]]:
    """The runs with characters ``start:end`` replaced by ``text``, formatted as the first character
    replaced (or, for an insertion, the character before it)."""
    chars = [(ch, {k: v for k, v in r.items() if k != "text"}) for r in runs for ch in r["text"]]
    at = start if end > start else start - 1
    fmt = chars[at][1] if 0 <= at < len(chars) else (chars[0][1] if chars else {})
    chars = chars[:start] + [(ch, fmt) for ch in text] + chars[end:]
    out: list[dict[str, Any]] = []
    for ch, f in chars:
        if out and {k: v for k, v in out[-1].items() if k != "text"} == f:
            out[-1]["text"] += ch
        else:
            out.append({"text": ch, **f})
    return out


def locate(block_text_: str, offset: int, anchor: str) -> int | None:
    """Where the suggestion's anchor is in the paragraph now (its offset, else its only occurrence)."""
    if not anchor:
        return offset if 0 <= offset <= len(block_text_) else None
    if block_text_[offset: offset + len(anchor)] == anchor:
        return offset
    return block_text_.find(anchor) if block_text_.count(anchor) == 1 else None


# -- rows in the world ---------------------------------------------------------------------------
def load(session: Session, item_id: int) -> list[dict[str, Any]]:
    rows = session.exec(select(Block).where(Block.item_id == item_id).order_by(Block.position)).all()
    return [{"style": r.style, "rows": json.loads(r.runs)} if r.style == TABLE else {"style": r.style, "runs": json.loads(r.runs)} for r in rows]


def runs_json(b: dict[str, Any]) -> str:
    """What a block keeps in its row's ``runs`` column: its runs, or a table's rows of cells of runs."""
    return json.dumps(b["rows"] if b["style"] == TABLE else b["runs"], separators=(",", ":"))


def rows_for(item_id: int, blocks: list[dict[str, Any]], start_id: int | None = None) -> list[dict[str, Any]]:
    out = []
    for pos, b in enumerate(blocks):
        row = {"item_id": item_id, "position": pos, "style": b["style"], "text": block_text(b), "runs": runs_json(b)}
        if start_id is not None:
            row["id"] = start_id + pos
        out.append(row)
    return out


def store(session: Session, item_id: int, blocks: list[dict[str, Any]]) -> str:
    """Replace the document's blocks, keeping the rows of unchanged paragraphs (so the world's change
    set shows what really changed). Returns the plain text."""
    old = session.exec(select(Block).where(Block.item_id == item_id).order_by(Block.position)).all()
    new = rows_for(item_id, blocks)
    for pos, row in enumerate(new):
        if pos < len(old):
            o = old[pos]
            if (o.style, o.text, o.runs) != (row["style"], row["text"], row["runs"]):
                o.style, o.text, o.runs = row["style"], row["text"], row["runs"]
                session.add(o)
        else:
            session.add(Block(**row))
    if len(old) > len(new):
        session.exec(delete(Block).where(Block.item_id == item_id, Block.position >= len(new)))
    return plain_text(blocks)


def plain_text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(block_text(b) for b in blocks)


# -- .docx ------------------------------------------------------------------------------------
def to_docx(blocks: list[dict[str, Any]], title: str = "") -> bytes:
    import docx

    doc = docx.Document()
    doc.core_properties.title = title

    def put_runs(p: Any, runs: list[dict[str, Any]]) -> None:
        for r in runs:
            run = p.add_run(r["text"])
            run.bold = r.get("bold") or None
            run.italic = r.get("italic") or None
            run.underline = r.get("underline") or None

    for b in blocks:
        if b["style"] == TABLE:
            rows = b["rows"]
            t = doc.add_table(rows=len(rows), cols=max(len(r) for r in rows))
            t.style = "Table Grid"
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    put_runs(t.cell(r, c).paragraphs[0], cell)
            continue
        style = b["style"] if b["style"] in STYLES else "Normal"
        put_runs(doc.add_paragraph(style=style), b["runs"])
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def _docx_runs(p: Any) -> list[dict[str, Any]]:
    return [{"text": r.text, **{m: True for m in RUN_MARKS if getattr(r, m)}} for r in p.runs if r.text]


def from_docx(data: bytes) -> list[dict[str, Any]]:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        doc = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, OSError) as exc:
        raise DocumentError("This file isn't a Word document we can open (.docx). It may be damaged; save it again from Word and upload it.") from exc
    except Exception as exc:  # noqa: BLE001 - any parser failure of a corrupt zip/XML is the same message
        raise DocumentError("This file isn't a Word document we can open (.docx). It may be damaged; save it again from Word and upload it.") from exc
    blocks = []
    for el in doc.element.body.iterchildren():  # paragraphs and tables in document order
        tag = el.tag.rsplit("}", 1)[-1]
        if tag == "tbl":
            t = Table(el, doc)
            rows = []
            for row in t.rows:
                cells, seen = [], set()
                for cell in row.cells:
                    if id(cell._tc) in seen:  # a merged cell is listed once per grid column it spans
                        continue
                    seen.add(id(cell._tc))
                    runs: list[dict[str, Any]] = []
                    for k, p in enumerate(cell.paragraphs):  # a cell's paragraphs become one line
                        if k and runs:
                            runs.append({"text": " "})
                        runs += _docx_runs(p)
                    cells.append(runs)
                rows.append(cells)
            if rows and any(rows):
                blocks.append({"style": TABLE, "rows": [r or [[]] for r in rows]})
            continue
        if tag != "p":
            continue
        p = Paragraph(el, doc)
        name = p.style.name if p.style is not None else "Normal"
        style = name if name in STYLES and name != TABLE else ("List Bullet" if "Bullet" in name else "List Number" if "Number" in name else "Normal")
        blocks.append({"style": style, "runs": _docx_runs(p)})
    return normalize(blocks)
