"""The trajectory format: one folder per episode, shared by agents, replays and human demonstrations.

::

    <episode>/                      finished: the folder name has no suffix
        episode.json                the episode: task, seed, agent, timings, outcome, verdict with checks
        steps.jsonl                 one line per step (StepRecord), appended as the episode goes
        screenshots/0000.png        the first observation; NNNN.png is the observation after step N

While an episode runs its folder is ``<episode>.partial`` and ``episode.json`` says
``"status": "running"``; finishing rewrites ``episode.json`` atomically and renames the folder, so a
crash leaves finished episodes whole and the unfinished one marked by its suffix.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = "cua-sandbox/trajectory@1"
PARTIAL_SUFFIX = ".partial"
EPISODE_FILE = "episode.json"
STEPS_FILE = "steps.jsonl"
SCREENSHOTS_DIR = "screenshots"

Outcome = Literal["passed", "failed", "error", "running"]
# Why an episode ended: the agent answered or gave up, or the runner cut it short.
EndReason = Literal["answer", "report_infeasible", "agent_done", "max_steps", "time_limit", "error", "running"]


def screenshot_name(index: int) -> str:
    """Relative path of the screenshot observed after step ``index`` (0 = the first observation)."""
    return f"{SCREENSHOTS_DIR}/{index:04d}.png"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def episode_name(task: str, seed: int, repeat: int = 0) -> str:
    """Folder name of an episode: ``crm.close-won__s3`` (``__r1`` added for repeats)."""
    base = _UNSAFE.sub("_", task).strip("._") or "task"
    return f"{base}__s{seed}" + (f"__r{repeat}" if repeat else "")


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")  # newer writers may add fields; old readers keep them


class AgentInfo(_Record):
    name: str
    spec: str | None = None  # how it was chosen: "oracle", "random", "mypkg.agents:MyAgent"
    model: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)


class Timings(_Record):
    """Seconds spent in each part of the episode (wall clock)."""

    total: float = 0.0
    reset: float = 0.0
    agent: float = 0.0  # deciding on actions (model calls, oracle resolution)
    env: float = 0.0  # executing actions and observing (the browser)
    verify: float = 0.0
    write: float = 0.0  # writing the trajectory


class EpisodeRecord(_Record):
    """The content of ``episode.json``."""

    format: str = FORMAT
    id: str
    task: str
    seed: int
    status: Literal["running", "finished"] = "running"
    source: Literal["agent", "replay", "human"] = "agent"
    agent: AgentInfo
    instruction: str = ""
    app: str | None = None
    difficulty: str | None = None
    tags: list[str] = Field(default_factory=list)
    start_url: str | None = None
    viewport: dict[str, int] | None = None
    max_steps: int | None = None
    time_limit: float | None = None
    started_at: str | None = None  # ISO 8601, UTC
    finished_at: str | None = None
    steps: int = 0
    outcome: Outcome = "running"
    end_reason: EndReason = "running"
    answer: str | None = None
    error: str | None = None
    error_trace: str | None = None  # the traceback's last frames when the agent or the env raised
    cut_during: str | None = None  # what was running when the time limit cut the episode short
    timings: Timings = Field(default_factory=Timings)
    verdict: dict[str, Any] | None = None  # verifiers.Verdict as JSON: passed, score, reason, checks
    replay_of: str | None = None  # the episode folder a replay reproduced
    # The digest of the world the episode started in (its seed's template, before the task's set-up;
    # apps_web.world.digest): a replay in a world with another digest may grade differently.
    world: str | None = None
    # The task's milestones at the end (when the episode graded its progress): name, sentence, weight,
    # reached, step (the first step it held).
    milestones: list[dict[str, Any]] | None = None

    @property
    def passed(self) -> bool:
        return bool(self.verdict and self.verdict.get("passed"))

    @property
    def score(self) -> float:
        return float(self.verdict.get("score", 0.0)) if self.verdict else 0.0

    def result(self) -> dict[str, Any]:
        """The episode's line in ``results.jsonl``."""
        steps = max(self.steps, 1)
        return {
            "id": self.id,
            "task": self.task,
            "seed": self.seed,
            "agent": self.agent.name,
            "passed": self.passed,
            "score": round(self.score, 4),
            "steps": self.steps,
            "outcome": self.outcome,
            "end_reason": self.end_reason,
            "app": self.app,
            "difficulty": self.difficulty,
            "tags": self.tags,
            "duration_s": round(self.timings.total, 3),
            "ms_per_step": round(1000 * (self.timings.agent + self.timings.env) / steps, 1),
            "reason": (self.verdict or {}).get("reason") or self.error,
            "error": self.error,
            "finished_at": self.finished_at,
            **({"cut_during": self.cut_during} if self.cut_during else {}),
        }


class StepRecord(_Record):
    """One line of ``steps.jsonl``: the action and what it did."""

    step: int  # 1-based; the observation before step N is screenshot N-1
    action: Any = None  # as the agent gave it (canonical dict, Anthropic tool input, OpenAI action...)
    parsed: dict[str, Any] | None = None  # the canonical action executed, None when it did not parse
    thought: str | None = None  # the agent's reasoning or a demonstrator's note
    url: str | None = None
    title: str | None = None
    error: str | None = None  # the env's last_action_error (or the parse error)
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    blocked: list[str] = Field(default_factory=list)  # requests to other hosts, blocked
    changes: dict[str, Any] | None = None  # apps_web.world.WorldDiff as JSON, since the previous step
    tool_result: dict[str, Any] | None = None  # a tool call's outcome: ok, status, data or error
    milestones: list[str] | None = None  # the milestones first reached at this step (names)
    coworkers: list[dict[str, Any]] | None = None  # what co-workers delivered after this step (replies, events; a model's record)
    timing: dict[str, float] = Field(default_factory=dict)  # ms: agent, env and the env's own parts
    t: float = 0.0  # seconds since the episode started
    screenshot: str | None = None  # relative path of the observation after this step
