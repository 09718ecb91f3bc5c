"""A small PDF writer for the world's PDF files (vendor invoices and the like): US Letter pages of text
in the PDF standard fonts (Helvetica, Helvetica-Bold), lines and rules, right-aligned amounts.

The output is plain PDF 1.4 with uncompressed content streams and no dates or ids, so the same input
gives the same bytes (the world is generated from the seed). Any PDF reader opens it; the drive shows
it with pdf.js.
"""

from __future__ import annotations

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


@dataclass
class Pdf:
    title: str = ""
    pages: list[list[str]] = field(default_factory=lambda: [[]])
    y: float = HEIGHT - MARGIN

    def new_page(self) -> None:
        self.pages.append([])
        self.y = HEIGHT - MARGIN

    def _room(self, height: float) -> None:
        if self.y - height < MARGIN:
            self.new_page()

    def text(self, x: float, y: float, text: str, size: float = 10, bold: bool = False, align: str = "left", gray: float = 0.0) -> None:
        if align == "right":
            x -= text_width(text, size, bold)
        font = "F2" if bold else "F1"
        self.pages[-1].append(f"BT {gray:.2f} g /{font} {size:g} Tf {x:.2f} {y:.2f} Td {_literal(text)} Tj ET")

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
        for i, ops in enumerate(self.pages):
            stream = "\n".join(ops).encode("latin-1")
            objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH} {HEIGHT}] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> "
                           f"/Contents {7 + 2 * i} 0 R >>".encode())
            objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
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
