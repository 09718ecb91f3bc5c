"""What a verifier looks at: the world at the end, the diff since the start, the answer, the screenshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from apps_web.world import WorldDiff, diff_databases


class VerifyContext(BaseModel):
    """Everything one episode leaves behind for grading.

    ``ignore`` names volatile bookkeeping that never counts as damage: ``"table"`` or
    ``"table.field"``, with shell wildcards (``"*.updated_at"``, ``"crm_recent_*"``).
    ``steps`` are trajectory lines; a step's screenshot is read from its ``screenshot`` key
    (PNG bytes, or a path relative to ``trajectory_dir``) or ``screenshot_path``.
    ``persona`` is the username the episode was signed in as; ``final_user`` the username signed in
    at its end (``""`` when nobody is, ``None`` when the episode could not tell, e.g. no browser).
    ``reached`` maps a check's name to the step at which it first passed, when the episode graded its
    progress step by step (for ordered milestones). ``start_seq`` is the world's change log position
    when the episode started (after its set-up), for checks on the order of changes.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    end_db: Path
    diff: WorldDiff = Field(default_factory=WorldDiff)
    start_db: Path | None = None
    instruction: str | None = None
    answer: str | None = None
    infeasible: bool = False
    infeasible_reason: str | None = None
    final_screenshot: bytes | None = None
    steps: list[dict[str, Any]] = Field(default_factory=list)
    trajectory_dir: Path | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    ignore: list[str] = Field(default_factory=list)
    persona: str | None = None
    final_user: str | None = None
    reached: dict[str, int] = Field(default_factory=dict)
    start_seq: int | None = None  # the change log position at the episode's start (order checks read after it)

    @classmethod
    def from_worlds(cls, start_db: Path | str, end_db: Path | str, **fields: Any) -> VerifyContext:
        """Build a context from two world files, computing the diff between them."""
        start, end = Path(start_db), Path(end_db)
        return cls(start_db=start, end_db=end, diff=diff_databases(start, end), **fields)
