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
from .conditions import Count, FieldCond, Where, match_row, where_phrase, where_refs

from .values import EvaluationError, fmt
from .verdict import Check


def heading_level(style: str | None) -> int | None:
    """0 for Title, n for Heading n, None for body text."""
    if style == "Title":
        return 0
    if style and style.startswith("Heading ") and style[8:].isdigit():
        return int(style[8:])
    return None


def section_span(blocks: list[dict[str, Any]], index: int) -> range:
    """The blocks under the heading at ``blocks[index]``, up to the next heading of the same or a
    higher level (blocks in document order)."""
    level = heading_level(blocks[index].get("style"))
    end = next((j for j in range(index + 1, len(blocks)) if level is not None
                and (lv := heading_level(blocks[j].get("style"))) is not None and lv <= level), len(blocks))
    return range(index + 1, end)


def section_text(blocks: list[dict[str, Any]], index: int) -> str:
    """The text under the heading at ``blocks[index]`` (blocks in document order)."""
    return "\n".join(blocks[j].get("text") or "" for j in section_span(blocks, index))


def document_blocks(env: Env, document: Where, documents_table: str, blocks_table: str) -> tuple[list[dict[str, Any]] | None, str]:
    """The blocks of the one document matching ``document``, in order; or None and why not."""
    docs = [r for r in env.rows(documents_table) if match_row(document, r, env, documents_table)]
    if len(docs) != 1:
        return None, "no such document" if not docs else f"{len(docs)} documents match"
    return sorted((b for b in env.rows(blocks_table) if b["item_id"] == docs[0].get("id")), key=lambda b: b["position"]), ""


def find_heading(blocks: list[dict[str, Any]], heading: FieldCond, style: str | None, env: Env) -> int | None:
    """The index of the first heading (of ``style`` if given) whose text meets ``heading``."""
    return next((i for i, b in enumerate(blocks) if heading_level(b["style"]) is not None and (style is None or b["style"] == style)
                 and heading.test(b["text"], env)), None)


class _DocumentCheck(CheckSpec):
    """What the checks on one document's blocks share: which document, in which tables."""

    document: Where
    documents_table: str = "drive_item"
    blocks_table: str = "drive_block"

    def references(self) -> Iterator[tuple[str, str, str | None]]:
        yield "documents_table", self.documents_table, None
        yield from where_refs(self.document, self.documents_table, "document")
        for f in ("item_id", "position", "style", "text"):
            yield "blocks_table", self.blocks_table, f


class SectionSpec(_DocumentCheck):
    """The text under a heading of one document meets ``expect`` and holds none of ``excludes``."""

    kind: Literal["section"] = "section"
    heading: FieldCond
    style: str | None = None
    expect: FieldCond | None = None
    excludes: list[str] | str = Field(default_factory=list)  # or a parameter holding a list

    def default_name(self) -> str:
        return "section"

    def describe(self) -> str:
        return self.sentence or f"the section {self.heading.phrase('heading')} of the document where {where_phrase(self.document)}"

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

        blocks, problem = document_blocks(env, self.document, self.documents_table, self.blocks_table)
        text = None
        if blocks is not None:
            at = find_heading(blocks, self.heading, self.style, env)
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


# -- tables ------------------------------------------------------------------------------------
TABLE_STYLE = "Table"


def table_rows(text: str) -> list[list[str]]:
    """A table block's cells from its text (cells joined by tabs, rows by new lines)."""
    return [line.split("\t") for line in (text or "").split("\n")]


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).casefold()


def cell_number(text: Any) -> float | None:
    """A cell's number as written in a document: "$14,400.00", "1 200", "(300)", "12%" (as 12)."""
    s = str(text).strip().replace(",", "").replace("\u00a0", "").replace(" ", "")
    neg = s.startswith("(") and s.endswith(")")
    s = s.strip("()").lstrip("$€£").rstrip("%")
    if s.startswith("-"):
        neg, s = True, s[1:].lstrip("$€£")
    try:
        n = float(s)
    except ValueError:
        return None
    return -n if neg else n


def cell_matches(cond: Any, text: str, env: Env) -> bool:
    """A plain value matches a cell that reads it (ignoring case and spacing) or the same number
    however formatted; a dict is a condition on the cell's text (``{contains: ...}``, ``{regex: ...}``)."""
    if isinstance(cond, FieldCond):
        return cond.test(text, env)
    want = env.resolve(cond)
    if want is None:
        return not text.strip()
    if _norm(want) == _norm(text):
        return True
    a, b = cell_number(want), cell_number(text)
    return a is not None and b is not None and abs(a - b) < 0.005


def _cond(v: Any) -> Any:
    return FieldCond.model_validate(v) if isinstance(v, dict) else v  # rows from a parameter are plain data


def _cond_phrase(v: Any, env: Env) -> str:
    return v.phrase("", env).strip() if isinstance(v, FieldCond) else f"“{env.resolve(v)}”"


class TableSpec(_DocumentCheck):
    """A table of one document: found by the heading it sits under and/or its header row (its first
    row), then its body rows (the rows below the header) counted and matched by column::

        - kind: table
          document: {id: "{{ doc.id }}"}
          heading: {iequals: Pricing}           # optional: the first table under this heading
          header: [Product, Quantity, Amount]   # optional: the table whose first row reads so (ignoring case)
          rows: 3                               # optional: how many body rows (a count: 3, {at_least: 2})
          contains_rows:                        # optional: rows that must be there (each matched once)
            - {Product: Cloud Suite, Quantity: 12, Amount: 14400}
          only: true                            # optional: and no other body rows

    Without heading and header it is the document's first table. Row keys are header texts (ignoring
    case); a plain value matches a cell that reads it or the same number however formatted ("$14,400.00"
    is 14400), a dict is a condition on the cell's text. ``contains_rows`` may be a task parameter
    holding a list of such dicts (e.g. rows of an SQL parameter); ``columns`` then names the header
    each of their keys stands for (``{product: "{{ cols.p }}", qty: Quantity}``). Each of ``rows``, every expected row and ``only`` is one check.
    """

    kind: Literal["table"] = "table"
    heading: FieldCond | None = None
    style: str | None = None
    header: list[str] | str | None = None  # or a parameter holding a list
    rows: Count | None = None
    contains_rows: list[dict[str, str | int | float | bool | None | FieldCond]] | str = Field(default_factory=list)
    only: bool = False
    columns: dict[str, str] = Field(default_factory=dict)  # a row key -> the header it names (e.g. SQL columns -> headers)

    def default_name(self) -> str:
        return "table"

    def describe(self) -> str:
        return self.sentence or f"the table{' under the ' + self.heading.phrase('heading') if self.heading else ''} of the document where {where_phrase(self.document)}"

    def _find(self, env: Env) -> tuple[list[list[str]] | None, str]:
        """The table's rows of cell texts, or None and why not."""
        blocks, problem = document_blocks(env, self.document, self.documents_table, self.blocks_table)
        if blocks is None:
            return None, problem
        span = range(len(blocks))
        if self.heading is not None:
            at = find_heading(blocks, self.heading, self.style, env)
            if at is None:
                return None, f"no {self.style or 'heading'} {self.heading.phrase('heading', env).removeprefix('heading ')} in the document"
            span = section_span(blocks, at)
        tables = [table_rows(blocks[i]["text"]) for i in span if blocks[i]["style"] == TABLE_STYLE]
        where = "under that heading" if self.heading is not None else "in the document"
        if not tables:
            return None, f"no table {where}"
        header = self._header(env)
        if header is None:
            return tables[0], ""
        for t in tables:
            if [_norm(c) for c in t[0]] == [_norm(h) for h in header]:
                return t, ""
        return None, f"no table {where} has the header row {' | '.join(header)} (found: " + "; ".join(" | ".join(t[0]) for t in tables) + ")"

    def _header(self, env: Env) -> list[str] | None:
        if self.header is None:
            return None
        h = env.resolve(self.header)
        return [str(x) for x in ([h] if isinstance(h, str) else h)]

    def _expected_rows(self, env: Env) -> list[dict[str, Any]]:
        got = env.resolve(self.contains_rows) if isinstance(self.contains_rows, str) else self.contains_rows
        if not isinstance(got, list) or not all(isinstance(r, dict) for r in got):
            raise EvaluationError(f"contains_rows must be a list of {{column: value}} (it is {got!r})")
        return [{k: _cond(v) for k, v in r.items()} for r in got]

    def evaluate(self, env: Env) -> list[Check]:
        env.require_fields(self.documents_table, list(self.document))
        env.require_fields(self.blocks_table, ["item_id", "position", "style", "text"])
        subject = self.describe() if self.sentence else (
            f"the table{' under the ' + self.heading.phrase('heading', env) if self.heading else ''} of the document where {where_phrase(self.document, env)}")
        expected = self._expected_rows(env)
        table, problem = self._find(env)
        head = table[0] if table else []
        body = table[1:] if table else []
        cols = {_norm(h): i for i, h in reversed(list(enumerate(head)))}
        checks: list[Check] = []
        shown = "the table reads " + fmt(" / ".join(" | ".join(r) for r in (table or []))[:400])
        if self.rows is not None:
            count = self.rows.resolved(env)
            ok = table is not None and count.ok(len(body))
            checks.append(self.check("rows", sentence=f"{subject} has {count.phrase()} row{'s' if count.expected() != {'exactly': 1} else ''} below its header",
                                     passed=ok, expected=count.expected(), actual=len(body) if table else None, detail=problem or (None if ok else shown)))
        used: set[int] = set()

        def col(k: str) -> str:
            return str(env.resolve(self.columns[k])) if k in self.columns else k

        def row_ok(want: dict[str, Any], row: list[str]) -> bool:
            for k, cond in want.items():
                i = cols.get(_norm(col(k)))
                if i is None:
                    return False
                if not cell_matches(cond, row[i] if i < len(row) else "", env):
                    return False
            return True

        for n, want in enumerate(expected):
            phrase = ", ".join(f"{col(k)} {_cond_phrase(v, env)}" for k, v in want.items())
            missing = [col(k) for k in want if _norm(col(k)) not in cols]
            hit = None if table is None or missing else next((i for i, r in enumerate(body) if i not in used and row_ok(want, r)), None)
            if hit is not None:
                used.add(hit)
            detail = problem or (f"the table has no column {', '.join(missing)} (its header row: {' | '.join(head)})" if missing else None if hit is not None else shown)
            checks.append(self.check(f"row[{n}]", sentence=f"{subject} has a row with {phrase}", passed=hit is not None,
                                     expected={col(k): (v.expected(env) if isinstance(v, FieldCond) else env.resolve(v)) for k, v in want.items()},
                                     actual=body[hit] if hit is not None else None, detail=detail))
        if self.only:
            extra = [r for i, r in enumerate(body) if i not in used and not any(row_ok(w, r) for w in expected)]
            ok = table is not None and not extra and len(body) == len(expected)
            checks.append(self.check("only", sentence=f"{subject} has no other rows than those", passed=ok, expected=len(expected),
                                     actual=len(body) if table else None,
                                     detail=problem or (None if ok else ("other rows: " + "; ".join(" | ".join(r) for r in extra) if extra else shown))))
        if not checks:
            checks.append(self.check("exists", sentence=f"{subject} exists", passed=table is not None, expected=None, actual=None, detail=problem or None))
        return checks
