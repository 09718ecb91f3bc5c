"""A small PDF writer for the world's PDF files (vendor invoices and the like): US Letter pages of text
in the PDF standard fonts (Helvetica, Helvetica-Bold), lines and rules, right-aligned amounts.

The output is plain PDF 1.4 with uncompressed content streams and no dates or ids, so the same input
gives the same bytes (the world is generated from the seed). Any PDF reader opens it; the drive shows
it with pdf.js.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

WIDTH, HEIGHT, MARGIN = 612, 792, 60
# Helvetica's and Helvetica-Bold's advance widths (1/1000 em, from their AFM files) for ASCII letters,
# digits and common punctuation; other characters count as 556. Enough to right-align exactly.
_LOWER = (556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500)
_UPPER = (667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611)
_LOWER_B = (556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500)
_UPPER_B = (722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611)
_PUNCT = {**dict.fromkeys("0123456789$", 556), ",": 278, ".": 278, " ": 278, "-": 333, "(": 333, ")": 333, "%": 889, "/": 278, ":": 278, "&": 667, "#": 556}
_PUNCT_B = {**_PUNCT, ":": 333, "&": 722, "/": 278}
_WIDTHS = {**_PUNCT, **dict(zip("abcdefghijklmnopqrstuvwxyz", _LOWER)), **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", _UPPER))}
_WIDTHS_BOLD = {**_PUNCT_B, **dict(zip("abcdefghijklmnopqrstuvwxyz", _LOWER_B)), **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", _UPPER_B))}


def text_width(text: str, size: float, bold: bool = False) -> float:
    table = _WIDTHS_BOLD if bold else _WIDTHS
    return sum(table.get(ch, 556) for ch in text) * size / 1000


def _literal(text: str) -> str:
    raw = text.encode("cp1252", errors="replace")
    out = []
    for byte in raw:
        ch = chr(byte)
        if ch in "()\\":
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return "(" + "".join(out) + ")"


_FONT_KEYS = {(False, False): "F1", (True, False): "F2", (False, True): "F3", (True, True): "F4"}
_EXTRA_FONTS = {"F3": "Helvetica-Oblique", "F4": "Helvetica-BoldOblique"}


@dataclass
class Pdf:
    title: str = ""
    pages: list[list[str]] = field(default_factory=lambda: [[]])
    y: float = HEIGHT - MARGIN
    extra_fonts: set[str] = field(default_factory=set)  # the oblique faces, written only when a page uses them

    def new_page(self) -> None:
        self.pages.append([])
        self.y = HEIGHT - MARGIN

    def _room(self, height: float) -> None:
        if self.y - height < MARGIN:
            self.new_page()

    def text(self, x: float, y: float, text: str, size: float = 10, bold: bool = False, align: str = "left", gray: float = 0.0,
             italic: bool = False, rgb: tuple[float, float, float] | None = None) -> None:
        if align == "right":
            x -= text_width(text, size, bold)
        font = _FONT_KEYS[(bold, italic)]
        if font in ("F3", "F4"):
            self.extra_fonts.add(font)
        colour = f"{rgb[0]:.3f} {rgb[1]:.3f} {rgb[2]:.3f} rg" if rgb else f"{gray:.2f} g"
        self.pages[-1].append(f"BT {colour} /{font} {size:g} Tf {x:.2f} {y:.2f} Td {_literal(text)} Tj ET")

    def rule(self, y: float, x1: float = MARGIN, x2: float = WIDTH - MARGIN, width: float = 0.6, gray: float = 0.6) -> None:
        self.pages[-1].append(f"{gray:.2f} G {width:g} w {x1:.2f} {y:.2f} m {x2:.2f} {y:.2f} l S")

    def line(self, cells: list[tuple[float, str]] | str, size: float = 10, bold: bool = False, gap: float = 1.45,
             right: tuple[float, ...] = (), gray: float = 0.0) -> float:
        """One line of text at the cursor (``cells``: (x, text) pairs; x in ``right`` aligns right), then down."""
        self._room(size * gap)
        self.y -= size * gap
        for x, t in [(MARGIN, cells)] if isinstance(cells, str) else cells:
            self.text(x, self.y, t, size, bold, "right" if x in right else "left", gray)
        return self.y

    def paragraph(self, text: str, size: float = 10, width: float = WIDTH - 2 * MARGIN, gray: float = 0.0) -> None:
        """Text wrapped to ``width`` (words measured with Helvetica's average width)."""
        words, line = text.split(), ""
        for w in words:
            trial = f"{line} {w}".strip()
            if text_width(trial, size) > width and line:
                self.line(line, size, gray=gray)
                line = w
            else:
                line = trial
        if line:
            self.line(line, size, gray=gray)

    def space(self, height: float) -> None:
        self.y -= height

    def to_bytes(self) -> bytes:
        objects: list[bytes] = []
        n_pages = len(self.pages)
        # 1 catalog, 2 pages, 3 F1, 4 F2, 5 info, then (page, contents) per page.
        kids = " ".join(f"{6 + 2 * i} 0 R" for i in range(n_pages))
        objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
        objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
        objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
        objects.append(f"<< /Title {_literal(self.title)} /Producer (OneDrive) >>".encode("latin-1"))
        # The oblique faces (documents' italics) come after the pages, so a PDF without them (the
        # seeded invoices) keeps its bytes.
        extra = sorted(self.extra_fonts)
        fonts = "/F1 3 0 R /F2 4 0 R" + "".join(f" /{f} {6 + 2 * n_pages + k} 0 R" for k, f in enumerate(extra))
        for i, ops in enumerate(self.pages):
            stream = "\n".join(ops).encode("latin-1")
            objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH} {HEIGHT}] /Resources << /Font << {fonts} >> >> "
                           f"/Contents {7 + 2 * i} 0 R >>".encode())
            objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        for f in extra:
            objects.append(f"<< /Type /Font /Subtype /Type1 /BaseFont /{_EXTRA_FONTS[f]} /Encoding /WinAnsiEncoding >>".encode())
        out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for n, body in enumerate(objects, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
        out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
        out += b"trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
        return bytes(out)


# -- a document saved as PDF (Word's Export > Save as PDF) -------------------------------------------
# Word's default look, in the standard fonts: the Title large, headings bold in Word's heading blue,
# body text 11 pt; lists indented with their bullet or number; a "Page n of N" footer.
_STYLE = {  # style: (size, bold, colour, space before, space after)
    "Title": (24, False, (0.0, 0.0, 0.0), 0, 10),
    "Heading 1": (16, True, (0.184, 0.329, 0.588), 14, 4),
    "Heading 2": (13, True, (0.184, 0.329, 0.588), 10, 3),
    "Heading 3": (11.5, True, (0.122, 0.216, 0.388), 8, 2),
    "Normal": (11, False, None, 0, 6),
    "List Bullet": (11, False, None, 0, 3),
    "List Number": (11, False, None, 0, 3),
}
_INDENT = 22  # a list item's text, right of its marker
_FOOTER_Y = 36


def _pieces(runs: list[dict], bold_style: bool) -> list[tuple[str, bool, bool, bool]]:
    """The paragraph as (word or space, bold, italic, underline) pieces, in order."""
    out = []
    for r in runs:
        for piece in re.findall(r"\S+|\s+", r.get("text", "")):
            out.append((" " if piece.isspace() else piece, bold_style or bool(r.get("bold")), bool(r.get("italic")), bool(r.get("underline"))))
    return out


def _wrap(pieces: list[tuple[str, bool, bool, bool]], size: float, width: float) -> list[list[tuple[str, bool, bool, bool]]]:
    """Lines of pieces no wider than ``width`` (a word longer than a line is cut where it overflows)."""
    lines: list[list[tuple[str, bool, bool, bool]]] = [[]]
    used = 0.0
    for text, bold, italic, under in pieces:
        w = text_width(text, size, bold)
        if text == " ":
            if lines[-1]:
                lines[-1].append((text, bold, italic, under))
                used += w
            continue
        if used + w > width and lines[-1]:
            while lines[-1] and lines[-1][-1][0] == " ":
                lines[-1].pop()
            lines.append([])
            used = 0.0
        while w > width:  # an unbreakable word: as many characters as fit, then the rest below
            n = len(text)
            while n > 1 and text_width(text[:n], size, bold) > width:
                n -= 1
            lines[-1].append((text[:n], bold, italic, under))
            lines.append([])
            text, w = text[n:], text_width(text[n:], size, bold)
        lines[-1].append((text, bold, italic, under))
        used += w
    while lines[-1] and lines[-1][-1][0] == " ":
        lines[-1].pop()
    return [ln for ln in lines if ln] or [[]]


def document_pdf(title: str, blocks: list[dict]) -> tuple[bytes, str]:
    """A document's blocks drawn as a PDF, and the text it holds in page order (a paragraph a line, its
    wrapped lines joined; list items with their bullet or number). The same blocks give the same bytes."""
    doc = Pdf(title=title)
    text_lines: list[str] = []
    number = 0
    width = WIDTH - 2 * MARGIN
    for i, b in enumerate(blocks):
        style = b.get("style", "Normal")
        if style == "Table":
            number = 0
            if doc.pages[-1] and doc.y < HEIGHT - MARGIN:
                doc.space(4)
            text_lines += _table(doc, b.get("rows", []), width)
            doc.space(8)
            continue
        size, bold_style, rgb, before, after = _STYLE.get(style, _STYLE["Normal"])
        number = number + 1 if style == "List Number" else 0
        marker = "\u2022" if style == "List Bullet" else f"{number}." if style == "List Number" else ""
        left = MARGIN + (_INDENT + 14 if marker else 0)
        lines = _wrap(_pieces(b.get("runs", []), bold_style), size, width - (left - MARGIN))
        leading = size * 1.3
        if doc.pages[-1] and doc.y < HEIGHT - MARGIN:
            doc.space(before)
        keep = leading * (len(lines) if len(lines) <= 2 else 1) + (leading * 2 if style in ("Title",) or style.startswith("Heading") else 0)
        if doc.y - keep < MARGIN:  # a heading keeps with the next lines; a short paragraph stays whole
            doc.new_page()
        shown: list[str] = []
        for k, line in enumerate(lines):
            doc._room(leading)
            doc.y -= leading
            if k == 0 and marker:
                doc.text(MARGIN + 14, doc.y, marker, size, style == "List Number" and bold_style)
            x = left
            for text, bold, italic, under in _merge(line):
                doc.text(x, doc.y, text, size, bold, italic=italic, rgb=rgb)
                w = text_width(text, size, bold)
                if under:
                    doc.rule(doc.y - size * 0.15, x, x + w, width=size / 18, gray=0.0)
                x += w
            shown.append("".join(p[0] for p in line))
        text_lines.append((f"{marker} " if marker else "") + " ".join(s for s in shown if s))
        doc.space(after)
    total = len(doc.pages)
    for n, ops in enumerate(doc.pages, start=1):
        label = f"Page {n} of {total}"
        ops.append(f"BT 0.35 g /F1 9 Tf {(WIDTH - text_width(label, 9)) / 2:.2f} {_FOOTER_Y} Td {_literal(label)} Tj ET")
    return doc.to_bytes(), "\n".join(text_lines).strip("\n")


_CELL_SIZE, _CELL_PAD = 10.5, 5


def _table(doc: Pdf, rows: list[list[list[dict]]], width: float) -> list[str]:
    """A table as Word's Table Grid draws it: equal columns the page's width, every cell bordered, a
    row's text wrapped in its cell and the row as tall as its tallest cell; a row doesn't split across
    pages. Returns the rows' texts (cells joined by tabs)."""
    cols = max((len(r) for r in rows), default=0)
    if not cols:
        return []
    colw = width / cols
    leading = _CELL_SIZE * 1.3
    out = []
    for row in rows:
        wrapped = [_wrap(_pieces(cell, False), _CELL_SIZE, colw - 2 * _CELL_PAD) if cell else [[]] for cell in row]
        height = max(len(w) for w in wrapped) * leading + 2 * _CELL_PAD
        doc._room(height)
        top = doc.y
        for c, lines in enumerate(wrapped):
            y = top - _CELL_PAD
            for line in lines:
                y -= leading
                x = MARGIN + c * colw + _CELL_PAD
                for text, bold, italic, under in _merge(line):
                    doc.text(x, y + 3, text, _CELL_SIZE, bold, italic=italic)
                    w = text_width(text, _CELL_SIZE, bold)
                    if under:
                        doc.rule(y + 3 - _CELL_SIZE * 0.15, x, x + w, width=_CELL_SIZE / 18, gray=0.0)
                    x += w
        bottom = top - height
        ops = doc.pages[-1]
        ops.append(f"0.00 G 0.5 w {MARGIN:.2f} {bottom:.2f} {width:.2f} {height:.2f} re S")
        for c in range(1, cols):
            x = MARGIN + c * colw
            ops.append(f"0.00 G 0.5 w {x:.2f} {top:.2f} m {x:.2f} {bottom:.2f} l S")
        doc.y = bottom
        out.append("\t".join(" ".join("".join(p[0] for p in ln) for ln in lines if ln) for lines in wrapped))
    return out


def _merge(line: list[tuple[str, bool, bool, bool]]) -> list[tuple[str, bool, bool, bool]]:
    """Neighbouring pieces in the same face joined into one text-showing operation."""
    out: list[tuple[str, bool, bool, bool]] = []
    for p in line:
        if out and out[-1][1:] == p[1:]:
            out[-1] = (out[-1][0] + p[0], *p[1:])
        else:
            out.append(p)
    return out
