"""`sandbox app`: the apps' tools from a shell (list, call, and `APP OBJECT VERB --field value`).

A command is answered by the warm app server of its world store when one runs (:mod:`sandbox.app_server`:
the same :func:`run`, without building the apps again); otherwise it runs here, and starts one for the
next command.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
from typing import Callable, Mapping, Optional

import typer

USAGE = """sandbox app tools [APP] [--json]            list the tools
sandbox app APP OBJECT VERB [--field value...]   e.g. sandbox app crm opportunity update --record-id 40 --stage "Closed Won"
sandbox app call TOOL [--field value...]     call a tool by name
sandbox app start --task TASK [--seed N]     fork a task's world; prints export lines and the instruction
sandbox app answer TEXT / infeasible REASON  (printed for verify: pass them to `sandbox app verify`)
sandbox app verify [--answer TEXT] [--infeasible REASON]   grade the episode named by the environment
sandbox app stop                             stop the warm app server (it stops by itself when idle)"""


def register(app: typer.Typer) -> None:
    @app.command("app", rich_help_panel="Apps", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}, help=USAGE)
    def app_command(
        ctx: typer.Context,
        words: Optional[list[str]] = typer.Argument(None, metavar="APP OBJECT VERB | tools | call | start | verify"),
        as_json: bool = typer.Option(False, "--json", help="JSON output (default: a table for lists, JSON otherwise)."),
    ) -> None:
        raise typer.Exit(execute(list(words or []) + list(ctx.args), as_json))


def execute(args: list[str], as_json: bool) -> int:
    """A `sandbox app` command from the command line: answered by the warm server (``start`` first starts
    one and waits for it), else run in this process, which then starts a server for the next command.
    Prints the output; returns the exit code. Typer's command and the command line's fast path
    (sandbox.cli) both end here."""
    from .. import app_server

    if args[:1] == ["stop"]:
        typer.echo(app_server.stop())
        return 0
    reply = app_server.ask(args, as_json)
    if reply is None and args[:1] == ["start"] and app_server.start_and_wait():
        reply = app_server.ask(args, as_json)  # an episode begins: every command after it is answered warm
    if reply is not None:
        if reply.out:
            typer.echo(reply.out)
        if reply.err:
            typer.echo(reply.err, err=True)
        return reply.code
    from ..shell_tools import ShellError  # (imports the apps' tools: only when the command runs here)

    try:
        code = asyncio.run(run(args, as_json, dict(os.environ), typer.echo))
    except ShellError as exc:
        typer.echo(f"error: {exc}", err=True)
        code = 2
    if code != 2:  # not for a usage error: a server is for the commands that follow real ones
        app_server.start_in_background()
    return code


# Where a command writes: ``echo(text, err=False)``; typer's echo here, the server collects it.
Echo = Callable[..., None]


async def run(args: list[str], as_json: bool, env: Mapping[str, str], echo: Echo, host=None) -> int:  # noqa: ANN001
    """One `sandbox app` command, for the episode ``env`` names (the ``SANDBOX_*`` variables), writing
    with ``echo``; ``host``: an app host with every app (the server's), else one is built with the apps the
    command needs. A usage error raises ShellError."""
    from apps_web.host import create_host
    from apps_web.tools import host_tools
    from apps_web.world import WorldStore

    from ..shell_tools import ShellError, episode_env, parse_fields, table, tool_for

    positional = []
    while args and not args[0].startswith("--"):
        positional.append(args.pop(0))
    if not positional:
        raise ShellError("say what to do:\n" + USAGE)
    head = positional[0]
    found = _spec(parse_fields(list(args)), env) if head in ("start", "verify") else None
    if host is None:
        # Only the apps the command needs: building an app's routes and tool list is most of a command's time.
        host = create_host(WorldStore(), apps=_apps_needed(positional, found[0] if found else None))
    store = host.state.store
    tools = {t.name: t for t in host_tools(host)}
    if head == "tools":
        shown = [t for t in tools.values() if len(positional) < 2 or t.app == positional[1]]
        if as_json:
            echo(json.dumps([t.describe() for t in shown], indent=2))
        else:
            if shown:
                echo("\n".join(f"{t.name:40} {t.description}" for t in shown))
        return 0
    if head == "start":
        return await _start(host, found, echo)
    if head == "verify":
        return await _verify(host, found, parse_fields(args), as_json, env, echo)
    if head == "call":
        if len(positional) != 2:
            raise ShellError("usage: sandbox app call TOOL [--field value...]")
        tool = tools.get(positional[1])
        if tool is None:
            raise ShellError(f"no tool {positional[1]!r} (`sandbox app tools` lists them)")
    elif len(positional) == 3:
        tool = tool_for(tools, *positional)
    else:
        raise ShellError("usage: sandbox app APP OBJECT VERB [--field value...]\n" + USAGE)
    from sandbox.tool_episode import ToolEpisode

    world_id, persona = episode_env(env)
    episode = ToolEpisode.attach(host, _world(store, world_id), persona)
    try:
        result = await episode.call(tool.name, parse_fields(args))
    finally:
        await episode.close()
    if not result.ok:
        echo(f"error ({result.status}): {result.text()}", err=True)
        return 1
    echo(json.dumps(result.data, indent=2, ensure_ascii=False, default=str) if as_json else table(result.data))
    return 0


def _world(store, world_id: str):  # noqa: ANN001, ANN202
    from apps_web.world.store import UnknownWorld

    from ..shell_tools import ShellError

    try:
        return store.get(world_id)
    except UnknownWorld as exc:
        raise ShellError(f"{exc} (`eval \"$(sandbox app start --task TASK)\"` starts an episode)") from None


def _apps_needed(positional: list[str], spec) -> tuple | None:  # noqa: ANN001
    """The installed apps a command uses (None: all of them): the task's apps for start and verify,
    the named app for `tools APP`, `APP OBJECT VERB` and `call APP_TOOL`."""
    from apps_web import registry

    installed = {s.name: s for s in registry.discover()}
    head = positional[0]
    if spec is not None:
        names = [spec.app, *spec.apps]
    elif head == "tools":
        names = positional[1:2]
    elif head == "call":
        names = [n for n in installed if len(positional) > 1 and positional[1].startswith(f"{n}_")][:1]
    else:
        names = positional[:1]
    if not names or any(n not in installed for n in names):
        return None  # unknown or unnamed: every app, so the error lists what exists
    return tuple(s for n, s in installed.items() if n in names)


def _spec(fields: dict, env: Mapping[str, str]):  # noqa: ANN202
    from tasks.registry import TaskRegistry

    from ..shell_tools import ENV_SEED, ENV_TASK, ShellError

    task = fields.get("task") or env.get(ENV_TASK)
    if not task:
        raise ShellError("which task? give --task TASK (or set SANDBOX_TASK)")
    seed = int(fields.get("seed", env.get(ENV_SEED, 0)))
    registry = TaskRegistry.for_task(str(task))
    try:
        return registry.get(registry.resolve_id(str(task)), seed), seed
    except KeyError as exc:
        raise ShellError(str(exc.args[0] if exc.args else exc)) from None


async def _start(host, found: tuple, echo: Echo) -> int:  # noqa: ANN001
    from sandbox.tool_episode import ToolEpisode

    from ..shell_tools import ENV_PERSONA, ENV_SEED, ENV_START, ENV_TASK, ENV_WORLD

    spec, seed = found
    episode = await ToolEpisode.open(host, spec)
    episode.keep_world = True
    await episode.close()
    exports = {ENV_WORLD: episode.world.id, ENV_PERSONA: episode.username or "", ENV_TASK: spec.id, ENV_SEED: str(seed), ENV_START: str(episode._start_seq)}
    echo("\n".join(f"export {k}={shlex.quote(v)}" for k, v in exports.items()))
    echo("# " + spec.instruction.strip().replace("\n", "\n# "))
    return 0


async def _verify(host, found: tuple, fields: dict, as_json: bool, env: Mapping[str, str], echo: Echo) -> int:  # noqa: ANN001
    from sandbox.tool_episode import ToolEpisode

    from ..shell_tools import ENV_START, episode_env

    spec, _seed = found
    world_id, persona = episode_env(env)
    episode = ToolEpisode.attach(host, _world(host.state.store, world_id), persona)
    episode.spec = spec
    episode._start_seq = int(env.get(ENV_START, "0"))
    if fields.get("answer") is not None:
        episode.submit_answer(str(fields["answer"]))
    if fields.get("infeasible") is not None:
        episode.report_infeasible(str(fields["infeasible"]))
    verdict = await episode.verify()
    await episode.close()
    if as_json:
        echo(json.dumps(verdict.model_dump(mode="json"), indent=2))
    else:
        echo(f"{'PASSED' if verdict.passed else 'FAILED'} score {verdict.score:.2f}: {verdict.reason}")
    return 0 if verdict.passed else 1
