"""One recording: an episode of the environment driven by a person, written as a trajectory.

A :class:`StudioSession` owns an :class:`sandbox.episode.Episode` (forked world, context signed in as
the persona, the settling and observation machinery of agents' episodes), a :class:`Recorder`, an
``EpisodeWriter`` and, in live mode, the screencast. Everything that changes it (input events,
notes, undo, restart, finish) goes through one queue, so events are handled strictly in order.

Modes:

- ``live``: the person drives the headless page from the studio page; each event is forwarded to the
  browser exactly as the executor would run the recorded action (same Playwright calls), then the
  page is settled. A step's screenshot is taken when the step is committed, i.e. before the event that
  completed it is forwarded: it shows the step's effect and nothing later.
- ``headed``: the person uses a Chromium window directly; ``scripts/capture.js`` reports the events
  after the page has seen them, so the screenshot of the pending step is taken after each event.

Undo replays all steps but the last in a fresh world (the env's own ``step``) and checks that each
replayed step changed the world as recorded; restart replays none. Finishing runs the task's verifier.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from apps_web.world import changelog

from sandbox.actions import BaseAction, parse_action
from sandbox.actions import keys as keymap
from sandbox.observe import ObserveOptions, capture_png
from sandbox.trajectory import AgentInfo, EpisodeRecord, EpisodeWriter, RunDir, StepRecord, episode_name, write_atomic
from sandbox.trajectory.format import STEPS_FILE

from .inputs import KeyPress, MouseDown, MouseMove, MouseRest, MouseUp, Paste, RawInput, Wheel, parse_input
from .live import LiveView
from .recorder import Recorder, key_combo, typed_char
from .targets import pressed_target

if TYPE_CHECKING:  # pragma: no cover
    from sandbox.episode import Episode
    from sandbox.runtime import Runtime
    from sandbox.spec import EpisodeSpec

Mode = Literal["live", "headed"]
SCRIPTS = Path(__file__).parent / "scripts"
PROBE_JS = (SCRIPTS / "probe.js").read_text()
CAPTURE_JS = (SCRIPTS / "capture.js").read_text()
BINDING = "__sbxStudioEmit"
_PX = 100  # one wheel click (sandbox.actions.SCROLL_PIXELS_PER_CLICK)
SHOT_WAIT_S = 0.3  # bound on waiting for the live frame of a step before screenshotting it


class SessionError(RuntimeError):
    """A request the session cannot honour now (finished, nothing to undo...); shown to the person."""


@dataclass
class _Command:
    kind: str
    payload: Any = None
    future: asyncio.Future | None = None


@dataclass
class StudioSession:
    runtime: Runtime
    spec: EpisodeSpec
    run: RunDir
    mode: Mode = "live"
    demonstrator: str = "human"
    id: str = ""
    episode: Episode | None = None
    writer: EpisodeWriter | None = None
    recorder: Recorder = field(default_factory=Recorder)
    live: LiveView = field(default_factory=LiveView)
    steps: list[StepRecord] = field(default_factory=list)
    finished: bool = False
    verdict: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    _queue: asyncio.Queue | None = None
    _worker: asyncio.Task | None = None
    _seq: int = 0
    _pending_png: bytes | None = None
    _shot: asyncio.Task | None = None  # live mode: the pending step's screenshot, taken while the person pauses
    _count: int = 1
    _frames_at_input: int = 0
    _db: Any = None  # a connection to the episode's world, for its change log
    _final_url: str | None = None
    _headed_mark: Any = None
    _targets: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    _where: tuple[str, str] = ("", "")  # url and title of the page after the last settled input
    _pending_inputs: int = 0
    _held: tuple[str, ...] = ()
    _dirty_notes: bool = False
    _t0: float = field(default_factory=time.perf_counter)

    # -- life cycle ----------------------------------------------------------------------------------
    async def start(self) -> StudioSession:
        self._queue = asyncio.Queue()
        self.id = self.id or self._free_id()
        await self._open()
        self._worker = asyncio.create_task(self._work(), name=f"studio-{self.id}")
        return self

    def _free_id(self) -> str:
        repeat = 0
        while True:
            name = episode_name(self.spec.id, self.spec.seed, repeat)
            if not (self.run.episodes_dir / name).exists() and not (self.run.episodes_dir / f"{name}.partial").exists():
                return name
            repeat += 1

    async def _open(self) -> None:
        """A fresh episode (new world), writer and first observation; the live view follows its page."""
        from sandbox.episode import Episode

        episode, obs, info = await Episode.open(self.runtime, self.spec, observe=ObserveOptions(screenshot="png"))
        self.episode = episode
        context = episode.context
        await context.add_init_script(PROBE_JS)
        if self.mode == "headed":
            await context.expose_binding(BINDING, self._on_binding)
            await context.add_init_script(CAPTURE_JS)
        for script in (PROBE_JS, CAPTURE_JS) if self.mode == "headed" else (PROBE_JS,):
            await episode.page.evaluate(script)  # the start page loaded before the scripts were added
        if self.mode == "headed":
            await episode.page.bring_to_front()
        self._headed_mark = None
        if self._db is not None:
            self._db.close()
        self._db = episode.world.connect()
        self._seq = changelog.last_seq(self._db)
        self._where = (obs.get("url", ""), obs.get("title", ""))
        meta = self.spec.metadata or {}
        record = EpisodeRecord(
            id=self.id, task=self.spec.id, seed=self.spec.seed, source="human",
            agent=AgentInfo(name=self.demonstrator, spec="studio", config={"mode": self.mode}),
            instruction=self.spec.instruction, app=self.spec.app, difficulty=meta.get("difficulty"),
            tags=_tags(meta.get("tags")), start_url=self.spec.start_url,
            viewport=dict(zip(("width", "height"), episode.settings.viewport)), max_steps=self.spec.max_steps,
            world_id=episode.world.id, persona=episode.username,
        )  # fmt: skip
        self.writer = self.run.episode_writer(record)
        self.writer.screenshot(0, obs["screenshot"])
        self._pending_png = obs["screenshot"]
        self._t0 = time.perf_counter()
        await self.live.attach(episode.page)  # headed mode too: the studio page mirrors the window

    async def close(self) -> None:
        """Stop without finishing: the unfinished trajectory keeps its ``.partial`` folder."""
        if self._worker is not None:
            self._worker.cancel()
            try:
                await self._worker
            except BaseException:
                pass
            self._worker = None
        await self.live.close()
        if self.writer is not None and not self.writer.closed:
            self.writer.close()
        if self._db is not None:
            self._db.close()
            self._db = None
        if self.episode is not None:
            await self.episode.close()

    def _changes(self) -> Any:
        """The world's changes since the last step (one connection kept open: no reconnect per step)."""
        diff, self._seq = changelog.changes_since(self._db, self._seq)
        return diff

    # -- the queue -----------------------------------------------------------------------------------
    def submit(self, events: list[dict[str, Any]]) -> int:
        """Queue raw input events (validated now: a malformed one raises before any is queued)."""
        parsed = [parse_input(e) for e in events]
        if self.finished:
            raise SessionError("this recording is finished; start a new one")
        for ev in parsed:
            self._queue.put_nowait(_Command("input", ev))
        return len(parsed)

    async def command(self, kind: str, payload: Any = None) -> Any:
        """Run a control command (annotate, undo, restart, finish, snapshot) in order with the inputs."""
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Command(kind, payload, future))
        return await future

    async def _work(self) -> None:
        while True:
            cmd = await self._queue.get()
            try:
                if cmd.kind == "input":
                    if not self.finished:
                        await self._input(cmd.payload)
                    continue
                result = await getattr(self, f"_cmd_{cmd.kind}")(cmd.payload)
                if cmd.future is not None and not cmd.future.done():
                    cmd.future.set_result(result)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # one bad event must not end the recording
                if cmd.future is not None and not cmd.future.done():
                    cmd.future.set_exception(exc)
                else:
                    self._warn(f"{cmd.kind} failed: {type(exc).__name__}: {exc}")

    def _warn(self, text: str) -> None:
        self.warnings.append(text)
        self._broadcast({"type": "warning", "text": text})

    def _broadcast(self, event: dict[str, Any]) -> None:
        self.live.broadcast(orjson.dumps(event))

    # -- inputs --------------------------------------------------------------------------------------
    async def _input(self, ev: RawInput) -> None:
        episode = self.episode
        if isinstance(ev, MouseRest) and self.mode == "live":
            if not await self._hover_matters():
                return
        for action in self.recorder.feed(ev):
            await self._commit(action)
        if self.finished:  # that step reached the task's step limit
            return
        self._pending_inputs += 1
        if isinstance(ev, MouseMove):  # hover effects show at once; nothing to settle or record
            if self.mode == "live":
                await self._forward(ev)
            return
        if isinstance(ev, MouseRest) and self.mode == "headed":
            return
        # Headed: the event already reached the page, so what it started is measured from the mark
        # taken after the previous event.
        mark = self._headed_mark if self.mode == "headed" and self._headed_mark else episode.watch.mark()
        pages = len(episode._new_pages)
        if self.mode == "live":
            self._drop_shot()
            self._frames_at_input = self.live.frames
            await self._forward(ev)
        # A press starts nothing to wait for that its release does not (the release settles both); a
        # rest only moves the pointer.
        press = (ev.x, ev.y) if isinstance(ev, MouseDown) else None
        await self._after_input(mark, pages, settle=not isinstance(ev, MouseRest | MouseDown), press=press)

    async def _after_input(self, mark: Any, pages: int, *, settle: bool = True, press: tuple[int, int] | None = None) -> None:
        episode = self.episode
        if settle:
            settled = await episode.watch.settle(mark, episode.budget)
            self._where = (settled.url or episode.page.url, settled.title)
            if len(episode._new_pages) > pages or episode.watch.closed:
                settled = await episode._follow_pages(settled)  # a new tab became the page the person sees
                self._where = (settled.url or episode.page.url, settled.title)
                await self.live.attach(episode.page)
                await episode.page.evaluate(PROBE_JS)
        # One round trip: reset the hover probe's mark, see whether a <select> has focus, and for a
        # press, what it was on (the press rarely changes the element under the pointer).
        target = f"s.target({press[0]}, {press[1]})" if press else "null"
        try:
            probe = await episode.watch.evaluate(
                f"(() => {{ const s = window.__sbxStudio; if (!s) return [false, null]; s.mark(); "
                f"return [document.activeElement?.tagName === 'SELECT', {target}]; }})()"
            )
        except Exception:
            probe = None
        in_select, hint = probe if isinstance(probe, list) and len(probe) == 2 else (False, None)
        if press and hint:
            if len(self._targets) > 8:  # presses that became no step
                self._targets.clear()
            try:  # the oracle target, checked with the player's locator (drafts use it instead of x, y)
                oracle = await pressed_target(episode.page, hint, *press)
            except Exception:  # noqa: BLE001 - the page moved on: the step keeps its coordinates
                oracle = None
            # kept with the step: what the press was on, and the checked target (not the probe's proposals)
            self._targets[press] = {k: hint.get(k) for k in ("role", "name", "tag")} | ({"oracle": oracle} if oracle else {})
        if in_select:
            # A native <select>'s list is a popup the screencast does not paint (screenshots do): show
            # the person a captured frame while the list may be open.
            await self.live.snapshot()
        if self.mode == "headed":  # the event already happened: this is the pending step's effect
            self._pending_png = await capture_png(episode.watch.cdp)
            self._headed_mark = episode.watch.mark()
        elif self.recorder.pending is not None and self.recorder.pending["action"] != "type":
            # Screenshot the pending step now, while the person looks at the result: the input that
            # commits the step then goes to the page at once. (Typing is captured when it ends.)
            self._start_shot()
        self._broadcast({"type": "pending", "pending": self.recorder.describe_pending(), "url": episode.page.url})

    def _start_shot(self) -> None:
        """Screenshot the pending step once the live view has shown its effect (capturing sooner would
        make the person's frame wait behind the capture), while the person looks at the result."""
        shown = self.live.frames > self._frames_at_input  # a frame came after the input already
        frame = None if shown else self.live.next_frame()
        cdp = self.episode.watch.cdp

        async def shoot() -> bytes:
            if frame is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(frame), SHOT_WAIT_S)
                except asyncio.TimeoutError:  # nothing visible changed: no frame comes
                    pass
            task.capturing = True
            return await capture_png(cdp)

        task = asyncio.ensure_future(shoot())
        task.capturing = False
        self._shot = task

    def _drop_shot(self) -> None:
        """The page is about to change: a screenshot taken for the pending step no longer applies."""
        shot, self._shot = self._shot, None
        if shot is not None and not shot.done():
            if not shot.capturing:
                shot.cancel()
            shot.add_done_callback(lambda t: t.cancelled() or t.exception())  # finish quietly

    async def _hover_matters(self) -> bool:
        try:
            return bool(await self.episode.watch.evaluate("!!(window.__sbxStudio && window.__sbxStudio.hoverMatters())"))
        except Exception:
            return False

    async def _forward(self, ev: RawInput) -> None:
        """Send one event to the page with the same Playwright calls the executor uses for its action."""
        page = self.episode.page
        mouse, keyboard = page.mouse, page.keyboard
        executor = self.episode.executor
        if isinstance(ev, MouseMove | MouseRest):
            await mouse.move(ev.x, ev.y)
            executor.mouse = (ev.x, ev.y)
        elif isinstance(ev, MouseDown):
            if executor.mouse != (ev.x, ev.y):
                await mouse.move(ev.x, ev.y)
            self._held = tuple(keymap.MODIFIERS[m] for m in ev.mods)
            for key in self._held:
                await keyboard.down(key)
            await mouse.down(button=ev.button, click_count=ev.count)
            executor.mouse = (ev.x, ev.y)
            self._count = ev.count
        elif isinstance(ev, MouseUp):
            if executor.mouse != (ev.x, ev.y):
                await mouse.move(ev.x, ev.y)
            await mouse.up(button=ev.button, click_count=self._count)
            for key in reversed(self._held):
                await keyboard.up(key)
            self._held = ()
            executor.mouse = (ev.x, ev.y)
        elif isinstance(ev, Wheel):
            px = ev.clicks * _PX
            dx, dy = {"up": (0, -px), "down": (0, px), "left": (-px, 0), "right": (px, 0)}[ev.direction]
            held = [keymap.MODIFIERS[m] for m in ev.mods]
            for key in held:
                await keyboard.down(key)
            if executor.mouse != (ev.x, ev.y):
                await mouse.move(ev.x, ev.y)
            await mouse.wheel(dx, dy)
            for key in reversed(held):
                await keyboard.up(key)
            executor.mouse = (ev.x, ev.y)
        elif isinstance(ev, KeyPress):
            char = typed_char(ev)
            if char is not None:
                await keyboard.type(char)
            else:
                combo = key_combo(ev)
                if combo is not None:
                    for step in keymap.to_playwright(combo):
                        await keyboard.press(step)
        elif isinstance(ev, Paste):
            await keyboard.type(ev.text)

    # -- steps ---------------------------------------------------------------------------------------
    async def _commit(self, action: BaseAction, *, error: str | None = None) -> StepRecord:
        """Write one step: the action, its screenshot, the world changes since the previous step."""
        episode = self.episode
        t0 = time.perf_counter()
        if self.mode == "live":
            shot, self._shot = self._shot, None
            png = None
            if shot is not None and not shot.capturing:  # the next input came first: capture now
                shot.cancel()
                shot = None
            if shot is not None:
                try:
                    png = await shot
                except Exception:
                    png = None
            if png is None:
                png = await capture_png(episode.watch.cdp)
        else:
            png = self._pending_png
        changes = self._changes()
        url, title = self._where
        n = len(self.steps) + 1
        data = action.to_dict()
        rec = StepRecord(
            step=n, action=data, parsed=data, url=url or episode.page.url, title=title, error=error,
            blocked=[b["url"] for b in episode.blocked.drain()],
            changes=None if changes.is_empty else changes.model_dump(mode="json"),
            timing={"observe_ms": round((time.perf_counter() - t0) * 1000, 1)}, inputs=self._pending_inputs,
        )  # fmt: skip
        point = (data.get("x", data.get("start_x")), data.get("y", data.get("start_y")))
        if point in self._targets:
            rec.target = self._targets.pop(point)  # what the click was on: {role, name, tag}
        self._pending_inputs = 0
        self.writer.step(rec, png)
        self.steps.append(rec)
        episode.steps += 1
        episode.trajectory.append({"step": n, "action": data, "url": rec.url, "error": error})
        self._broadcast({"type": "step", "step": _public(rec)})
        if episode.steps >= self.spec.max_steps:
            episode.truncated = True
            await self._end(None, end_reason="max_steps")
        return rec

    # -- commands ------------------------------------------------------------------------------------
    async def _cmd_annotate(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Attach a sentence of reasoning to a step (default: the last one; commits the pending step)."""
        if self.finished:
            raise SessionError("this recording is finished; notes are added while recording")
        text = str(payload.get("text") or "").strip() or None
        index = payload.get("step")
        if index is None:
            for action in self.recorder.flush():
                await self._commit(action)
            if not self.steps:
                raise SessionError("there is no step to annotate yet")
            index = len(self.steps)
        if not 1 <= int(index) <= len(self.steps):
            raise SessionError(f"there is no step {index}")
        rec = self.steps[int(index) - 1]
        rec.thought = text
        self._dirty_notes = True
        self._broadcast({"type": "step", "step": _public(rec)})
        return _public(rec)

    async def _cmd_undo(self, _payload: Any = None) -> dict[str, Any]:
        if self.finished:
            raise SessionError("this recording is finished")
        if self.recorder.pending is not None:  # the pending step was done live: drop it
            keep = len(self.steps)
        elif self.steps:
            keep = len(self.steps) - 1
        else:
            raise SessionError("there is nothing to undo")
        return await self._rebuild(keep)

    async def _cmd_restart(self, _payload: Any = None) -> dict[str, Any]:
        if self.finished:
            raise SessionError("this recording is finished")
        return await self._rebuild(0)

    async def _rebuild(self, keep: int) -> dict[str, Any]:
        """A fresh world and page, with the first ``keep`` steps replayed by the env."""
        kept = self.steps[:keep]
        self.recorder.discard()
        self._targets.clear()
        self._drop_shot()
        await self.live.detach()
        self.writer.close()
        shutil.rmtree(self.writer.dir, ignore_errors=True)
        await self.episode.close()
        self.steps = []
        self._pending_inputs = 0
        await self._open()
        diverged = []
        for old in kept:
            result = await self.episode.step(old.parsed)
            info = result.info
            changes = info.get("changes")
            changes_json = None if changes is None or changes.is_empty else changes.model_dump(mode="json")
            if changes_json != old.changes:
                diverged.append(old.step)
            rec = StepRecord(
                step=old.step, action=old.action, parsed=old.parsed, thought=old.thought, url=info.get("url"),
                title=result.observation.get("title"), error=info.get("error"),
                blocked=[b["url"] for b in info.get("blocked_requests") or []], changes=changes_json,
                timing={"observe_ms": round(info.get("timing", {}).get("total_ms", 0.0), 1)}, replayed=True,
            )  # fmt: skip
            if getattr(old, "target", None):
                rec.target = old.target
            self.writer.step(rec, result.observation.get("screenshot"))
            self.steps.append(rec)
        self._seq = changelog.last_seq(self._db)
        self._where = (self.episode.page.url, await self.episode.page.title())
        await self.live.snapshot()
        state = {"type": "reset", "steps": [_public(s) for s in self.steps], "diverged": diverged, "url": self.episode.page.url}
        if diverged:
            state["warning"] = (
                f"replaying step(s) {', '.join(map(str, diverged))} did not change the world as recorded; "
                "check the page, or restart"
            )
        self._broadcast(state)
        return state

    async def _cmd_finish(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Commit the pending step, end with an answer or "infeasible", verify, finish the trajectory."""
        if self.finished:
            raise SessionError("this recording is already finished")
        kind = payload.get("kind", "answer")
        text = str(payload.get("text") or "").strip()
        if kind == "answer":
            final = {"action": "answer", "text": text or "Done."}
        elif kind == "infeasible":
            final = {"action": "report_infeasible", "reason": text or "The task cannot be done."}
        else:
            raise SessionError(f"finish with kind 'answer' or 'infeasible', not {kind!r}")
        for action in self.recorder.flush():
            await self._commit(action)
        if self.finished:  # the step limit was reached on the way
            return self.summary()
        return await self._end(parse_action(final), end_reason="answer" if kind == "answer" else "report_infeasible")

    async def _end(self, final: BaseAction | None, *, end_reason: str) -> dict[str, Any]:
        episode = self.episode
        verdict = None
        if final is not None:
            t0 = time.perf_counter()
            result = await episode.step(final.to_dict())
            data = final.to_dict()
            changes = self._changes()
            rec = StepRecord(
                step=len(self.steps) + 1, action=data, parsed=data, url=result.info.get("url"),
                title=result.observation.get("title"), reward=result.reward, terminated=result.terminated,
                truncated=result.truncated, changes=None if changes.is_empty else changes.model_dump(mode="json"),
                timing={"observe_ms": round((time.perf_counter() - t0) * 1000, 1)},
            )  # fmt: skip
            self.writer.step(rec, result.observation.get("screenshot"))
            self.steps.append(rec)
            verdict = result.info.get("verdict")
        else:
            verdict = await episode.verify()
        self.finished = True
        self.verdict = verdict.model_dump(mode="json") if verdict is not None else None
        if self._dirty_notes:  # notes added to steps already written: rewrite the lines once, atomically
            self.writer._steps.flush()
            lines = b"".join(
                orjson.dumps(s.model_dump(mode="json", exclude_none=True)) + b"\n" for s in self.steps
            )
            write_atomic(self.writer.dir / STEPS_FILE, lines)
        record = self.writer.finish(
            answer=episode.answer, end_reason=end_reason,
            verdict=self.verdict,
            outcome="passed" if (verdict is not None and verdict.passed) else "failed",
            world_diff=episode.changes_since_start().model_dump(mode="json"),
        )  # fmt: skip
        self.run.add_result(record)
        await self._release()
        summary = self.summary()
        self._broadcast({"type": "finished", **summary})
        return summary

    async def _release(self) -> None:
        """A finished recording lets go of its browser context and world (the trajectory holds it all)."""
        self._final_url = self.episode.page.url
        await self.live.detach()
        if self._db is not None:
            self._db.close()
            self._db = None
        await self.episode.close()

    async def _cmd_snapshot(self, _payload: Any = None) -> bytes | None:
        return await self.live.snapshot()

    async def _cmd_state(self, _payload: Any = None) -> dict[str, Any]:
        return self.state()

    # -- views ---------------------------------------------------------------------------------------
    @property
    def folder(self) -> Path:
        return self.writer.final_dir if self.finished else self.writer.dir

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "finished": self.finished,
            "verdict": self.verdict,
            "steps": len(self.steps),
            "folder": str(self.folder),
        }

    def state(self) -> dict[str, Any]:
        ep = self.episode
        return {
            "type": "state",
            "id": self.id,
            "mode": self.mode,
            "task": self.spec.id,
            "seed": self.spec.seed,
            "instruction": self.spec.instruction,
            "persona": ep.username if ep else None,
            "max_steps": self.spec.max_steps,
            "viewport": list(ep.settings.viewport) if ep else None,
            "url": self._final_url or (ep.page.url if ep else None),
            "steps": [_public(s) for s in self.steps],
            "pending": self.recorder.describe_pending(),
            "finished": self.finished,
            "verdict": self.verdict,
            "folder": str(self.folder) if self.writer else None,
            "warnings": self.warnings[-5:],
        }

    # -- headed mode ---------------------------------------------------------------------------------
    def _on_binding(self, source: Any, event: Any) -> None:
        """An event from capture.js in the person's window (only the episode's main page counts)."""
        if self.finished or self._queue is None or not isinstance(event, dict):
            return
        if source.get("frame") is not None and source["frame"] != source["page"].main_frame:
            return
        try:
            self._queue.put_nowait(_Command("input", parse_input(event)))
        except Exception:  # a malformed event from the page: ignore it
            return


def _tags(tags: Any) -> list[str]:
    if isinstance(tags, dict):
        return [f"{k}:{v}" for k, vals in tags.items() for v in (vals or [])]
    return list(tags or [])


def _public(rec: StepRecord) -> dict[str, Any]:
    """A step as the studio page shows it."""
    return {
        "step": rec.step,
        "action": rec.parsed,
        "thought": rec.thought,
        "url": rec.url,
        "changes": _change_lines(rec.changes),
        "screenshot": rec.screenshot,
    }


def _change_lines(changes: dict[str, Any] | None) -> list[str]:
    if not changes:
        return []
    from apps_web.world import WorldDiff

    return WorldDiff.model_validate(changes).summary()


__all__ = ["Mode", "SessionError", "StudioSession"]
