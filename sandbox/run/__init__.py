"""The evaluation runner (``sandbox run``): select tasks and seeds, play an agent on each episode
concurrently, write trajectories and ``results.jsonl``, summarize."""

from .background import BackgroundRuntime
from .episode import agent_info, new_record, play
from .runner import Progress, RunConfig, RunResult, plan, run, run_async
from .select import SelectionError, TaskInfo, catalog, flat_tags, parse_seeds, select_tasks
from .summary import summarize, summary_tables

__all__ = [
    "BackgroundRuntime", "Progress", "RunConfig", "RunResult", "SelectionError", "TaskInfo", "agent_info",
    "catalog", "flat_tags", "new_record", "parse_seeds", "plan", "play", "run", "run_async",
    "select_tasks", "summarize", "summary_tables",
]  # fmt: skip
