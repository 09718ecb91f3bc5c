"""Reading typed values (phone numbers, e-mail addresses, dates, names) wherever they stand in a short
answer, the way a person grading the answer would, while an answer that offers several candidates
still fails."""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata

from .values import as_datetime, normalize_text

# A phone number: optional +country, groups of digits separated by spaces, dots, dashes or brackets.
_PHONE = re.compile(r"(?<![\w+])(\+?\d[\d\s().-]{5,}\d)(?:\s*(?:x|ext\.?)\s*(\d{1,6}))?(?!\w)", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
_MONTHS = {
    m: i + 1 for i, names in enumerate([
        ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
        ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"),
        ("nov", "november"), ("dec", "december"),
    ]) for m in names
}
_MONTH = r"(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DATES = [
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b"),
    re.compile(r"\b(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})\b"),
    re.compile(r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b", re.IGNORECASE),
    re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r",?\s+(?P<y>\d{4})\b", re.IGNORECASE),
]
# Words that present alternatives or a list: an answer with them beside the value hedges.
_HEDGE = re.compile(r"(?:\bor\b|\beither\b|\bmaybe\b|\bperhaps\b|[;|/\n])", re.IGNORECASE)
MAX_WORDS = 40


def phone_digits(text: str) -> str:
    """The digits of a phone number, without a leading North American country code."""
    digits = re.sub(r"\D", "", text)
    return digits[1:] if len(digits) == 11 and digits.startswith("1") else digits


def phones_in(text: str) -> list[str]:
    """The distinct phone numbers in ``text`` (as digits), in order of appearance."""
    out: list[str] = []
    for m in _PHONE.finditer(unicodedata.normalize("NFKC", text)):
        digits = phone_digits(m.group(1))
        if 7 <= len(digits) <= 15 and not _looks_like_date(m.group(1)):
            full = digits + (f"x{m.group(2)}" if m.group(2) else "")
            if full not in out:
                out.append(full)
    return out


def _looks_like_date(token: str) -> bool:
    return any(p.fullmatch(token.strip()) for p in _DATES[:2])


def emails_in(text: str) -> list[str]:
    out: list[str] = []
    for m in _EMAIL.finditer(unicodedata.normalize("NFKC", text)):
        e = m.group(0).strip(".").casefold()
        if e not in out:
            out.append(e)
    return out


def dates_in(text: str) -> list[_dt.date]:
    """The distinct calendar dates written in ``text`` (ISO, US numeric, and month-name forms)."""
    text = unicodedata.normalize("NFKC", text)
    found: list[tuple[int, _dt.date]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _DATES:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            g = m.groupdict()
            month = _MONTHS[g["mon"].lower().rstrip(".")] if g.get("mon") else int(g["m"])
            try:
                d = _dt.date(int(g["y"]), month, int(g["d"]))
            except ValueError:
                continue
            taken.append((m.start(), m.end()))
            found.append((m.start(), d))
    out: list[_dt.date] = []
    for _, d in sorted(found):
        if d not in out:
            out.append(d)
    return out


def without_dates(text: str) -> str:
    """The text with written dates blanked, so "5 cases as of Mar 16, 2026" reads as one number."""
    for pattern in _DATES:
        text = pattern.sub(" ", text)
    return text


def as_date(value: object) -> _dt.date | None:
    parsed = as_datetime(value)
    if parsed is not None:
        return parsed[0].date()
    found = dates_in(str(value))
    return found[0] if len(found) == 1 else None


def mentions(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as whole words, after normalising both."""
    p = normalize_text(phrase)
    return bool(p) and f" {p} " in f" {normalize_text(text)} "


def text_in_short_answer(answer: str, expected: str) -> tuple[bool, str | None]:
    """A name or phrase stated in a short answer ("The industry is Retail.") reads as that value; an
    answer that hedges or lists alternatives beside it does not."""
    norm_a, norm_e = normalize_text(answer), normalize_text(expected)
    if norm_a == norm_e:
        return True, None
    if not mentions(answer, expected):
        return False, "the answer differs"
    if len(norm_a.split()) > len(norm_e.split()) + MAX_WORDS:
        return False, f"the answer is too long to read as one value (over {MAX_WORDS} words around it)"
    rest = re.sub(re.escape(expected.strip()), " ", unicodedata.normalize("NFKC", answer), flags=re.IGNORECASE)
    if _HEDGE.search(rest) or rest.count(",") > 1:
        return False, "the answer offers alternatives beside the value"
    return True, None
