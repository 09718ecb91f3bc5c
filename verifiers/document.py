"""The text of a section of a document (``section``): what is written under a heading.

A document is a row of a documents table (``drive_item``) whose paragraphs are rows of a blocks table
(``drive_block``: ``item_id``, ``position``, ``style``, ``text``), styled with Word's names. A
section is the paragraphs after a heading (``Title``, ``Heading 1``..``Heading 3``) up to the next
heading of the same or a higher level (a ``Heading 2`` section ends at the next ``Heading 2`` or
``Heading 1``; its ``Heading 3`` subsections belong to it)::

    - kind: section
      document: {name: "Q3 memo", parent_id: 12}   # one document (rows of documents_table)
      heading: {iequals: Risks}                      # the heading's text (first match, in order)
      style: Heading 1                               # optional: the heading's style
      expect: {contains: "$1,200", regex: "(?i)renewal"}   # conditions on the section's text
      excludes: ["$1,100"]                           # optional: must not appear (ignoring case)

The section's text is its paragraphs' texts joined by new lines. Each of ``expect`` and ``excludes``
is one check; with no document, several documents or no such heading they all fail, saying which.
"""

from __future__ import annotations

from typing import Any, Iterator, Literal

from pydantic import Field

from .base import CheckSpec, Env
from .conditions import FieldCond, Where, match_row, where_phrase, where_refs
from .values import fmt
from .verdict import Check


def heading_level(style: str | None) -> int | None:
    """0 for Title, n for Heading n, None for body text."""
    if style == "Title":
        return 0
    if style and style.startswith("Heading ") and style[8:].isdigit():
        return int(style[8:])
    return None


def section_text(blocks: list[dict[str, Any]], index: int) -> str:
    """The text under the heading at ``blocks[index]`` (blocks in document order)."""
    level = heading_level(blocks[index].get("style"))
    out = []
    for b in blocks[index + 1:]:
        lv = heading_level(b.get("style"))
        if level is not None and lv is not None and lv <= level:
            break
        out.append(b.get("text") or "")
    return "\n".join(out)


class SectionSpec(CheckSpec):
    """The text under a heading of one document meets ``expect`` and holds none of ``excludes``."""

    kind: Literal["section"] = "section"
    document: Where
    heading: FieldCond
    style: str | None = None
    expect: FieldCond | None = None
    excludes: list[str] | str = Field(default_factory=list)  # or a parameter holding a list
    documents_table: str = "drive_item"
    blocks_table: str = "drive_block"

    def default_name(self) -> str:
        return "section"

    def describe(self) -> str:
        return self.sentence or f"the section {self.heading.phrase('heading')} of the document where {where_phrase(self.document)}"

    def references(self) -> Iterator[tuple[str, str, str | None]]:
        yield "documents_table", self.documents_table, None
        yield from where_refs(self.document, self.documents_table, "document")
        for f in ("item_id", "position", "style", "text"):
            yield "blocks_table", self.blocks_table, f

    def evaluate(self, env: Env) -> list[Check]:
        env.require_fields(self.documents_table, list(self.document))
        env.require_fields(self.blocks_table, ["item_id", "position", "style", "text"])
        heading_phrase = self.heading.phrase("heading", env)
        doc_phrase = where_phrase(self.document, env)
        subject = f"the section under the {self.style or ''}{' ' if self.style else ''}{heading_phrase} of the document where {doc_phrase}"
        wanted: list[tuple[str, str, Any]] = []  # (name suffix, sentence, expected)
        if self.expect is not None:
            wanted.append(("text", f"{subject}: {self.expect.phrase('text', env)}", self.expect.expected(env)))
        resolved = env.resolve(self.excludes)
        excludes = [str(x) for x in ([resolved] if isinstance(resolved, str) else resolved)]
        for i, x in enumerate(excludes):
            wanted.append((f"excludes[{i}]", f"{subject} does not mention “{x}”", {"not_contains": x}))
        if not wanted:
            wanted.append(("exists", f"{subject} exists", None))

        docs = [r for r in env.rows(self.documents_table) if match_row(self.document, r, env, self.documents_table)]
        problem, text = None, None
        if len(docs) != 1:
            problem = "no such document" if not docs else f"{len(docs)} documents match"
        else:
            blocks = sorted((b for b in env.rows(self.blocks_table) if b["item_id"] == docs[0].get("id")), key=lambda b: b["position"])
            at = next((i for i, b in enumerate(blocks) if heading_level(b["style"]) is not None and (self.style is None or b["style"] == self.style)
                       and self.heading.test(b["text"], env)), None)
            if at is None:
                problem = f"no {self.style or 'heading'} {heading_phrase} in the document"
            else:
                text = section_text(blocks, at)
        checks = []
        for suffix, sentence, expected in wanted:
            if problem:
                checks.append(self.check(suffix, sentence=sentence, passed=False, expected=expected, actual=None, detail=problem))
                continue
            if suffix == "text":
                ok = self.expect.test(text, env)
            elif suffix == "exists":
                ok = True
            else:
                ok = expected["not_contains"].lower() not in text.lower()
            checks.append(self.check(suffix, sentence=sentence, passed=ok, expected=expected, actual=text,
                                     detail=None if ok else f"the section reads {fmt(text[:300])}"))
        return checks
