"""The spreadsheet's formula engine: parse Excel formulas, evaluate a workbook, report errors as Excel.

No well-kept Apache-compatible library evaluates a live grid cell by cell without an .xlsx round trip
(xlcalculator reads a workbook file through openpyxl and is built for whole-model evaluation), so this
module is a small, complete evaluator of the formulas the app documents: arithmetic (+ - * / ^ %, &,
comparisons) over references (A1, $A$1, Sheet2!B3, 'Q3 plan'!A1:C9, A:A), and the functions in
``FUNCTIONS``. Errors are Excel's: #DIV/0!, #REF!, #NAME?, #VALUE!, #N/A, #NUM!; a circular reference
evaluates to 0 and is reported, as Excel's status bar does.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Callable, Iterable

MAX_ROWS = 10_000
MAX_COLS = 200


class XlError(Exception):
    """An Excel error value (it is also raised to short-circuit evaluation)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code

    def __eq__(self, other: object) -> bool:
        return isinstance(other, XlError) and other.code == self.code

    def __hash__(self) -> int:
        return hash(self.code)


DIV0, REF, NAME, VALUE, NA, NUM = (XlError(c) for c in ("#DIV/0!", "#REF!", "#NAME?", "#VALUE!", "#N/A", "#NUM!"))
ERROR_CODES = {e.code for e in (DIV0, REF, NAME, VALUE, NA, NUM)}
CIRCULAR = "circular"  # stored in a cell's error field; the value shown is 0


class Circular(Exception):
    pass


# -- cell addresses ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def col_name(col: int) -> str:
    out = ""
    while col:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


def col_number(name: str) -> int:
    n = 0
    for ch in name.upper():
        n = n * 26 + ord(ch) - 64
    return n


@functools.lru_cache(maxsize=1 << 16)
def ref_name(row: int, col: int) -> str:
    return f"{col_name(col)}{row}"


def parse_ref(ref: str) -> tuple[int, int]:
    m = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?(\d+)", ref.strip())
    if not m:
        raise ValueError(f"“{ref}” is not a cell reference like B7.")
    row, col = int(m.group(2)), col_number(m.group(1))
    if not (1 <= row <= MAX_ROWS and 1 <= col <= MAX_COLS):
        raise ValueError(f"“{ref}” is outside the sheet.")
    return row, col


# -- tokenizer --------------------------------------------------------------------------------
TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<string>"(?:[^"]|"")*")
  | (?P<badref>\#REF!(?:\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?|\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3})(?![\w(]))
  | (?P<error>\#(?:DIV/0!|REF!|NAME\?|VALUE!|N/A|NUM!))
  | (?P<ref>(?:(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?(?![\w(]))
  | (?P<colrange>(?:(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}(?![\w(]))
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<func>[A-Za-z_][\w.]*(?=\())
  | (?P<name>[A-Za-z_][\w.]*)
  | (?P<op><>|<=|>=|[-+*/^&=<>%(),:;])
""", re.VERBOSE)


def tokenize(src: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m:
            raise XlError("#NAME?")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    return out


# -- parser: formula text -> a small tree of tuples -----------------------------------------------
BINARY = {"=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1, "&": 2, "+": 3, "-": 3, "*": 4, "/": 4, "^": 5}


class Parser:
    def __init__(self, tokens: list[tuple[str, str]], sheet: str) -> None:
        self.t, self.i, self.sheet = tokens, 0, sheet

    def peek(self) -> tuple[str, str] | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise XlError("#VALUE!")
        self.i += 1
        return tok

    def parse(self):  # noqa: ANN201
        node = self.expr(0)
        if self.peek() is not None:
            raise XlError("#VALUE!")
        return node

    def expr(self, min_prec: int):  # noqa: ANN201
        left = self.unary()
        while True:
            tok = self.peek()
            if tok is None or tok[0] != "op" or tok[1] not in BINARY or BINARY[tok[1]] < min_prec:
                return left
            self.take()
            prec = BINARY[tok[1]]
            right = self.expr(prec if tok[1] == "^" else prec + 1)
            left = ("bin", tok[1], left, right)

    def unary(self):  # noqa: ANN201
        tok = self.peek()
        if tok and tok == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        if tok and tok == ("op", "+"):
            self.take()
            return self.unary()
        node = self.primary()
        while self.peek() == ("op", "%"):
            self.take()
            node = ("pct", node)
        return node

    def _sheet_and(self, text: str) -> tuple[str, str]:
        if "!" in text:
            sheet, rest = text.rsplit("!", 1)
            if sheet.startswith("'"):
                sheet = sheet[1:-1].replace("''", "'")
            return sheet, rest
        return self.sheet, text

    def primary(self):  # noqa: ANN201
        kind, text = self.take()
        if kind == "number":
            return ("num", float(text))
        if kind == "string":
            return ("str", text[1:-1].replace('""', '"'))
        if kind == "error":
            return ("err", text)
        if kind == "badref":  # a reference to a deleted sheet, as Excel rewrites it: #REF!B3
            return ("err", "#REF!")
        if kind == "ref":
            sheet, rest = self._sheet_and(text)
            if ":" in rest:
                a, b = rest.split(":")
                (r1, c1), (r2, c2) = parse_ref(a), parse_ref(b)
                return ("range", sheet, min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2))
            r, c = parse_ref(rest)
            return ("ref", sheet, r, c)
        if kind == "colrange":
            sheet, rest = self._sheet_and(text)
            a, b = (col_number(x.replace("$", "")) for x in rest.split(":"))
            return ("range", sheet, 1, min(a, b), None, max(a, b))
        if kind == "func":
            name = text.upper()
            self.take()  # (
            args = []
            if self.peek() == ("op", ")"):
                self.take()
                return ("call", name, args)
            while True:
                if self.peek() in (("op", ","), ("op", ")")):
                    args.append(("blank",))
                else:
                    args.append(self.expr(0))
                sep = self.take()
                if sep == ("op", ")"):
                    return ("call", name, args)
                if sep not in (("op", ","), ("op", ";")):
                    raise XlError("#VALUE!")
        if kind == "name":
            up = text.upper()
            if up in ("TRUE", "FALSE"):
                return ("bool", up == "TRUE")
            return ("err", "#NAME?")
        if (kind, text) == ("op", "("):
            node = self.expr(0)
            if self.take() != ("op", ")"):
                raise XlError("#VALUE!")
            return node
        raise XlError("#VALUE!")


def parse_formula(formula: str, sheet: str):  # noqa: ANN201
    """The tree of ``formula`` (without its "="); raises XlError for text that is no formula."""
    return Parser(tokenize(formula), sheet).parse()


_PARSED: dict[tuple[str, str], Any] = {}


def parsed(formula: str, sheet: str):  # noqa: ANN201
    """``parse_formula`` remembered across calls (a workbook's formulas are parsed once per process,
    not on every edit); an XlError of a text that is no formula is remembered and raised again."""
    key = (formula, sheet)
    tree = _PARSED.get(key)
    if tree is None:
        try:
            tree = parse_formula(formula, sheet)
        except XlError as e:
            tree = e
        if len(_PARSED) > 200_000:
            _PARSED.clear()
        _PARSED[key] = tree
    if isinstance(tree, XlError):
        raise XlError(tree.code)
    return tree


def precedents(tree) -> list[tuple[str, int, int, int | None, int]]:  # noqa: ANN001
    """The areas a formula's tree reads: (sheet as written, first row, first col, last row or None
    for whole columns, last col)."""
    out: list[tuple[str, int, int, int | None, int]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        kind = node[0]
        if kind == "ref":
            out.append((node[1], node[2], node[3], node[2], node[3]))
        elif kind == "range":
            out.append(node[1:])
        elif kind in ("neg", "pct"):
            stack.append(node[1])
        elif kind == "bin":
            stack.extend((node[2], node[3]))
        elif kind == "call":
            stack.extend(node[2])
    return out


# -- values -------------------------------------------------------------------------------------
def literal(text: str) -> Any:
    """What typing ``text`` into a cell stores: a number, a boolean, an error or text."""
    s = text.strip()
    if s == "":
        return None
    if s.upper() in ("TRUE", "FALSE"):
        return s.upper() == "TRUE"
    if s.upper() in ERROR_CODES:
        return XlError(s.upper())
    t = s.replace(",", "") if re.fullmatch(r"-?\$?\d{1,3}(,\d{3})+(\.\d+)?|-?\$?\d+(\.\d+)?%?|-?\$?\.\d+", s) else None
    if t is not None:
        pct = t.endswith("%")
        t = t.rstrip("%").replace("$", "")
        try:
            v = float(t)
            return v / 100 if pct else v
        except ValueError:
            pass
    return text


def to_number(v: Any) -> float:
    if isinstance(v, XlError):
        raise v
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if v is None:
        return 0.0
    if isinstance(v, (int, float)):
        return float(v)
    lit = literal(str(v))
    if isinstance(lit, float):
        return lit
    raise XlError("#VALUE!")


def to_text(v: Any) -> str:
    if isinstance(v, XlError):
        raise v
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return format_number(v)
    return str(v)


def to_bool(v: Any) -> bool:
    if isinstance(v, XlError):
        raise v
    if isinstance(v, str):
        if v.upper() in ("TRUE", "FALSE"):
            return v.upper() == "TRUE"
        raise XlError("#VALUE!")
    return bool(to_number(v))


def format_number(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.10g}"


def display(v: Any) -> str:
    """A value as the grid shows it."""
    if isinstance(v, XlError):
        return v.code
    return to_text(v)


# -- evaluation ----------------------------------------------------------------------------------
@dataclass
class Range:
    values: list[list[Any]]  # rows of values

    def flat(self) -> list[Any]:
        return [v for row in self.values for v in row]


class Workbook:
    """Evaluates every formula of a workbook: ``inputs`` maps sheet name -> {(row, col): text typed}."""

    def __init__(self, inputs: dict[str, dict[tuple[int, int], str]]) -> None:
        self.inputs = inputs
        self.upper = {name.upper(): name for name in inputs}
        self.values: dict[tuple[str, int, int], Any] = {}
        self.circular: set[tuple[str, int, int]] = set()
        self._stack: list[tuple[str, int, int]] = []
        self._on_stack: set[tuple[str, int, int]] = set()

    def sheet_name(self, name: str) -> str:
        real = self.upper.get(name.upper())
        if real is None:
            raise XlError("#REF!")
        return real

    def value(self, sheet: str, row: int, col: int) -> Any:
        sheet = self.sheet_name(sheet)
        key = (sheet, row, col)
        if key in self.values:
            return self.values[key]
        if key in self._on_stack:
            # Every cell on the loop is circular (Excel lists them; the loop's cells show 0).
            i = self._stack.index(key)
            self.circular.update(self._stack[i:])
            raise Circular()
        text = self.inputs[sheet].get((row, col))
        if text is None or not text.startswith("=") or len(text) == 1:
            v = literal(text) if text is not None else None
            self.values[key] = v
            return v
        self._stack.append(key)
        self._on_stack.add(key)
        try:
            try:
                v = self.eval(parsed(text[1:], sheet))
                if isinstance(v, Range):
                    v = v.values[0][0] if v.values and v.values[0] else None
                if v is None:
                    v = 0.0
            except XlError as e:
                v = e
            except Circular:
                v = 0.0
                self.circular.add(key)
            except RecursionError:
                v = 0.0
                self.circular.add(key)
        finally:
            self._stack.pop()
            self._on_stack.discard(key)
        if key in self.circular:
            v = 0.0
        self.values[key] = v
        return v

    def evaluate_all(self) -> dict[tuple[str, int, int], Any]:
        for sheet, cells in self.inputs.items():
            for (row, col) in sorted(cells):
                try:
                    self.value(sheet, row, col)
                except Circular:
                    self.values[(sheet, row, col)] = 0.0
        for key in self.circular:
            self.values[key] = 0.0
        return self.values

    def max_row(self, sheet: str) -> int:
        cells = self.inputs.get(self.sheet_name(sheet), {})
        return max((r for r, _ in cells), default=1)

    def range(self, sheet: str, r1: int, c1: int, r2: int | None, c2: int) -> Range:
        r2 = r2 if r2 is not None else self.max_row(sheet)
        return Range([[self.value(sheet, r, c) for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)])

    def eval(self, node) -> Any:  # noqa: ANN001
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "str":
            return node[1]
        if kind == "bool":
            return node[1]
        if kind == "blank":
            return None
        if kind == "err":
            raise XlError(node[1])
        if kind == "ref":
            v = self.value(node[1], node[2], node[3])
            if isinstance(v, XlError):
                raise v
            return v
        if kind == "range":
            return self.range(*node[1:])
        if kind == "neg":
            return -to_number(self.scalar(node[1]))
        if kind == "pct":
            return to_number(self.scalar(node[1])) / 100
        if kind == "bin":
            return self.binary(node[1], self.scalar(node[2]), self.scalar(node[3]))
        if kind == "call":
            fn = FUNCTIONS.get(node[1])
            if fn is None:
                raise XlError("#NAME?")
            lazy = node[1] in LAZY
            args = node[2] if lazy else [self.eval(a) for a in node[2]]
            return fn(self, *args)
        raise XlError("#VALUE!")

    def scalar(self, node) -> Any:  # noqa: ANN001
        v = self.eval(node)
        if isinstance(v, Range):
            if len(v.values) == 1 and len(v.values[0]) == 1:
                v = v.values[0][0]
            else:
                raise XlError("#VALUE!")
        if isinstance(v, XlError):
            raise v
        return v

    @staticmethod
    def binary(op: str, a: Any, b: Any) -> Any:
        if op == "&":
            return to_text(a) + to_text(b)
        if op in ("=", "<>", "<", ">", "<=", ">="):
            x, y = _comparable(a), _comparable(b)
            if type(x[1]) is not type(y[1]):
                res = {"=": False, "<>": True}.get(op)
                if res is not None:
                    return res
                x, y = (x[0], 0), (y[0], 0)
            return {"=": x == y, "<>": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]
        x, y = to_number(a), to_number(b)
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            if y == 0:
                raise XlError("#DIV/0!")
            return x / y
        if op == "^":
            try:
                return float(x ** y)
            except (OverflowError, ZeroDivisionError, TypeError):
                raise XlError("#NUM!") from None
        raise XlError("#VALUE!")


def _comparable(v: Any) -> tuple[int, Any]:
    """Excel orders numbers < text < booleans; text compares without case."""
    if v is None:
        return (0, 0.0)
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, (int, float)):
        return (0, float(v))
    return (1, str(v).lower())


# -- functions -----------------------------------------------------------------------------------
def _values(args: Iterable[Any], only_numbers_in_ranges: bool = True) -> list[float]:
    out = []
    for a in args:
        if isinstance(a, Range):
            for v in a.flat():
                if isinstance(v, XlError):
                    raise v
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    out.append(float(v))
        elif a is not None:
            out.append(to_number(a))
    return out


def _criterion(crit: Any) -> Callable[[Any], bool]:
    """COUNTIF's criteria: 5, ">5", "<>x", "=x", "ab*" (wildcards), text matched without case."""
    if isinstance(crit, XlError):
        raise crit
    if isinstance(crit, (int, float)) and not isinstance(crit, bool):
        return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and float(v) == float(crit)
    s = to_text(crit)
    m = re.match(r"(<>|<=|>=|=|<|>)?(.*)", s, re.S)
    op, rest = m.group(1) or "=", m.group(2)
    target = literal(rest) if rest != "" else None
    if isinstance(target, float):
        def num(v: Any) -> bool:
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                return op == "<>"
            x = float(v)
            return {"=": x == target, "<>": x != target, "<": x < target, ">": x > target, "<=": x <= target, ">=": x >= target}[op]
        return num
    pattern = re.compile("^" + re.escape(rest.lower()).replace(r"\*", ".*").replace(r"\?", ".") + "$", re.S)

    def txt(v: Any) -> bool:
        if v is None or v == "":
            hit = rest == ""
        elif isinstance(v, str):
            if op in ("<", ">", "<=", ">="):
                a, b = v.lower(), rest.lower()
                return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
            hit = bool(pattern.match(v.lower()))
        else:
            hit = False
        return not hit if op == "<>" else hit if op == "=" else False
    return txt


def _pairs(args: tuple[Any, ...]) -> list[tuple[list[Any], Callable[[Any], bool]]]:
    if len(args) % 2:
        raise XlError("#VALUE!")
    out = []
    size = None
    for rng, crit in zip(args[::2], args[1::2]):
        if not isinstance(rng, Range):
            raise XlError("#VALUE!")
        flat = rng.flat()
        if size is not None and len(flat) != size:
            raise XlError("#VALUE!")
        size = len(flat)
        out.append((flat, _criterion(crit)))
    return out


def _match_all(pairs, i: int) -> bool:  # noqa: ANN001
    return all(test(flat[i]) for flat, test in pairs)


def f_sumifs(wb, sum_range, *args):  # noqa: ANN001, ANN201
    pairs = _pairs(args)
    values = sum_range.flat() if isinstance(sum_range, Range) else [sum_range]
    if pairs and len(values) != len(pairs[0][0]):
        raise XlError("#VALUE!")
    return sum(float(values[i]) for i in range(len(values)) if _match_all(pairs, i) and isinstance(values[i], (int, float)) and not isinstance(values[i], bool))


def f_sumif(wb, rng, crit, sum_range=None):  # noqa: ANN001, ANN201
    return f_sumifs(wb, sum_range if isinstance(sum_range, Range) else rng, rng, crit)


def f_countifs(wb, *args):  # noqa: ANN001, ANN201
    pairs = _pairs(args)
    return float(sum(1 for i in range(len(pairs[0][0])) if _match_all(pairs, i)))


def f_averageif(wb, rng, crit, avg_range=None):  # noqa: ANN001, ANN201
    target = avg_range if isinstance(avg_range, Range) else rng
    pairs = _pairs((rng, crit))
    vals = [float(v) for i, v in enumerate(target.flat()) if _match_all(pairs, i) and isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not vals:
        raise XlError("#DIV/0!")
    return sum(vals) / len(vals)


def f_average(wb, *args):  # noqa: ANN001, ANN201
    vals = _values(args)
    if not vals:
        raise XlError("#DIV/0!")
    return sum(vals) / len(vals)


def f_count(wb, *args):  # noqa: ANN001, ANN201
    n = 0
    for a in args:
        if isinstance(a, Range):
            n += sum(1 for v in a.flat() if isinstance(v, (int, float)) and not isinstance(v, bool))
        elif isinstance(a, (int, float)) and not isinstance(a, bool):
            n += 1
    return float(n)


def f_counta(wb, *args):  # noqa: ANN001, ANN201
    return float(sum(sum(1 for v in a.flat() if v not in (None, "")) if isinstance(a, Range) else int(a is not None) for a in args))


def f_if(wb, cond, yes=("bool", True), no=("bool", False)):  # noqa: ANN001, ANN201
    return wb.scalar(yes) if to_bool(wb.scalar(cond)) else wb.scalar(no) if no != ("blank",) else False


def f_iferror(wb, value, fallback):  # noqa: ANN001, ANN201
    try:
        return wb.scalar(value)
    except XlError:
        return wb.scalar(fallback)


def _round(x: float, digits: float, mode: str) -> float:
    d = int(digits)
    factor = 10.0 ** d
    y = abs(x) * factor
    y = math.floor(y + 0.5 + 1e-9) if mode == "half" else math.ceil(y - 1e-9) if mode == "up" else math.floor(y + 1e-9)
    return math.copysign(y / factor, x)


def _scalar_arg(v: Any) -> Any:
    if isinstance(v, Range):
        if len(v.values) == 1 and len(v.values[0]) == 1:
            return v.values[0][0]
        raise XlError("#VALUE!")
    return v


def _num(v: Any) -> float:
    return to_number(_scalar_arg(v))


def _txt(v: Any) -> str:
    return to_text(_scalar_arg(v))


def _lookup_eq(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b)
    return a == b


def _approx_pos(values: list[Any], key: Any) -> int:
    """The last position whose value is <= key (sorted ascending data), as Excel's approximate match."""
    pos = -1
    for i, v in enumerate(values):
        if v is None or type(_comparable(v)[1]) is not type(_comparable(key)[1]):
            continue
        if _comparable(v) <= _comparable(key):
            pos = i
        else:
            break
    if pos < 0:
        raise XlError("#N/A")
    return pos


def f_vlookup(wb, key, table, col, approx=True):  # noqa: ANN001, ANN201
    key = _scalar_arg(key)
    if not isinstance(table, Range):
        raise XlError("#VALUE!")
    c = int(_num(col))
    if c < 1:
        raise XlError("#VALUE!")
    if c > len(table.values[0]):
        raise XlError("#REF!")
    first = [row[0] for row in table.values]
    exact = approx is not None and not to_bool(_scalar_arg(approx)) if approx is not True else False
    if exact:
        pos = next((i for i, v in enumerate(first) if _lookup_eq(v, key) or (isinstance(key, str) and isinstance(v, str) and _criterion(key)(v))), None)
        if pos is None:
            raise XlError("#N/A")
    else:
        pos = _approx_pos(first, key)
    v = table.values[pos][c - 1]
    return 0.0 if v is None else v


def f_match(wb, key, rng, kind=1.0):  # noqa: ANN001, ANN201
    key = _scalar_arg(key)
    values = rng.flat() if isinstance(rng, Range) else [rng]
    k = int(_num(kind)) if kind is not None else 1
    if k == 0:
        for i, v in enumerate(values):
            if _lookup_eq(v, key):
                return float(i + 1)
        raise XlError("#N/A")
    if k == 1:
        return float(_approx_pos(values, key) + 1)
    pos = -1
    for i, v in enumerate(values):
        if v is not None and _comparable(v) >= _comparable(key):
            pos = i
    if pos < 0:
        raise XlError("#N/A")
    return float(pos + 1)


def f_index(wb, rng, row, col=None):  # noqa: ANN001, ANN201
    if not isinstance(rng, Range):
        return rng
    r = int(_num(row)) if row is not None else 0
    c = int(_num(col)) if col is not None else 0
    vals = rng.values
    if len(vals) == 1 and c == 0 and r > 0:  # a one-row range: the index is the column
        r, c = 1, r
    if c == 0:
        c = 1
    if r == 0:
        r = 1
    if r < 1 or c < 1 or r > len(vals) or c > len(vals[0]):
        raise XlError("#REF!")
    v = vals[r - 1][c - 1]
    return 0.0 if v is None else v


def f_xlookup(wb, key, look, ret, not_found=None):  # noqa: ANN001, ANN201
    key = _scalar_arg(key)
    lv = look.flat() if isinstance(look, Range) else [look]
    rv = ret.flat() if isinstance(ret, Range) else [ret]
    if len(lv) != len(rv):
        raise XlError("#VALUE!")
    for i, v in enumerate(lv):
        if _lookup_eq(v, key):
            return rv[i]
    if not_found is not None:
        return not_found
    raise XlError("#N/A")


def _date_serial(d: date) -> float:
    return float((d - date(1899, 12, 30)).days)


def _serial_date(n: float) -> date:
    return date(1899, 12, 30) + timedelta(days=int(n))


def f_date(wb, y, m, d):  # noqa: ANN001, ANN201
    y, m, d = int(_num(y)), int(_num(m)), int(_num(d))
    y += (m - 1) // 12
    m = (m - 1) % 12 + 1
    try:
        return _date_serial(date(y, m, 1)) + d - 1
    except ValueError:
        raise XlError("#NUM!") from None


def f_text(wb, v, fmt):  # noqa: ANN001, ANN201
    x, f = _num(v), _txt(fmt)
    decimals = len(f.split(".")[1].rstrip("%")) if "." in f else 0
    if f.endswith("%"):
        return f"{x * 100:.{decimals}f}%"
    out = f"{x:,.{decimals}f}" if "," in f else f"{x:.{decimals}f}"
    return ("$" + out) if f.startswith("$") else out


def _concat(wb, *args):  # noqa: ANN001, ANN201
    return "".join(to_text(v) for a in args for v in (a.flat() if isinstance(a, Range) else [a]))


def _minmax(fn):  # noqa: ANN001, ANN201
    return lambda wb, *args: fn(_values(args)) if _values(args) else 0.0


def _sum(wb, *args):  # noqa: ANN001, ANN201
    return float(sum(_values(args)))


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "SUM": _sum,
    "AVERAGE": f_average,
    "MIN": _minmax(min),
    "MAX": _minmax(max),
    "COUNT": f_count,
    "COUNTA": f_counta,
    "COUNTIF": lambda wb, rng, crit: f_countifs(wb, rng, crit),
    "COUNTIFS": f_countifs,
    "SUMIF": f_sumif,
    "SUMIFS": f_sumifs,
    "AVERAGEIF": f_averageif,
    "IF": f_if,
    "IFERROR": f_iferror,
    "AND": lambda wb, *a: all(to_bool(v) for x in a for v in (x.flat() if isinstance(x, Range) else [x]) if v is not None),
    "OR": lambda wb, *a: any(to_bool(v) for x in a for v in (x.flat() if isinstance(x, Range) else [x]) if v is not None),
    "NOT": lambda wb, v: not to_bool(_scalar_arg(v)),
    "ROUND": lambda wb, v, d=0.0: _round(_num(v), _num(d), "half"),
    "ROUNDUP": lambda wb, v, d=0.0: _round(_num(v), _num(d), "up"),
    "ROUNDDOWN": lambda wb, v, d=0.0: _round(_num(v), _num(d), "down"),
    "ABS": lambda wb, v: abs(_num(v)),
    "VLOOKUP": f_vlookup,
    "MATCH": f_match,
    "INDEX": f_index,
    "XLOOKUP": f_xlookup,
    "LEN": lambda wb, v: float(len(_txt(v))),
    "LEFT": lambda wb, v, n=1.0: _txt(v)[: int(_num(n))],
    "RIGHT": lambda wb, v, n=1.0: _txt(v)[-int(_num(n)):] if int(_num(n)) else "",
    "MID": lambda wb, v, s, n: _txt(v)[int(_num(s)) - 1: int(_num(s)) - 1 + int(_num(n))] if _num(s) >= 1 else (_ for _ in ()).throw(XlError("#VALUE!")),
    "UPPER": lambda wb, v: _txt(v).upper(),
    "LOWER": lambda wb, v: _txt(v).lower(),
    "PROPER": lambda wb, v: _txt(v).title(),
    "TRIM": lambda wb, v: " ".join(_txt(v).split()),
    "CONCAT": _concat,
    "CONCATENATE": _concat,
    "TEXT": f_text,
    "DATE": f_date,
    "YEAR": lambda wb, v: float(_serial_date(_num(v)).year),
    "MONTH": lambda wb, v: float(_serial_date(_num(v)).month),
    "DAY": lambda wb, v: float(_serial_date(_num(v)).day),
}
LAZY = {"IF", "IFERROR"}


def recalculate(inputs: dict[str, dict[tuple[int, int], str]]) -> tuple[dict[tuple[str, int, int], Any], set[tuple[str, int, int]]]:
    """Every cell's value, and the cells on a circular reference."""
    wb = Workbook(inputs)
    values = wb.evaluate_all()
    return values, wb.circular


class Dependents:
    """The dependency graph of a workbook's formulas, read backwards: which formula cells read a cell
    (a reference, a range holding it, a whole column of its sheet). Formulas naming a sheet the
    workbook doesn't have are recalculated on every change (a sheet of that name may have appeared)."""

    def __init__(self, inputs: dict[str, dict[tuple[int, int], str]]) -> None:
        upper = {name.upper(): name for name in inputs}
        self.single: dict[tuple[str, int, int], list[tuple[str, int, int]]] = {}
        self.by_col: dict[tuple[str, int], list[tuple[int, int, tuple[str, int, int]]]] = {}
        self.whole: dict[str, list[tuple[str, int, int]]] = {}
        self.always: list[tuple[str, int, int]] = []
        for sheet, cells in inputs.items():
            for (r, c), text in cells.items():
                if not text.startswith("=") or len(text) == 1:
                    continue
                key = (sheet, r, c)
                try:
                    areas = precedents(parsed(text[1:], sheet))
                except XlError:
                    continue  # a constant error
                for name, r1, c1, r2, c2 in areas:
                    real = upper.get(name.upper())
                    if real is None:
                        self.always.append(key)
                    elif r2 is None:
                        self.whole.setdefault(real, []).append(key)
                    elif r1 == r2 and c1 == c2:
                        self.single.setdefault((real, r1, c1), []).append(key)
                    else:
                        for col in range(c1, c2 + 1):
                            self.by_col.setdefault((real, col), []).append((r1, r2, key))

    def of(self, sheet: str, row: int, col: int) -> Iterable[tuple[str, int, int]]:
        """The formula cells that read this cell directly."""
        yield from self.single.get((sheet, row, col), ())
        for r1, r2, key in self.by_col.get((sheet, col), ()):
            if r1 <= row <= r2:
                yield key
        yield from self.whole.get(sheet, ())

    def closure(self, changed: Iterable[tuple[str, int, int]]) -> set[tuple[str, int, int]]:
        """The changed cells and every cell that depends on them, directly or not."""
        seen = set(changed) | set(self.always)
        todo = list(seen)
        while todo:
            for dep in self.of(*todo.pop()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return seen


def recalculate_some(inputs: dict[str, dict[tuple[int, int], str]], changed: Iterable[tuple[str, int, int]]
                     ) -> dict[tuple[str, int, int], Any] | None:
    """The values of the changed cells and of their dependents (the rest of the workbook keeps its
    values), evaluating only what they read. None when a circular reference is met: the caller then
    recalculates the whole workbook, which reports the loop as Excel does."""
    dirty = Dependents(inputs).closure(changed)
    wb = Workbook(inputs)
    out: dict[tuple[str, int, int], Any] = {}
    for key in sorted(dirty):
        sheet, r, c = key
        if (r, c) not in inputs.get(sheet, {}):
            out[key] = None  # cleared
            continue
        try:
            out[key] = wb.value(sheet, r, c)
        except Circular:
            return None
    if wb.circular:
        return None
    return out


__all__ = ["CIRCULAR", "FUNCTIONS", "XlError", "col_name", "col_number", "display", "literal", "parse_formula", "parse_ref",
           "recalculate", "recalculate_some", "ref_name"]
