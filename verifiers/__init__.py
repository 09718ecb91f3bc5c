"""Verifiers: grade an episode from the world database, the answer and the screenshots.

Build one from plain data (a task file's ``verifier:`` section) and run it::

    verifier = build_verifier([
        {"kind": "changes", "expect": [{"table": "crm_opportunity", "op": "update",
                                        "where": {"id": 12}, "to": {"stage": "Closed Won"}}]},
        {"kind": "answer", "match": "number", "expected": 1234.5, "tol": 0.01},
    ])
    verdict = verifier.verify(VerifyContext.from_worlds(start, end, answer="$1,234.50"))
"""

from .answer import AnswerSpec, InfeasibleSpec, parse_number, split_items
from .base import CheckSpec, Env
from .conditions import OPERATORS, Count, FieldCond, InTable
from .context import VerifyContext
from .db import AllowedChange, ChangesSpec, ExpectedChange, StateSpec
from .document import SectionSpec, TableSpec, section_text, table_rows
from .judge import Judge, Judgement, JudgeRequest, JudgeSpec, default_judge, use_judge
from .rubric import KINDS, AllSpec, AnyCheck, AnySpec, WeightedSpec
from .spec import Verifier, VerifierSpec, VerifierSpecError, build_verifier
from .values import EvaluationError, normalize_text, values_equal
from .verdict import Check, Verdict
from .visual import Rect, VisualSpec, pixel_diff_ratio, ssim_score

__all__ = [
    "KINDS",
    "OPERATORS",
    "AllSpec",
    "AllowedChange",
    "AnswerSpec",
    "AnyCheck",
    "AnySpec",
    "ChangesSpec",
    "Check",
    "CheckSpec",
    "Count",
    "Env",
    "EvaluationError",
    "ExpectedChange",
    "FieldCond",
    "InTable",
    "InfeasibleSpec",
    "Judge",
    "JudgeRequest",
    "JudgeSpec",
    "Judgement",
    "Rect",
    "SectionSpec",
    "TableSpec",
    "StateSpec",
    "Verdict",
    "Verifier",
    "VerifierSpec",
    "VerifierSpecError",
    "VerifyContext",
    "VisualSpec",
    "WeightedSpec",
    "build_verifier",
    "default_judge",
    "normalize_text",
    "parse_number",
    "pixel_diff_ratio",
    "section_text",
    "table_rows",
    "split_items",
    "ssim_score",
    "use_judge",
    "values_equal",
]
