"""A document's structured content: blocks (style + formatted runs), converted to and from the
editor's Delta (Quill's JSON of inserts) and .docx files (python-docx)."""

from __future__ import annotations

import io
import json
from typing import Any

from sqlmodel import Session, delete, select

from .models import Block

STYLES = ("Title", "Heading 1", "Heading 2", "Heading 3", "Normal", "List Bullet", "List Number")
HEADER_STYLE = {1: "Heading 1", 2: "Heading 2", 3: "Heading 3", 6: "Title"}  # Word's Title rides on Quill's unused h6, so a save keeps it
RUN_MARKS = ("bold", "italic", "underline")
MAX_TEXT = 2_000_000  # characters in one document


class DocumentError(ValueError):
    pass


def block(style: str, *runs: Any) -> dict[str, Any]:
    """A block from plain strings and/or run dicts (the seed's shorthand)."""
    rs = [{"text": r} if isinstance(r, str) else dict(r) for r in runs]
    return {"style": style, "runs": [r for r in rs if r.get("text")]}


def block_text(b: dict[str, Any]) -> str:
    return "".join(r.get("text", "") for r in b.get("runs", []))


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
        runs = b.get("runs")
        if runs is None and "text" in b:
            runs = [{"text": str(b["text"])}]
        if not isinstance(runs, list):
            raise DocumentError(f"Block {i + 1}: runs must be a list of {{text, bold, italic, underline, link}}.")
        clean = []
        for r in runs:
            if not isinstance(r, dict) or not isinstance(r.get("text", ""), str):
                raise DocumentError(f"Block {i + 1}: every run needs a text string.")
            text = r.get("text", "").replace("\n", " ")
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
        total += sum(len(r["text"]) for r in clean)
        out.append({"style": style, "runs": clean})
    if total > MAX_TEXT:
        raise DocumentError(f"The document is too long ({total:,} characters); the limit is {MAX_TEXT:,}.")
    return out


# -- Quill Delta -------------------------------------------------------------------------------
def from_delta(delta: Any) -> list[dict[str, Any]]:
    """Blocks from a Quill Delta: text inserts with inline attributes, each line's format on its "\\n"."""
    ops = delta.get("ops") if isinstance(delta, dict) else delta
    if not isinstance(ops, list):
        raise DocumentError("The editor sent no content (expected a Delta with ops).")
    blocks: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
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
                style = "Normal"
                if attrs.get("header") in HEADER_STYLE:
                    style = HEADER_STYLE[attrs["header"]]
                elif attrs.get("list") == "bullet":
                    style = "List Bullet"
                elif attrs.get("list") == "ordered":
                    style = "List Number"
                blocks.append({"style": style, "runs": runs})
                runs = []
    if runs:
        blocks.append({"style": "Normal", "runs": runs})
    while blocks and blocks[-1]["style"] == "Normal" and not blocks[-1]["runs"] and len(blocks) > 1:
        blocks.pop()  # Quill's trailing empty line
    return normalize(blocks)


def to_delta(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    ops: list[dict[str, Any]] = []
    for b in blocks:
        for r in b["runs"]:
            attrs = {k: r[k] for k in (*RUN_MARKS, "link") if r.get(k)}
            ops.append({"insert": r["text"], **({"attributes": attrs} if attrs else {})})
        style = b["style"]
        line: dict[str, Any] = {}
        if style.startswith("Heading"):
            line["header"] = int(style[-1])
        elif style == "Title":
            line["header"] = 6
        elif style == "List Bullet":
            line["list"] = "bullet"
        elif style == "List Number":
            line["list"] = "ordered"
        ops.append({"insert": "\n", **({"attributes": line} if line else {})})
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
    return [{"style": r.style, "runs": json.loads(r.runs)} for r in rows]


def rows_for(item_id: int, blocks: list[dict[str, Any]], start_id: int | None = None) -> list[dict[str, Any]]:
    out = []
    for pos, b in enumerate(blocks):
        row = {"item_id": item_id, "position": pos, "style": b["style"], "text": block_text(b), "runs": json.dumps(b["runs"], separators=(",", ":"))}
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
    for b in blocks:
        style = b["style"] if b["style"] in STYLES else "Normal"
        p = doc.add_paragraph(style=style)
        for r in b["runs"]:
            run = p.add_run(r["text"])
            run.bold = r.get("bold") or None
            run.italic = r.get("italic") or None
            run.underline = r.get("underline") or None
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def from_docx(data: bytes) -> list[dict[str, Any]]:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        doc = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, OSError) as exc:
        raise DocumentError("This file isn't a Word document we can open (.docx). It may be damaged; save it again from Word and upload it.") from exc
    except Exception as exc:  # noqa: BLE001 - any parser failure of a corrupt zip/XML is the same message
        raise DocumentError("This file isn't a Word document we can open (.docx). It may be damaged; save it again from Word and upload it.") from exc
    blocks = []
    for p in doc.paragraphs:
        name = p.style.name if p.style is not None else "Normal"
        style = name if name in STYLES else ("List Bullet" if "Bullet" in name else "List Number" if "Number" in name else "Normal")
        runs = [{"text": r.text, **{m: True for m in RUN_MARKS if getattr(r, m)}} for r in p.runs if r.text]
        blocks.append({"style": style, "runs": runs})
    return normalize(blocks)
