"""Episode checkpoints: save a live episode mid-way, then resume it or start branches from it.

A checkpoint is a folder, written to a temporary folder beside it and renamed into place (a crash
never leaves half of one)::

    <checkpoint>/
        checkpoint.json     format, the task (id, seed, params, persona, interfaces...), steps,
                            trajectory so far, answer/infeasible state, change log start, milestones,
                            the browser's tabs (the active one marked), extensions' states, world checksum
        world.sqlite        the world, copied with SQLite's backup API (consistent while the host runs);
                            it keeps its change log, so the final diff still spans the whole episode
        storage.json        the browser's cookies and localStorage (Playwright's storage state), with
                            the sign-in cookies reduced to who was signed in (re-issued on resume for
                            the new world and the resuming host's secret) and origins without a port
        files/              the agent's files (its downloads), copied into the resumed episode's folder

Resuming imports a copy of the world as a new world (the checkpoint is never changed by it), opens
a context with the saved storage, reopens the tabs and restores the counters. The page's own state
beyond its address (scroll position, unsaved form input, back/forward history, an open file chooser) is
not kept.

``branch=False`` continues the saved episode: that claims the checkpoint (a ``resumed.json`` marker)
so that the same episode is not continued twice by mistake. ``branch=True`` starts another branch and
leaves the checkpoint untouched: any number of branches can start from one checkpoint.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apps_web.world import changelog as _changelog

from .actions import ActionError
from .actions.urls import AppUrls
from .context import BrowserSettings
from .observe import ObserveOptions
from .settle import PageWatch, SettleBudget
from .spec import EpisodeSpec, TaskSource, free_spec

if TYPE_CHECKING:  # pragma: no cover
    from .episode import Episode
    from .runtime import Runtime

FORMAT = "cua-sandbox/checkpoint@1"
MANIFEST = "checkpoint.json"
WORLD_FILE = "world.sqlite"
STORAGE_FILE = "storage.json"
FILES_DIR = "files"
RESUMED_FILE = "resumed.json"
REQUIRED = ("format", "task", "steps", "trajectory", "start_seq", "seq", "tabs", "world")


class CheckpointError(ValueError):
    """A checkpoint that cannot be written or resumed; the message names the folder and what is wrong."""


# -- saving ---------------------------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write(path: Path, data: Any) -> None:
    with open(path, "wb") as f:
        f.write(json.dumps(data, ensure_ascii=False, default=str).encode())
        f.flush()
        os.fsync(f.fileno())


def _storage_for_file(state: dict[str, Any], episode: Episode) -> dict[str, Any]:
    """The browser's storage as it can be restored elsewhere: sign-in cookies reduced to their user
    (their signature is the host's secret and names this world), origins without the host's port."""
    from apps_web.identity import SESSION_COOKIE, WORLD_COOKIE, Signer
    from apps_web.identity.session import FLASH_COOKIE

    signer = Signer(episode.runtime.host.secret)
    cookies = []
    for c in state.get("cookies") or []:
        c = dict(c)
        if c.get("name") == FLASH_COOKIE:  # a one-shot message for the next page: not state
            continue
        if c.get("name") == SESSION_COOKIE:
            data = signer.load_session(c.get("value"))
            if data is None or data.world_id != episode.world.id:
                continue  # not a session of this world: it signs nobody in
            c["value"], c["session_user"] = "", data.username
        elif c.get("name") == WORLD_COOKIE:
            c["value"] = ""
        cookies.append(c)
    origins = [{**o, "origin": episode.urls.public(o.get("origin", ""))} for o in state.get("origins") or []]
    return {"cookies": cookies, "origins": origins}


def _spec_data(spec: EpisodeSpec) -> dict[str, Any]:
    return {
        "id": spec.id, "app": spec.app, "start_url": spec.start_url, "instruction": spec.instruction,
        "persona": spec.persona, "role": spec.role, "seed": spec.seed, "scale": spec.scale,
        "max_steps": spec.max_steps, "params": spec.params, "metadata": spec.metadata,
        "track_progress": spec.track_progress, "interfaces": list(spec.interfaces),
        "has_verifier": spec.verify is not None,
    }  # fmt: skip


def _manifest(episode: Episode, tabs: list[dict[str, Any]], world_sha: str) -> dict[str, Any]:
    extensions = {}
    for name, ext in episode.extensions.items():
        try:
            extensions[name] = ext.state()
        except Exception as exc:
            raise CheckpointError(f"extension {name!r} could not give its state for the checkpoint: {type(exc).__name__}: {exc}") from exc
    return {
        "format": FORMAT,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "task": _spec_data(episode.spec),
        "persona": episode.username,
        "world": {"file": WORLD_FILE, "sha256": world_sha, "seed": episode.world.seed, "from_world": episode.world.id},
        "reward_mode": episode.reward_mode,
        "steps": episode.steps,
        "terminated": episode.terminated,
        "truncated": episode.truncated,
        "answer": episode.answer,
        "infeasible_reason": episode.infeasible_reason,
        "last_error": episode.last_error,
        "trajectory": episode.trajectory,
        "start_seq": episode._start_seq,
        "seq": episode._seq,
        "progress": {"score": episode._progress, "reached": list(episode._reached)},
        "first_reached": dict(episode._first_reached),
        "milestones": episode.milestones,
        "tabs": tabs,
        "extensions": extensions,
        "origin": episode.origin,
    }


async def save(episode: Episode, path: Path | str, *, overwrite: bool = False) -> Path:
    """Write ``episode``'s checkpoint to the folder ``path`` (see the module doc); returns it."""
    if episode._closed:
        raise CheckpointError("this episode is closed: checkpoint it before closing it (or before the next reset)")
    path = Path(path)
    if path.exists() and not overwrite:
        raise CheckpointError(f"checkpoint folder {path} already exists: choose another path or pass overwrite=True")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    tmp.mkdir()
    try:
        world_file = tmp / WORLD_FILE
        snapshot = asyncio.ensure_future(asyncio.to_thread(episode.runtime.store.snapshot, episode.world, world_file))
        try:
            state = await episode.context.storage_state()
        finally:
            await snapshot
        tabs = [
            {"url": episode.urls.public(w.page.url), "active": w is episode.watch}
            for w in episode._watches if not w.closed and not w.page.is_closed()
        ]  # fmt: skip
        sha = await asyncio.to_thread(_sha256, world_file)
        await episode.files.settle()  # a download still being written is kept whole
        await asyncio.to_thread(_copy_files, episode.files, tmp / FILES_DIR)
        _write(tmp / STORAGE_FILE, _storage_for_file(state, episode))
        _write(tmp / MANIFEST, _manifest(episode, tabs, sha))
        if path.exists():  # overwrite: the old one stays whole until the new one is in place
            old = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.old")
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def _copy_files(files: Any, to: Path) -> None:
    names = files.names()
    if names:
        to.mkdir()
        for name in names:
            shutil.copyfile(files.folder / name, to / name)


# -- reading --------------------------------------------------------------------------------------------
@dataclass
class Checkpoint:
    """A checkpoint folder, read and checked (see :func:`read`)."""

    path: Path
    manifest: dict[str, Any]
    storage: dict[str, Any]

    @property
    def task(self) -> dict[str, Any]:
        return self.manifest["task"]

    @property
    def world_file(self) -> Path:
        return self.path / WORLD_FILE


def _load_json(path: Path, what: str, folder: Path) -> Any:
    if not path.is_file():
        raise CheckpointError(f"{folder} is not a complete checkpoint: {path.name} ({what}) is missing")
    try:
        return json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{path} ({what}) is damaged: it is not valid JSON ({exc})") from None


def read(path: Path | str, *, check_world: bool = True) -> Checkpoint:
    """Read a checkpoint folder; :class:`CheckpointError` names what is missing or damaged."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {path}: the folder does not exist")
    if not path.is_dir():
        raise CheckpointError(f"{path} is not a checkpoint: a checkpoint is a folder written by episode.checkpoint(path)")
    manifest = _load_json(path / MANIFEST, "the episode's state", path)
    if not isinstance(manifest, dict):
        raise CheckpointError(f"{path / MANIFEST} is damaged: it holds {type(manifest).__name__}, not an object")
    if manifest.get("format") != FORMAT:
        raise CheckpointError(f"{path / MANIFEST} has format {manifest.get('format')!r}; this version reads {FORMAT!r}")
    missing = [k for k in REQUIRED if k not in manifest]
    if missing:
        raise CheckpointError(f"{path / MANIFEST} is damaged: it lacks {', '.join(missing)}")
    task = manifest["task"]
    if not isinstance(task, dict) or not all(k in task for k in ("id", "app", "seed")):
        raise CheckpointError(f"{path / MANIFEST} is damaged: its task lacks id, app or seed")
    storage = _load_json(path / STORAGE_FILE, "the browser's cookies and storage", path)
    if not isinstance(storage, dict):
        raise CheckpointError(f"{path / STORAGE_FILE} is damaged: it holds {type(storage).__name__}, not an object")
    cp = Checkpoint(path=path, manifest=manifest, storage=storage)
    if check_world:
        _check_world(cp)
    return cp


def _check_world(cp: Checkpoint) -> None:
    world = cp.world_file
    if not world.is_file():
        raise CheckpointError(f"{cp.path} is not a complete checkpoint: {WORLD_FILE} (the world) is missing")
    expected = (cp.manifest.get("world") or {}).get("sha256")
    if expected and _sha256(world) != expected:
        raise CheckpointError(f"{world} does not match the checksum recorded in {MANIFEST}: the world file was changed or damaged")
    try:
        conn = sqlite3.connect(f"file:{world}?mode=ro", uri=True)
        try:
            conn.execute("SELECT key, value FROM sandbox_meta").fetchall()
            _changelog.last_seq(conn)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise CheckpointError(f"{world} is not a readable world (SQLite: {exc})") from None


# -- resuming -------------------------------------------------------------------------------------------
def spec_for(cp: Checkpoint, spec: EpisodeSpec | None = None, source: TaskSource | None = None) -> EpisodeSpec:
    """The episode spec of a checkpoint: ``spec`` if given (it must be the same task and seed), else
    the task drawn again from ``source``, else (a task without a verifier) rebuilt from the saved fields."""
    task = cp.task
    tid, seed = task["id"], int(task["seed"])
    if spec is None and source is not None:
        try:
            spec = source.get(tid, seed)
        except Exception as exc:
            raise CheckpointError(f"checkpoint {cp.path} is of task {tid!r} seed {seed}, which the task source cannot give: {exc}") from None
    if spec is not None:
        if spec.id != tid or spec.seed != seed:
            raise CheckpointError(f"checkpoint {cp.path} is of task {tid!r} seed {seed}, not {spec.id!r} seed {spec.seed}")
        saved = json.loads(json.dumps(task.get("params") or {}, default=str))
        if json.loads(json.dumps(spec.params or {}, default=str)) != saved:
            raise CheckpointError(
                f"checkpoint {cp.path}: task {tid!r} seed {seed} now draws other parameters than when it was saved "
                "(the task changed since): it cannot be resumed with this task library"
            )
        # The saved world already has the set-up; the saved episode's grading of progress goes on.
        return spec.replace(setup=None, track_progress=spec.track_progress or bool(task.get("track_progress")))
    if task.get("has_verifier"):
        raise CheckpointError(
            f"checkpoint {cp.path} is of task {tid!r}, which has a verifier: pass the task source "
            "(e.g. source=tasks.default_registry()) or its spec to resume it"
        )
    base = free_spec(task["app"], task.get("start_url") or "/", task.get("instruction") or "", persona=task.get("persona"),
                     role=task.get("role"), seed=seed, max_steps=int(task.get("max_steps") or 100),
                     interfaces=tuple(task.get("interfaces") or ("gui",)))  # fmt: skip
    return base.replace(id=tid, scale=int(task.get("scale") or 1), metadata=dict(task.get("metadata") or {}),
                        track_progress=bool(task.get("track_progress")))  # fmt: skip


def _storage_for_context(storage: dict[str, Any], runtime: Runtime, world_id: str) -> dict[str, Any]:
    """The saved storage for this host and the new world: sign-ins re-issued, origins on its port."""
    from apps_web.identity import SESSION_COOKIE, WORLD_COOKIE, Signer

    host = runtime.host
    signer = Signer(host.secret)
    sessions: dict[str, str] = {}  # one session per user, as a sign-in makes
    cookies = []
    for saved in storage.get("cookies") or []:
        if not isinstance(saved, dict):
            continue
        c = {k: v for k, v in saved.items() if k != "session_user"}
        if c.get("name") == SESSION_COOKIE:
            user = saved.get("session_user")
            if not user:
                continue
            c["value"] = sessions.setdefault(user, signer.session_value(user, world_id))
        elif c.get("name") == WORLD_COOKIE:
            c["value"] = world_id
        cookies.append(c)
    origins = []
    urls = AppUrls(host.port)
    for o in storage.get("origins") or []:
        if not isinstance(o, dict):
            continue
        try:
            origin = urls.resolve(str(o.get("origin", "")) + "/").rstrip("/")
        except ActionError:
            continue  # not an app-host origin: nothing of ours to restore
        origins.append({**o, "origin": origin})
    return {"cookies": cookies, "origins": origins}


def _claim(cp: Checkpoint, world_id: str) -> Path:
    """Mark the checkpoint as continued (``branch=False``); refuse if it already was."""
    marker = cp.path / RESUMED_FILE
    try:
        with open(marker, "x") as f:
            json.dump({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "pid": os.getpid(), "world": world_id}, f)
    except FileExistsError:
        try:
            seen = json.loads(marker.read_text())
        except (OSError, ValueError):
            seen = {}
        raise CheckpointError(
            f"checkpoint {cp.path} was already continued ({seen.get('at', 'at an unknown time')}, world {seen.get('world', '?')}): "
            "resume it with branch=True to start another branch from it"
        ) from None
    return marker




async def resume(
    cls: type[Episode],
    runtime: Runtime,
    path: Path | str,
    *,
    branch: bool = False,
    spec: EpisodeSpec | None = None,
    source: TaskSource | None = None,
    observe: ObserveOptions = ObserveOptions(),
    settings: BrowserSettings = BrowserSettings(),
    budget: SettleBudget = SettleBudget(),
    keep_world: bool = False,
    reward: str | None = None,
    extensions: dict[str, Any] | None = None,
) -> tuple[Episode, dict[str, Any], dict[str, Any]]:
    """Open a new episode from a checkpoint (see :meth:`sandbox.episode.Episode.resume`)."""
    from .episode import REWARD_MODES
    from .execute import Executor

    t0 = time.perf_counter()
    cp = await asyncio.to_thread(read, path)
    m = cp.manifest
    spec = spec_for(cp, spec, source)
    reward = reward or m.get("reward_mode") or "passed"
    if reward not in REWARD_MODES:
        raise CheckpointError(f"reward must be one of {', '.join(REWARD_MODES)}, got {reward!r}")
    host = runtime.host
    if spec.app not in host.app_names:
        raise CheckpointError(f"checkpoint {cp.path} starts in app {spec.app!r}, which this host does not serve (apps: {', '.join(host.app_names)})")
    saved_ext = m.get("extensions") or {}
    given = dict(extensions or {})
    # The spec's own extensions (the co-workers of a task with actors) are made as Episode.open makes
    # them; only extensions of the caller's own must be passed in.
    from .coworkers.extension import CoworkerExtension  # the one extension a spec makes (episode._open_extensions)

    missing = [name for name in saved_ext if name not in given and name != CoworkerExtension.name]
    if missing:
        raise CheckpointError(
            f"checkpoint {cp.path} holds the state of extension(s) {', '.join(map(repr, missing))}: pass "
            "extensions={name: object with restore(state)} to resume it"
        )
    world = await asyncio.to_thread(runtime.store.import_world, cp.world_file)
    marker: Path | None = None
    try:
        if not branch:
            marker = _claim(cp, world.id)
        state = _storage_for_context(cp.storage, runtime, world.id)
        ec = await runtime.context_for(world, None, settings, spec.app, spec.interfaces, storage_state=state)
    except BaseException:
        if marker is not None:
            marker.unlink(missing_ok=True)
        runtime.store.drop(world)
        raise
    context, watch = ec.context, ec.watch
    try:
        t_context = time.perf_counter()
        episode = cls(
            runtime=runtime, spec=spec, world=world, username=m.get("persona"), context=context, observe=observe,
            settings=settings, budget=budget, executor=Executor(settings.viewport, host, settings.typing),
            watch=watch, blocked=ec.blocked, keep_world=keep_world, reward_mode=reward,
        )  # fmt: skip
        episode._db = world.connect()
        episode.steps = int(m["steps"])
        episode.terminated, episode.truncated = bool(m.get("terminated")), bool(m.get("truncated"))
        episode.answer, episode.infeasible_reason = m.get("answer"), m.get("infeasible_reason")
        episode.last_error = m.get("last_error")
        episode.trajectory = list(m["trajectory"])
        episode._start_seq, episode._seq = int(m["start_seq"]), int(m["seq"])
        progress = m.get("progress") or {}
        episode._progress, episode._reached = float(progress.get("score") or 0.0), list(progress.get("reached") or [])
        episode._first_reached = {str(k): int(v) for k, v in (m.get("first_reached") or {}).items()}
        episode._milestones = [dict(x) for x in m.get("milestones") or []]
        episode.origin = {"checkpoint": str(cp.path.resolve()), "branch": branch, "step": episode.steps,
                          "from_world": (m.get("world") or {}).get("from_world")}  # fmt: skip
        from .episode import _open_extensions

        _open_extensions(episode)
        for name, obj in given.items():
            old_ext = episode.extensions.pop(name, None)
            if old_ext is not None and old_ext is not obj and hasattr(old_ext, "close"):
                old_ext.close()
            episode.extensions[name] = obj
        for name, obj in episode.extensions.items():
            if name in saved_ext:
                obj.restore(saved_ext[name])
        saved_files = cp.path / FILES_DIR
        if saved_files.is_dir():
            for f in sorted(saved_files.iterdir()):
                if f.is_file():
                    await asyncio.to_thread(shutil.copyfile, f, episode.files.folder / f.name)
        await _reopen_tabs(episode, m["tabs"], ec.page)
        context.on("page", episode._on_page)
        settled, png = await episode.watch.settle_capture(episode.watch.mark(), budget, capture=observe.screenshot != "none",
                                                          fast=observe.fast_png)  # fmt: skip
        obs, extra = await episode._observe(settled, None, png)  # "changes": any since the checkpoint's last step
    except BaseException:
        await context.close()
        if marker is not None:
            marker.unlink(missing_ok=True)
        if not keep_world:
            runtime.store.drop(world)
        raise
    t_end = time.perf_counter()
    info = {
        "task_id": spec.id, "seed": spec.seed, "world_id": world.id, "persona": episode.username, "url": obs["url"],
        "error": None, "blocked_requests": ec.blocked.drain(), "step": episode.steps, "resumed": dict(episode.origin),
        "timing": {"context_ms": (t_context - t0) * 1000, "total_ms": (t_end - t0) * 1000}, **extra,
        **episode.files.info(),
    }  # fmt: skip
    if episode._grades_progress:
        info["milestones"] = episode.milestones
    return episode, obs, info


async def _reopen_tabs(episode: Episode, tabs: list[dict[str, Any]], first_page: Any) -> None:
    """Open the saved tabs in their order (the first in the context's page), the active one on top."""
    urls = episode.urls
    budget = episode.budget
    tabs = [t for t in tabs if isinstance(t, dict)] or [{"url": episode.spec.start_url, "active": True}]
    watches: list[PageWatch] = []
    active: PageWatch | None = None
    for i, tab in enumerate(tabs):
        if i == 0:
            page, watch = first_page, episode.watch
        else:
            page = await episode.context.new_page()
            watch = await PageWatch.attach(page)
        try:
            target = urls.resolve(str(tab.get("url") or "/"), episode.runtime.host.url(episode.spec.app, "/"))
        except ActionError:
            target = None  # about:blank or a page off the host: the tab stays blank
        if target is not None:
            await page.goto(target, wait_until="load", timeout=budget.navigation * 1000)
            # The resumed page is the tab's first: `back` does not leave the sandbox.
            await watch.cdp.send("Page.resetNavigationHistory")
        watches.append(watch)
        if tab.get("active"):
            active = watch
    active = active or watches[-1]
    # The episode's tab order: the active one last (closing it hands over to the one before).
    episode._watches = [w for w in watches if w is not active] + [active]
    episode.watch = active
    if len(watches) > 1:
        await active.page.bring_to_front()


__all__ = ["FORMAT", "Checkpoint", "CheckpointError", "read", "resume", "save", "spec_for"]
