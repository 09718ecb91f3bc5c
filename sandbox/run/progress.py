"""A rich progress bar for runs: episodes done, live success rate, time left."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from sandbox.trajectory import EpisodeRecord

from .runner import Progress as RunProgress


class RichProgress(RunProgress):
    def __init__(self, console: Console | None = None, *, show_episodes: bool = True) -> None:
        self.console = console or Console()
        self.show_episodes = show_episodes
        self.bar = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[green]{task.fields[ok]}[/] passed · [bold]{task.fields[rate]}[/] success · {task.fields[running]} running"),
            TimeElapsedColumn(), TimeRemainingColumn(), console=self.console, transient=False,
        )  # fmt: skip
        self.task: Any = None
        self.ok = self.n = self.running = 0

    def start(self, total: int, skipped: int) -> None:
        if skipped:
            self.console.print(f"resuming: {skipped} of {total} episodes already finished")
        self.bar.start()
        self.task = self.bar.add_task("episodes", total=total, completed=skipped, ok=0, rate="-", running=0)

    def episode_started(self, episode_id: str) -> None:
        self.running += 1
        self.bar.update(self.task, running=self.running)

    def episode_finished(self, record: EpisodeRecord, line: dict[str, Any]) -> None:
        self.running -= 1
        self.n += 1
        self.ok += bool(line.get("passed"))
        rate = f"{100 * self.ok / self.n:.0f}%"
        self.bar.update(self.task, advance=1, ok=self.ok, rate=rate, running=self.running)
        if self.show_episodes:
            mark = {"passed": "[green]✔[/]", "failed": "[red]✘[/]"}.get(line.get("outcome"), "[yellow]![/]")
            why = "" if line.get("passed") else f" [dim]{(line.get('reason') or '')[:100]}[/]"
            self.bar.console.print(f"{mark} {record.task} seed {record.seed} · score {line.get('score', 0):.2f} · {record.steps} steps · {record.timings.total:.1f}s{why}")

    def episode_retried(self, episode_id: str, reason: str) -> None:
        self.running -= 1
        self.bar.update(self.task, running=self.running)
        self.bar.console.print(f"[yellow]↻[/] {episode_id} · attempt lost, played again [dim]{reason[:100]}[/]")

    def close(self) -> None:
        self.bar.stop()
