"""`sandbox tasks`: list the task templates, show one instance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer


DIR_HELP = "Folder of task files (<dir>/<app>/*.yaml), e.g. the studio's drafts; it sees the shipped macros. Default: the shipped tasks."


def _registry(tasks_dir=None):  # noqa: ANN001, ANN202
    from tasks.registry import TaskLoadError, TaskRegistry, default_registry

    if tasks_dir is not None and not tasks_dir.is_dir():
        typer.echo(f"error: no folder {tasks_dir}", err=True)
        raise typer.Exit(2)
    reg = TaskRegistry(tasks_dir) if tasks_dir is not None else default_registry()
    try:
        reg.load()
    except TaskLoadError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    return reg


def register(app: typer.Typer) -> None:
    tasks = typer.Typer(help="List the task templates and show their instances.", invoke_without_command=True, no_args_is_help=False)
    app.add_typer(tasks, name="tasks", rich_help_panel="Evaluate")

    @tasks.callback()
    def list_tasks(
        ctx: typer.Context,
        as_json: bool = typer.Option(False, "--json", help="A JSON list of objects (id, app, difficulty, tags, ...)."),
        select: list[str] = typer.Option([], "--tasks", "-t", help="Selectors, comma-separated or repeated: id globs (crm.*), tag:GLOB, difficulty:GLOB, app:GLOB."),
        tasks_dir: Optional[Path] = typer.Option(None, "--dir", help=DIR_HELP),
    ) -> None:
        """List every task template (id, apps, category, difficulty, tags, step limit, near-misses)."""
        if ctx.invoked_subcommand is not None:
            ctx.obj = tasks_dir
            return
        reg = _registry(tasks_dir)
        rows = reg.summaries()
        if select:
            from sandbox.run.select import SelectionError, catalog, select_tasks

            try:
                keep = {t.id for t in select_tasks(catalog(reg), select)}
            except SelectionError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(2) from None
            rows = [r for r in rows if f"{r['app']}.{r['id']}" in keep]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{len(rows)} tasks", title_justify="left")
        table.add_column("id", no_wrap=True)
        table.add_column("apps", no_wrap=True)
        table.add_column("category", no_wrap=True)
        table.add_column("difficulty")
        table.add_column("tags (skill; occupation)")
        table.add_column("steps", justify="right")
        table.add_column("near-misses", justify="right")
        for r in rows:
            tags = ", ".join(r["tags"]["skill"]) + "; " + ", ".join(r["tags"]["occupation"])
            table.add_row(f"{r['app']}.{r['id']}", "+".join([r["app"], *r["apps"]]), r["category"], r["difficulty"], tags, str(r["max_steps"]), str(len(r["near_misses"])))
        Console(width=max(Console().width, 140)).print(table)

    @tasks.command("show")
    def show(
        ctx: typer.Context,
        task_id: str = typer.Argument(..., help="Task id: opportunity-close-won, crm.opportunity-close-won or sandbox/crm.…"),
        seed: int = typer.Option(0, "--seed", "-s", min=0, help="Seed of the instance (draws the parameters and the world)."),
        as_json: bool = typer.Option(False, "--json", help="The instance as JSON."),
        tasks_dir: Optional[Path] = typer.Option(None, "--dir", help=DIR_HELP),
    ) -> None:
        """Show one instance: instruction, persona, start page, parameters, verifier, oracle and near-misses."""
        from tasks.errors import UnknownTask
        from tasks.params import InstanceError

        reg = _registry(tasks_dir or ctx.obj)
        try:
            inst = reg.instance(task_id, seed)
        except (UnknownTask, InstanceError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        data = inst.describe()
        data["verifier"] = inst.template.verifier
        t = inst.template
        data.update(title=t.title, apps=[t.app, *t.apps], category=t.category, difficulty=t.difficulty, tags=t.tags.model_dump(), env_id=t.env_id,
                    file=str(reg.task(f"{t.app}.{t.id}").path))
        if as_json:
            typer.echo(json.dumps(data, indent=2, default=str))
            return
        import yaml
        from rich.console import Console

        console = Console()
        console.print(f"[bold]{t.env_id}[/]  {t.title}  ({t.category}, {t.difficulty}, seed {seed})")
        if t.apps:
            console.print(f"[bold]Apps[/]         {', '.join([t.app, *t.apps])}")
        console.print(f"[dim]{data['file']}[/]")
        console.print(f"\n[bold]Instruction[/]  {inst.instruction}")
        console.print(f"[bold]Persona[/]      {inst.persona}    [bold]Start[/] {inst.start_url}    [bold]Max steps[/] {t.max_steps}")
        params = {k: v for k, v in data["params"].items() if k not in ("persona", "task", "seed", "now", "today")}
        for title, value in (("Parameters", params), ("Verifier", data["verifier"]), ("Oracle", data["oracle"])):
            console.print(f"\n[bold]{title}[/]")
            console.print(yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=120).rstrip(), markup=False, highlight=False)
        console.print("\n[bold]Near-misses[/]")
        for nm in inst.near_misses:
            console.print(f"  {nm.name} ({nm.kind}, {nm.via}){': ' + nm.description if nm.description else ''}")
