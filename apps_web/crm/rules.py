"""Validation rules (Salesforce Setup > Object Manager > <object> > Validation Rules).

A rule's *error condition* is a formula over the record's fields, written as in Salesforce:
``AND(ISPICKVAL(StageName, "Negotiation/Review"), ISBLANK(NextStep))``. When it is true the save is
refused with the rule's message, shown at the top of the page or under one field. The formula is
parsed here (a small recursive-descent parser; nothing is ever ``eval``-ed) into a tree that is
type-checked once, with Salesforce's messages for the mistakes people make ("Field Foo does not
exist. Check spelling.", "Unknown function FOO. Check spelling."...), then evaluated against the
record as it would be after the save (its current values with the changes over them).

Supported: fields by their API names (``FIELD_NAMES``), numbers, "text" and 'text', TRUE, FALSE,
NULL; ``+ - * /``, ``&`` (joins text), ``= == != <> < > <= >=``, ``&& || !``; functions AND, OR,
NOT, IF, ISBLANK, ISNULL, BLANKVALUE, ISPICKVAL, TEXT, LEN, BEGINS, CONTAINS, LOWER, UPPER, VALUE,
TODAY, ISNEW, ISCHANGED, PRIORVALUE. A picklist field is read through ISPICKVAL, TEXT, ISCHANGED or
PRIORVALUE only, as in Salesforce. Blank numbers stay blank (a comparison with a blank is false).

``check(session, object_key, values, current, is_new)`` is the one entry point the save paths use
(``validation.validate``, the board, the path, mass actions and the merge).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlmodel import Session, select

RULE_OBJECTS = ("account", "contact", "lead", "opportunity", "case")
CUSTOM_VALIDATION = "FIELD_CUSTOM_VALIDATION_EXCEPTION"

# API name -> column, per object (the names Salesforce's formulas use).
FIELD_NAMES: dict[str, dict[str, str]] = {
    "account": {
        "Name": "name", "Type": "type", "Industry": "industry", "Rating": "rating", "AnnualRevenue": "annual_revenue",
        "NumberOfEmployees": "employees", "Phone": "phone", "Website": "website", "BillingStreet": "billing_street",
        "BillingCity": "billing_city", "BillingState": "billing_state", "BillingPostalCode": "billing_postal_code",
        "BillingCountry": "billing_country", "ShippingStreet": "shipping_street", "ShippingCity": "shipping_city",
        "ShippingState": "shipping_state", "ShippingPostalCode": "shipping_postal_code", "ShippingCountry": "shipping_country",
        "Description": "description", "OwnerId": "owner_id", "ParentId": "parent_id",
    },
    "contact": {
        "Salutation": "salutation", "FirstName": "first_name", "LastName": "last_name", "Title": "title", "Department": "department",
        "Email": "email", "Phone": "phone", "MobilePhone": "mobile", "AccountId": "account_id", "ReportsToId": "reports_to_id",
        "LeadSource": "lead_source", "MailingCity": "mailing_city", "MailingState": "mailing_state", "MailingCountry": "mailing_country",
        "Description": "description", "OwnerId": "owner_id",
    },
    "lead": {
        "Salutation": "salutation", "FirstName": "first_name", "LastName": "last_name", "Company": "company", "Title": "title",
        "Status": "status", "LeadSource": "source", "Rating": "rating", "Industry": "industry", "Email": "email", "Phone": "phone",
        "AnnualRevenue": "annual_revenue", "NumberOfEmployees": "employees", "City": "city", "State": "state", "Country": "country",
        "Description": "description", "OwnerId": "owner_id",
    },
    "opportunity": {
        "Name": "name", "AccountId": "account_id", "Amount": "amount", "StageName": "stage", "Probability": "probability",
        "CloseDate": "close_date", "Type": "type", "LeadSource": "lead_source", "NextStep": "next_step",
        "ForecastCategoryName": "forecast_category", "Description": "description", "OwnerId": "owner_id",
        "Loss_Reason__c": "loss_reason", "Main_Competitors__c": "main_competitors", "CampaignId": "campaign_id",
    },
    "case": {
        "Subject": "subject", "Status": "status", "Priority": "priority", "Origin": "origin", "Type": "type", "Reason": "reason",
        "AccountId": "account_id", "ContactId": "contact_id", "Description": "description", "OwnerId": "owner_id",
    },
}


class FormulaError(ValueError):
    """A formula that can't be saved; the message is Salesforce's."""


# -- tokens ----------------------------------------------------------------------------------------------
_TOKEN = re.compile(r"""\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<name>[A-Za-z_][A-Za-z0-9_]*)
                        |(?P<op><>|!=|==|<=|>=|&&|\|\||[-+*/=<>!&(),]))""", re.X)


def _tokens(text: str) -> list[tuple[str, Any]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise FormulaError(f"Syntax error. Found '{text[pos:].strip()[:1]}'")
        pos = m.end()
        if m["num"]:
            out.append(("num", float(m["num"])))
        elif m["str"]:
            out.append(("str", re.sub(r"\\(.)", r"\1", m["str"][1:-1])))
        elif m["name"]:
            out.append(("name", m["name"]))
        else:
            out.append(("op", m["op"]))
    out.append(("end", None))
    return out


# -- parser: a tree of tuples ----------------------------------------------------------------------------
# ("lit", value, type) ("field", column, type) ("call", NAME, [args]) ("bin", op, a, b) ("not", a) ("neg", a)
_PRECEDENCE = [("||",), ("&&",), ("=", "==", "!=", "<>"), ("<", ">", "<=", ">="), ("+", "-", "&"), ("*", "/")]


class _Parser:
    def __init__(self, text: str, fields: dict[str, tuple[str, str]]) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.fields = fields

    def peek(self) -> tuple[str, Any]:
        return self.toks[self.i]

    def take(self) -> tuple[str, Any]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, op: str) -> None:
        kind, value = self.take()
        if (kind, value) != ("op", op):
            found = "end of formula" if kind == "end" else repr(value if kind != "num" else _num_text(value))
            raise FormulaError(f"Syntax error. Missing '{op}'" if kind == "end" else f"Syntax error. Found {found}")

    def parse(self) -> tuple:
        if self.peek()[0] == "end":
            raise FormulaError("Enter an error condition formula.")
        node = self.binary(0)
        kind, value = self.peek()
        if kind != "end":
            raise FormulaError(f"Syntax error. Extra {value if kind != 'num' else _num_text(value)}")
        return node

    def binary(self, level: int) -> tuple:
        if level == len(_PRECEDENCE):
            return self.unary()
        node = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in _PRECEDENCE[level]:
            op = self.take()[1]
            node = ("bin", op, node, self.binary(level + 1))
        return node

    def unary(self) -> tuple:
        kind, value = self.peek()
        if (kind, value) == ("op", "!"):
            self.take()
            return ("not", self.unary())
        if (kind, value) == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        return self.primary()

    def primary(self) -> tuple:
        kind, value = self.take()
        if kind == "num":
            return ("lit", value, "num")
        if kind == "str":
            return ("lit", value, "text")
        if (kind, value) == ("op", "("):
            node = self.binary(0)
            self.expect(")")
            return node
        if kind == "name":
            upper = value.upper()
            if self.peek() == ("op", "("):
                self.take()
                args: list[tuple] = []
                if self.peek() != ("op", ")"):
                    args.append(self.binary(0))
                    while self.peek() == ("op", ","):
                        self.take()
                        args.append(self.binary(0))
                self.expect(")")
                if upper not in FUNCTIONS:
                    raise FormulaError(f"Unknown function {upper}. Check spelling.")
                return ("call", upper, args)
            if upper in ("TRUE", "FALSE"):
                return ("lit", upper == "TRUE", "bool")
            if upper == "NULL":
                return ("lit", None, "null")
            if value not in self.fields:
                raise FormulaError(f"Field {value} does not exist. Check spelling.")
            column, ftype = self.fields[value]
            return ("field", column, ftype, value)
        if kind == "end":
            raise FormulaError("Syntax error. Missing ')'" if self.i > 1 else "Enter an error condition formula.")
        raise FormulaError(f"Syntax error. Found '{value}'")


def _num_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# name -> (min args, max args)
FUNCTIONS: dict[str, tuple[int, int]] = {
    "AND": (1, 99), "OR": (1, 99), "NOT": (1, 1), "IF": (3, 3), "ISBLANK": (1, 1), "ISNULL": (1, 1), "BLANKVALUE": (2, 2),
    "ISPICKVAL": (2, 2), "TEXT": (1, 1), "LEN": (1, 1), "BEGINS": (2, 2), "CONTAINS": (2, 2), "LOWER": (1, 1), "UPPER": (1, 1),
    "VALUE": (1, 1), "TODAY": (0, 0), "ISNEW": (0, 0), "ISCHANGED": (1, 1), "PRIORVALUE": (1, 1),
}
_PICKLIST_OK = {"ISPICKVAL", "TEXT", "ISCHANGED", "PRIORVALUE"}
_TYPE_LABEL = {"bool": "true or false", "num": "Number", "text": "Text", "date": "Date", "picklist": "Picklist", "null": "Null", "id": "Text"}


def _check(node: tuple, parent: str | None = None) -> str:
    """The node's type ("bool", "num", "text", "date", "picklist", "id", "null"); FormulaError when misused."""
    kind = node[0]
    if kind == "lit":
        return node[2]
    if kind == "field":
        if node[2] == "picklist" and parent not in _PICKLIST_OK:
            raise FormulaError(f"Field {node[3]} is a picklist field. Picklist fields are only supported in certain functions.")
        return node[2]
    if kind == "not":
        _want(_check(node[1]), "bool", "!")
        return "bool"
    if kind == "neg":
        _want(_check(node[1]), "num", "-")
        return "num"
    if kind == "bin":
        op, a, b = node[1], _check(node[2]), _check(node[3])
        if op in ("&&", "||"):
            _want(a, "bool", op)
            _want(b, "bool", op)
            return "bool"
        if op == "&":
            return "text"
        if op in ("+", "-") and "date" in (a, b):
            return "num" if a == b == "date" else "date"
        if op in ("+", "-", "*", "/"):
            _want(a, "num", op)
            _want(b, "num", op)
            return "num"
        if "null" not in (a, b) and _family(a) != _family(b):
            raise FormulaError(f"Incorrect parameter type for operator '{op}'. Expected {_TYPE_LABEL[_family(a)]}, received {_TYPE_LABEL[_family(b)]}")
        return "bool"
    name, args = node[1], node[2]
    lo, hi = FUNCTIONS[name]
    if not lo <= len(args) <= hi:
        expected = str(lo) if lo == hi else f"{lo} or more"
        raise FormulaError(f"Incorrect number of parameters for function '{name}()'. Expected {expected}, received {len(args)}")
    if name in ("ISCHANGED", "PRIORVALUE") and args[0][0] != "field":
        raise FormulaError(f"Incorrect parameter type for function '{name}()'. Expected Field, received {_TYPE_LABEL[_check(args[0])]}")
    if name == "ISPICKVAL" and (args[0][0] != "field" or args[0][2] != "picklist"):
        raise FormulaError("Incorrect parameter type for function 'ISPICKVAL()'. Expected Picklist, received " + _TYPE_LABEL[_check(args[0])])
    types = [_check(a, name) for a in args]
    if name in ("AND", "OR", "NOT"):
        for t in types:
            _want(t, "bool", f"{name}()")
        return "bool"
    if name == "IF":
        _want(types[0], "bool", "IF()")
        return types[1] if types[1] != "null" else types[2]
    if name in ("ISBLANK", "ISNULL", "ISNEW", "ISCHANGED", "BEGINS", "CONTAINS", "ISPICKVAL"):
        return "bool"
    if name in ("TEXT", "LOWER", "UPPER"):
        return "text"
    if name in ("LEN", "VALUE"):
        return "num"
    if name == "TODAY":
        return "date"
    if name == "PRIORVALUE":
        return types[0]
    return types[0] if types[0] != "null" else types[1]  # BLANKVALUE


def _family(t: str) -> str:
    return "text" if t in ("text", "id", "picklist") else t


def _want(got: str, want: str, where: str) -> None:
    if got not in (want, "null"):
        raise FormulaError(f"Incorrect parameter type for {'operator' if not where.endswith(')') else 'function'} '{where}'. "
                           f"Expected {_TYPE_LABEL[want]}, received {_TYPE_LABEL[got]}")


def _field_types(object_key: str) -> dict[str, tuple[str, str]]:
    from .validation import RULES

    kinds = {"text": "text", "email": "text", "int": "num", "float": "num", "date": "date", "datetime": "date", "picklist": "picklist",
             "lookup": "id"}
    out = {}
    for api, column in FIELD_NAMES[object_key].items():
        rule = RULES[object_key].get(column)
        out[api] = (column, "picklist" if column == "status" and object_key == "lead" else kinds[rule.kind] if rule else "text")
    return out


def compile_formula(object_key: str, text: str) -> tuple:
    """The checked tree of an error condition, or FormulaError with Salesforce's message."""
    tree = _Parser(text or "", _field_types(object_key)).parse()
    result = _check(tree)
    if result not in ("bool", "null"):
        raise FormulaError(f"Formula result is data type ({_TYPE_LABEL[result]}), incompatible with expected data type (true or false).")
    return tree


# -- evaluation ------------------------------------------------------------------------------------------
@dataclass
class Record:
    values: dict[str, Any]  # after the save
    prior: dict[str, Any]  # before it (empty for a new record)
    is_new: bool
    session: Session | None = None
    _today: date | None = None

    @property
    def today(self) -> date:
        if self._today is None:
            self._today = world_today(self.session)
        return self._today


def _blank(v: Any) -> bool:
    return v is None or v == ""


def _norm(v: Any) -> Any:
    if isinstance(v, datetime):
        return v.date()
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return float(v)
    return v


def evaluate(node: tuple, rec: Record) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "field":
        return _norm(rec.values.get(node[1]))
    if kind == "not":
        return not evaluate(node[1], rec)
    if kind == "neg":
        v = evaluate(node[1], rec)
        return None if v is None else -v
    if kind == "bin":
        return _binary(node[1], node[2], node[3], rec)
    name, args = node[1], node[2]
    ev = lambda a: evaluate(a, rec)  # noqa: E731
    if name == "AND":
        return all(ev(a) is True for a in args)
    if name == "OR":
        return any(ev(a) is True for a in args)
    if name == "NOT":
        return ev(args[0]) is not True
    if name == "IF":
        return ev(args[1]) if ev(args[0]) is True else ev(args[2])
    if name in ("ISBLANK", "ISNULL"):
        return _blank(ev(args[0]))
    if name == "BLANKVALUE":
        v = ev(args[0])
        return ev(args[1]) if _blank(v) else v
    if name == "ISPICKVAL":
        return (ev(args[0]) or "") == (ev(args[1]) or "")
    if name == "TEXT":
        v = ev(args[0])
        return "" if v is None else _num_text(v) if isinstance(v, float) else v.isoformat() if isinstance(v, date) else str(v)
    if name == "LEN":
        return len(ev(args[0]) or "")
    if name in ("BEGINS", "CONTAINS"):
        a, b = ev(args[0]) or "", ev(args[1]) or ""
        return a.startswith(b) if name == "BEGINS" else b in a
    if name in ("LOWER", "UPPER"):
        v = ev(args[0])
        return None if v is None else (v.lower() if name == "LOWER" else v.upper())
    if name == "VALUE":
        try:
            return float(str(ev(args[0])).strip())
        except ValueError:
            return None
    if name == "TODAY":
        return rec.today
    if name == "ISNEW":
        return rec.is_new
    column = args[0][1]
    if name == "ISCHANGED":
        return not rec.is_new and _norm(rec.prior.get(column)) != _norm(rec.values.get(column))
    return _norm(rec.prior.get(column))  # PRIORVALUE


def _binary(op: str, a_node: tuple, b_node: tuple, rec: Record) -> Any:
    if op == "&&":
        return evaluate(a_node, rec) is True and evaluate(b_node, rec) is True
    if op == "||":
        return evaluate(a_node, rec) is True or evaluate(b_node, rec) is True
    a, b = evaluate(a_node, rec), evaluate(b_node, rec)
    if op == "&":
        return f"{'' if a is None else a}{'' if b is None else b}"
    if op in ("=", "==", "!=", "<>"):
        same = (a or None) == (b or None) if isinstance(a, str) or isinstance(b, str) else a == b
        return same if op in ("=", "==") else not same
    if a is None or b is None:
        return None if op in ("+", "-", "*", "/") else False
    if op == "+":
        return a + timedelta(days=b) if isinstance(a, date) else b + timedelta(days=a) if isinstance(b, date) else a + b
    if op == "-":
        if isinstance(a, date) and isinstance(b, date):
            return float((a - b).days)
        return a - timedelta(days=b) if isinstance(a, date) else a - b
    if op == "*":
        return a * b
    if op == "/":
        return None if b == 0 else a / b
    return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]


# -- rules in the world ----------------------------------------------------------------------------------
_CACHE: dict[tuple[str, str], tuple] = {}


def _tree(object_key: str, formula: str) -> tuple | None:
    key = (object_key, formula)
    if key not in _CACHE:
        try:
            _CACHE[key] = compile_formula(object_key, formula)
        except FormulaError:
            _CACHE[key] = None  # a broken rule in the table never blocks a save (Salesforce won't save one)
    return _CACHE[key]


def active_rules(session: Session, object_key: str) -> list:
    from .models import ValidationRule

    if object_key not in RULE_OBJECTS:
        return []
    return list(session.exec(select(ValidationRule).where(ValidationRule.object_type == object_key, ValidationRule.active == True)  # noqa: E712
                             .order_by(ValidationRule.id)).all())


def world_today(session: Session | None) -> date:
    """The world clock's day (TODAY() in a formula), read from the world's own database."""
    from ..world.clock import DEFAULT_CLOCK

    if session is None:
        return DEFAULT_CLOCK.date()
    value = session.connection().exec_driver_sql("SELECT value FROM sandbox_meta WHERE key = 'clock'").scalar()
    return datetime.fromisoformat(value).date() if value else DEFAULT_CLOCK.date()


def failures(session: Session, object_key: str, values: dict[str, Any], prior: dict[str, Any], *, is_new: bool) -> list:
    """The active rules of ``object_key`` whose error condition is true for the record ``values``."""
    rules = active_rules(session, object_key)
    if not rules:
        return []
    rec = Record(values, prior, is_new, session)
    return [r for r in rules if (tree := _tree(object_key, r.error_condition)) is not None and evaluate(tree, rec) is True]


def errors_of(rules: list) -> dict[str, str]:
    """The refused save's messages as the forms show them: one per field, the rest at the top of the page
    (``__all__``); ``__rule__`` marks the errors as a validation rule's (the API's 400 shape)."""
    out: dict[str, str] = {}
    top = []
    for r in rules:
        if r.error_field and r.error_field not in out:
            out[r.error_field] = r.error_message
        else:
            top.append(r.error_message)
    if top:
        out["__all__"] = " ".join(top)
    if rules:
        out["__rule__"] = ",".join(str(r.id) for r in rules)
    return out


def check(session: Session, object_key: str, record: Any, changes: dict[str, Any]) -> dict[str, str]:
    """Errors for saving ``changes`` over ``record`` (None: a new record): {} when every rule passes."""
    columns = set(FIELD_NAMES.get(object_key, {}).values())
    prior = {c: getattr(record, c, None) for c in columns} if record is not None else {}
    values = {**prior, **{k: v for k, v in changes.items() if k in columns}}
    return errors_of(failures(session, object_key, values, prior, is_new=record is None))


def messages(errors: dict[str, str]) -> str:
    """A refused save's messages in one sentence list (toasts, the board)."""
    return " ".join(m for k, m in errors.items() if not k.startswith("__") or k == "__all__")


def api_errors(errors: dict[str, str], object_key: str) -> list[dict[str, Any]]:
    """Salesforce's REST error body for a refused save: one entry per failing rule's message."""
    api_of = {c: a for a, c in FIELD_NAMES[object_key].items()}
    out = []
    for key, msg in errors.items():
        if key in ("__rule__",):
            continue
        out.append({"message": msg, "errorCode": CUSTOM_VALIDATION, "fields": [] if key == "__all__" else [api_of.get(key, key)]})
    return out


__all__ = ["CUSTOM_VALIDATION", "FIELD_NAMES", "FormulaError", "RULE_OBJECTS", "active_rules", "api_errors", "check", "compile_formula",
           "errors_of", "evaluate", "failures", "messages"]
