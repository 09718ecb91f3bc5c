"""One episode: a forked world, a browser context signed in as the persona, steps, and the verdict.

The episode ties the separate pieces together: ``context`` (the isolated BrowserContext), ``execute``
(actions), ``settle`` (waiting for their effects) and ``observe`` (what the agent sees). An env runs one
episode at a time; a pool runs many over the same runtime.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from apps_web.world import WorldDiff
from apps_web.world import changelog as _changelog

from .actions import ActionError, BaseAction, parse_action, scale_action
from .actions.scale import off_screen
from .actions.urls import AppUrls
from .context import BrowserSettings, final_user_of
from .execute import FINAL_ACTIONS, PASSIVE_ACTIONS, ExecResult, Executor
from .files import EpisodeFiles
from .observe import (
    Element,
    ObserveOptions,
    aria_snapshot,
    blank_screenshot,
    capture_png,
    encode_screenshot,
    next_frame,
    parse_snapshot,
)
from .settle import PageWatch, SettleBudget, SettleResult
from .spec import EpisodeSpec, fork_world

if TYPE_CHECKING:  # pragma: no cover
    from apps_web.world import World

    from .runtime import Runtime

REWARD_MODES = ("passed", "score", "progress")
OVER = "the episode is over (it was answered, reported infeasible or hit its step limit); call reset() to start a new one"


@dataclass
class StepResult:
    """What ``step`` returns, in gymnasium's order."""

    observation: dict[str, Any]
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    def astuple(self) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        return self.observation, self.reward, self.terminated, self.truncated, self.info


def out_of_screen(action: BaseAction, size: tuple[int, int]) -> str | None:
    """A message if any coordinate of ``action`` falls outside a screen of ``size`` (width, height)."""
    return off_screen(action, size)


def _fork(runtime: Runtime, spec: EpisodeSpec) -> tuple[World, str | None]:
    """A new world for ``spec`` with its setup applied, and the persona to sign in (in a worker thread)."""
    return fork_world(runtime.store, spec, runtime.host.apps)


TOOL_RESULT_CHARS = 1_000_000  # obs["tool_result"] (info["tool_result"] keeps the whole result)
# Actions that need neither interface: reading the screen, waiting, and ending the episode.
NEUTRAL_ACTIONS = frozenset({"screenshot", "wait", "answer", "report_infeasible"})


def interface_error(spec: EpisodeSpec, action: str) -> str | None:
    """Why ``action`` is not allowed by the task's interfaces (None if it is)."""
    if action == "tool_call":
        if not spec.allows_tools:
            return "This task is worked through the apps' screens: tool calls are not available (the task's interfaces: gui)."
        return None
    if action not in NEUTRAL_ACTIONS and not spec.allows_gui:
        return f"This task is worked through the apps' tools: {action} is not available (use tool_call; the task's interfaces: tools)."
    return None


@lru_cache(maxsize=8)
def tools_of(apps: tuple[str, ...]) -> tuple[Any, ...]:
    """The tools of these installed apps (derived once per process from their API documents)."""
    from apps_web import registry
    from apps_web.tools import app_tools

    return tuple(t for spec in registry.discover() if spec.name in apps for t in app_tools(spec))


@lru_cache(maxsize=1)
def _volatile() -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The installed apps' volatile tables and (table, column) patterns: changes verifiers ignore."""
    from apps_web import registry

    patterns = registry.volatile_columns()
    return tuple(p for p in patterns if "." not in p), tuple(tuple(p.split(".", 1)) for p in patterns if "." in p)  # type: ignore[misc]


def only_volatile(diff: WorldDiff) -> bool:
    """Whether a step's changes are nothing a verifier reads: none, or only volatile tables and columns
    (a record's recent views, its updated_at). Grading progress after such a step cannot change the
    verdict, so it is skipped (opening records in a long episode writes recent views every time)."""
    if diff.is_empty:
        return True
    tables, columns = _volatile()
    for name, table in diff.tables.items():
        if table.is_empty or any(fnmatchcase(name, p) for p in tables):
            continue
        if table.added or table.removed:
            return False
        for update in table.updated:
            if not all(any(fnmatchcase(name, t) and fnmatchcase(f, c) for t, c in columns) for f in update.fields):
                return False
    return True


def verify_context_fields(episode: Episode, final_user: str | None = None) -> dict[str, Any]:
    """Fields of ``verifiers.VerifyContext`` for the episode's end (used by ``Episode.verify``)."""
    from apps_web import registry

    return {
        "end_db": episode.world.path,
        "diff": episode.changes_since_start(),
        "instruction": episode.spec.instruction,
        "answer": episode.answer,
        "infeasible": episode.infeasible_reason is not None,
        "infeasible_reason": episode.infeasible_reason,
        "final_screenshot": episode.last_png,
        "steps": list(episode.trajectory),
        "params": dict(episode.spec.params),
        "ignore": registry.volatile_columns(),
        "persona": episode.username,
        "reached": dict(episode._first_reached),
        "final_user": final_user,
        "start_seq": episode._start_seq,
    }


@dataclass
class Episode:
    """A live episode. Create with :meth:`Episode.open`; drive with :meth:`step`; end with :meth:`close`."""

    runtime: Runtime
    spec: EpisodeSpec
    world: World
    username: str | None
    context: Any
    observe: ObserveOptions
    settings: BrowserSettings
    budget: SettleBudget
    executor: Executor
    watch: PageWatch
    blocked: Any
    keep_world: bool = False
    reward_mode: str = "passed"
    steps: int = 0
    terminated: bool = False
    truncated: bool = False
    answer: str | None = None
    infeasible_reason: str | None = None
    verdict: Any = None
    last_error: str | None = None
    last_png: bytes | None = None
    last_obs: dict[str, Any] | None = None
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    _seq: int = 0
    _start_seq: int = 0
    _db: Any = None
    _watches: list[PageWatch] = field(default_factory=list)
    _new_pages: list[Any] = field(default_factory=list)
    _page_event: asyncio.Event | None = None
    _closed: bool = False
    _progress: float = 0.0
    _reached: list[str] = field(default_factory=list)
    _first_reached: dict[str, int] = field(default_factory=dict)
    _tools: Any = None  # the episode's ToolSession, opened on its first tool call
    _milestones: list[dict[str, Any]] = field(default_factory=list)
    # Objects that live with the episode and are saved in its checkpoints: each has ``state()`` (JSON
    # data) and ``restore(state)`` (see sandbox.checkpoint); the co-workers' engine is "coworkers".
    extensions: dict[str, Any] = field(default_factory=dict)
    origin: dict[str, Any] | None = None  # the checkpoint a resumed episode started from
    files: EpisodeFiles = field(default_factory=EpisodeFiles)  # the agent's downloads and uploads

    def __post_init__(self) -> None:
        self.executor.files = self.files
        self.files.attach(self.watch.page)

    # -- creation ------------------------------------------------------------------------------------
    @classmethod
    async def open(
        cls,
        runtime: Runtime,
        spec: EpisodeSpec,
        *,
        observe: ObserveOptions = ObserveOptions(),
        settings: BrowserSettings = BrowserSettings(),
        budget: SettleBudget = SettleBudget(),
        keep_world: bool = False,
        reward: str = "passed",
    ) -> tuple[Episode, dict[str, Any], dict[str, Any]]:
        """Fork the world, apply the spec's setup, open the context and the start page; first observation.

        ``reward``: ``"passed"`` (1.0/0.0 at the end), ``"score"`` (the verdict's partial credit at the
        end) or ``"progress"`` (each step, the change in the score; they sum to the final score)."""
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, got {reward!r}")
        t0 = time.perf_counter()
        host = runtime.host
        if spec.app not in host.app_names:
            raise ValueError(f"app {spec.app!r} is not served by this host (apps: {', '.join(host.app_names)})")
        world, username = await asyncio.to_thread(_fork, runtime, spec)
        try:
            t_world = time.perf_counter()
            ec = await runtime.context_for(world, username, settings, spec.app, spec.interfaces)
        except BaseException:
            runtime.store.drop(world)
            runtime.refill(settings, spec.app)
            raise
        context, page, watch, blocked = ec.context, ec.page, ec.watch, ec.blocked
        try:
            t_context = time.perf_counter()
            episode = cls(
                runtime=runtime, spec=spec, world=world, username=username, context=context, observe=observe,
                settings=settings, budget=budget, executor=Executor(settings.viewport, host, settings.typing),
                watch=watch, blocked=blocked, keep_world=keep_world, reward_mode=reward,
            )
            episode._watches.append(watch)
            context.on("page", episode._on_page)
            episode._db = world.connect()
            episode._seq = episode._start_seq = _changelog.last_seq(episode._db)
            _open_extensions(episode)
            try:  # a path, a public URL (no port) or one with the host's port
                start = episode.urls.resolve(spec.start_url, host.url(spec.app, "/"))
            except ActionError as exc:
                raise ValueError(f"start_url {spec.start_url!r} of {spec.id!r} is not on the app host: {exc}") from None
            await page.goto(start, wait_until="load", timeout=budget.navigation * 1000)
            # The start page is the first page of the tab: `back` must not reach the about:blank before it.
            forget = asyncio.ensure_future(watch.cdp.send("Page.resetNavigationHistory"))
            settled, png = await watch.settle_capture(watch.mark(), budget, capture=observe.screenshot != "none", fast=observe.fast_png)
            await forget
            await runtime.start_page_shown(page, settings, spec.app)
            t_page = time.perf_counter()
            obs, extra = await episode._observe(settled, None, png)
            if episode._grades_progress:  # the milestones to reach (none is reached by doing nothing)
                episode._track(await episode.verify())
        except BaseException:
            runtime.refill(settings, spec.app)
            await context.close()
            if not keep_world:
                runtime.store.drop(world)
            raise
        t_end = time.perf_counter()
        info = {
            "task_id": spec.id,
            "seed": spec.seed,
            "world_id": world.id,
            "persona": username,
            "url": obs["url"],
            "error": None,
            "blocked_requests": blocked.drain(),
            "timing": {
                "world_ms": (t_world - t0) * 1000,
                "context_ms": (t_context - t_world) * 1000,
                "page_ms": (t_page - t_context) * 1000,
                "observe_ms": (t_end - t_page) * 1000,
                "total_ms": (t_end - t0) * 1000,
            },
            **extra,
        }
        if episode._grades_progress:
            info["milestones"] = episode.milestones
        return episode, obs, info

    @classmethod
    async def resume(
        cls,
        runtime: Runtime,
        path: Any,
        *,
        branch: bool = False,
        spec: EpisodeSpec | None = None,
        source: Any = None,
        observe: ObserveOptions = ObserveOptions(),
        settings: BrowserSettings = BrowserSettings(),
        budget: SettleBudget = SettleBudget(),
        keep_world: bool = False,
        reward: str | None = None,
        extensions: dict[str, Any] | None = None,
    ) -> tuple[Episode, dict[str, Any], dict[str, Any]]:
        """Open a new episode from a checkpoint folder (see :mod:`sandbox.checkpoint`): its world copied
        as a new world, the browser's cookies, storage and tabs, the steps, trajectory, milestones and
        extensions' states. ``branch=False`` continues the saved episode (once); ``branch=True`` starts
        another branch (the checkpoint is untouched: any number can start from it).

        A task with a verifier needs ``source`` (a TaskSource, drawn again at the saved seed) or its
        ``spec``; ``reward`` defaults to the saved mode; ``extensions`` gives the objects whose saved
        states are restored (each by ``restore(state)``). A missing or damaged checkpoint raises
        :class:`sandbox.checkpoint.CheckpointError` naming what is wrong."""
        from .checkpoint import resume

        return await resume(cls, runtime, path, branch=branch, spec=spec, source=source, observe=observe, settings=settings,
                            budget=budget, keep_world=keep_world, reward=reward, extensions=extensions)  # fmt: skip

    async def checkpoint(self, path: Any, *, overwrite: bool = False) -> Any:
        """Save the episode as it stands to the folder ``path`` (written whole or not at all); returns
        its Path. Resume it with :meth:`resume`."""
        from .checkpoint import save

        return await save(self, path, overwrite=overwrite)

    def _on_page(self, page: Any) -> None:
        self.files.attach(page)
        self._new_pages.append(page)
        if self._page_event is not None:
            self._page_event.set()

    async def _wait_new_page(self, count: int) -> None:
        self._page_event = asyncio.Event()
        try:
            if len(self._new_pages) == count:
                await asyncio.wait_for(self._page_event.wait(), self.budget.navigation)
        except asyncio.TimeoutError:
            pass
        finally:
            self._page_event = None

    # -- properties ----------------------------------------------------------------------------------
    @property
    def page(self) -> Any:
        """The page the agent sees (the newest open tab)."""
        return self.watch.page

    @property
    def urls(self) -> AppUrls:
        """The app host's addresses: public URLs (no port) for the agent, real ones for the browser."""
        return self.executor.urls

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    @property
    def screen_size(self) -> tuple[int, int]:
        """(width, height) of the screenshots the agent sees, in whose pixels it sends coordinates."""
        return self.observe.size or self.settings.viewport

    @property
    def scale(self) -> tuple[float, float]:
        """Viewport pixels per screenshot pixel (1, 1 unless the observation is resized)."""
        vw, vh = self.settings.viewport
        sw, sh = self.screen_size
        return vw / sw, vh / sh

    def changes_since_start(self) -> WorldDiff:
        conn = self._db or self.world.connect()
        diff, _ = _changelog.changes_since(conn, self._start_seq)
        if conn is not self._db:
            conn.close()
        return diff

    # -- stepping ------------------------------------------------------------------------------------
    async def step(self, action: Any) -> StepResult:
        """Parse and run one action, settle, observe; reward and verdict at the end of the episode."""
        t0 = time.perf_counter()
        if self._closed:
            raise RuntimeError("this episode is closed; reset the env to start a new one")
        if self.done:
            obs = dict(self.last_obs or {})
            obs["last_action_error"] = OVER
            return StepResult(obs, 0.0, self.terminated, self.truncated, {"error": OVER, "url": obs.get("url", "")})
        self.steps += 1
        parsed: BaseAction | None = None
        error: str | None = None
        try:
            parsed = parse_action(action)
        except ActionError as exc:
            error = str(exc)
        except Exception as exc:  # anything else that cannot be read as an action
            error = f"could not read the action: {exc}"
        if parsed is not None:
            error = interface_error(self.spec, parsed.action)
        if parsed is not None and error is None and self.observe.size is not None:
            error = out_of_screen(parsed, self.screen_size)
            if error is None:
                fx, fy = self.scale
                parsed = scale_action(parsed, fx, fy)
        t_parse = time.perf_counter()

        result = ExecResult(error=error)
        settled: SettleResult | None = None
        png: bytes | None = None
        tool_result: Any = None
        if parsed is not None and error is None and parsed.action == "tool_call":
            tool_result = await self._call_tool(parsed.name, parsed.arguments)
            result = ExecResult(error=None if tool_result.ok else f"tool_call {parsed.name}: {tool_result.text()}")
            t_act = time.perf_counter()
        elif parsed is not None and error is None:
            mark = self.watch.mark()
            pages_before = len(self._new_pages)
            result = await self.executor.run(self.page, parsed, self.budget.action)
            t_act = time.perf_counter()
            if parsed.action not in PASSIVE_ACTIONS:
                settled, png = await self.watch.settle_capture(
                    mark, self.budget, capture=self.observe.screenshot != "none" or result.done, fast=self.observe.fast_png,
                )
                if self.watch.opened > mark.opened and len(self._new_pages) == pages_before:
                    await self._wait_new_page(pages_before)  # the page asked for a new tab: wait for it
                if len(self._new_pages) > pages_before or self.watch.closed:
                    settled = await self._follow_pages(settled)
                    png = None
        else:
            t_act = time.perf_counter()
        await self.files.settle()  # a download the action started is on the agent's disk before it looks
        coworkers = self.extensions.get("coworkers")
        if coworkers is not None and parsed is not None and error is None:
            if getattr(coworkers, "in_thread", False):  # a model's HTTP call must not stall the other episodes
                delivered = await asyncio.to_thread(coworkers.after_step, persona=self.username, action_name=parsed.action)
            else:
                delivered = coworkers.after_step(persona=self.username, action_name=parsed.action)
            if delivered and parsed.action == "wait" and not self.watch.closed:  # waiting shows what arrived
                mark = self.watch.mark()
                await self.page.reload(wait_until="load", timeout=self.budget.navigation * 1000)
                settled, png = await self.watch.settle_capture(mark, self.budget, capture=self.observe.screenshot != "none", fast=self.observe.fast_png)
        else:
            delivered = []
        t_settle = time.perf_counter()

        if result.done:
            self.terminated = True
            self.answer = result.answer
            self.infeasible_reason = result.infeasible_reason
        if not self.terminated and self.steps >= self.spec.max_steps:
            self.truncated = True
        self.last_error = result.error

        obs, extra = await self._observe(settled, result, png, tool_result)
        t_obs = time.perf_counter()

        info: dict[str, Any] = {
            "step": self.steps,
            "action": parsed.to_dict() if parsed is not None else None,
            "url": obs["url"],
            "error": result.error,
            "blocked_requests": self.blocked.drain(),
            **extra,
        }
        if tool_result is not None:
            info["tool_result"] = tool_result.as_dict()
        if delivered:
            info["coworkers"] = delivered
        if result.cut:
            info["cut"] = True
        info.update(self.files.info())
        if settled is not None and settled.timed_out:
            info["settle"] = "; ".join(settled.detail)
        line = {"step": self.steps, "action": info["action"], "url": obs["url"], "error": result.error}
        if tool_result is not None:
            line["tool_result"] = tool_result.as_dict()
        if delivered:
            line["coworkers"] = delivered
        self.trajectory.append(line)
        reward = 0.0
        reached: list[str] = []
        t_verify = time.perf_counter()
        if self.done:
            self.verdict = await self.verify()
            if self.verdict is not None:
                reward = self._reward(self.verdict)
                info["verdict"] = self.verdict
                if self._grades_progress:  # after grading: milestones first seen now count as reached last
                    reached = self._track(self.verdict)
            if self.answer is not None:
                info["answer"] = self.answer
            if self.infeasible_reason is not None:
                info["infeasible_reason"] = self.infeasible_reason
        elif self._grades_progress and not only_volatile(extra["changes"]):
            progress = await self.verify()  # the world changed: grade the progress so far
            reached = self._track(progress)
            if self.reward_mode == "progress":
                reward = self._reward(progress)
        if reached:
            line["milestones"] = reached
        if self._grades_progress:
            info["milestones"] = self.milestones
        if self.reward_mode == "progress" and self.spec.verify is not None:
            info["progress"] = {"score": self._progress, "reached": list(self._reached)}
        t_end = time.perf_counter()
        info["timing"] = {
            "parse_ms": (t_parse - t0) * 1000,
            "act_ms": (t_act - t_parse) * 1000,
            "settle_ms": (t_settle - t_act) * 1000,
            "observe_ms": (t_obs - t_settle) * 1000,
            "verify_ms": (t_end - t_verify) * 1000,
            "total_ms": (t_end - t0) * 1000,
        }
        return StepResult(obs, reward, self.terminated, self.truncated, info)

    @property
    def _grades_progress(self) -> bool:
        return self.spec.verify is not None and (self.reward_mode == "progress" or self.spec.track_progress)

    @property
    def milestones(self) -> list[dict[str, Any]]:
        """The task's milestones (its top-level credit checks) as of the last grading: ``name``,
        ``sentence``, ``weight``, ``reached`` (it holds now) and ``step`` (the first step it held, None
        if never). Empty unless the episode grades its progress (``track_progress`` or progress reward)."""
        return [dict(m) for m in self._milestones]

    def _track(self, verdict: Any) -> list[str]:
        """Note when each check of a verdict graded after step ``self.steps`` first held; return the
        milestones first reached at this step. Grading is skipped on steps that change nothing, so a
        long episode runs the verifier only as often as the world changes."""
        if verdict is None or not verdict.checks:  # no verifier, or it failed: keep what was known
            return []
        before = set(self._first_reached)
        if self.steps > 0:  # the grading at the start (step 0) only lists them: doing nothing reaches none
            for c in verdict.credit_checks() + [c for c in verdict.checks if not c.guard]:
                if c.passed:
                    self._first_reached.setdefault(c.name, self.steps)
        self._milestones = [
            {"name": c.name, "sentence": c.sentence, "weight": c.weight, "reached": bool(c.passed),
             "step": self._first_reached.get(c.name)}
            for c in verdict.checks if not c.guard
        ]  # fmt: skip
        return [m["name"] for m in self._milestones if m["reached"] and m["name"] not in before and m["step"] == self.steps]

    def _reward(self, verdict: Any) -> float:
        """The reward of a verdict in this episode's mode (``progress``: the change since the last one)."""
        if self.reward_mode == "passed":
            return 1.0 if verdict.passed else 0.0
        score = float(verdict.score)
        if self.reward_mode == "score":
            return score
        delta, self._progress = score - self._progress, score
        self._reached = [c.name for c in verdict.credit_checks() if c.passed]
        return delta

    async def _follow_pages(self, settled: SettleResult) -> SettleResult:
        """A new tab became the one the agent sees; a closed tab hands over to the one before it."""
        while self._new_pages:
            page = self._new_pages.pop(0)
            if page.is_closed():
                continue
            watch = await PageWatch.attach(page)
            self._watches.append(watch)
            self.watch = watch
            try:
                await page.wait_for_load_state("load", timeout=self.budget.navigation * 1000)
            except Exception:
                pass
            settled = await watch.settle(watch.mark(), self.budget)
        while self.watch.closed and len(self._watches) > 1:
            self._watches.remove(self.watch)
            self.watch = self._watches[-1]
            settled = await self.watch.settle(self.watch.mark(), self.budget)
        return settled

    # -- observing -----------------------------------------------------------------------------------
    async def _observe(
        self, settled: SettleResult | None, result: ExecResult | None, png: bytes | None = None, tool_result: Any = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        opts = self.observe
        watch = self.watch
        extra: dict[str, Any] = {}
        shot = None
        frame = None
        if png is None and not watch.closed:
            if opts.screenshot != "none" or self.done:  # the last frame is the verifier's final screenshot
                shot = asyncio.ensure_future(capture_png(watch.cdp, fast=opts.fast_png))
            else:
                # No screenshot wanted, but a frame still must be produced: a wheel scroll reaches the
                # page's layout only with the next frame, and the next step reads that layout. Waiting
                # for the frame costs about a sixth of capturing it (no raster read-back, no encode).
                frame = asyncio.ensure_future(next_frame(watch.cdp))
        state = asyncio.ensure_future(watch.check()) if settled is None and not watch.closed else None
        # While Chromium renders the frame: the world's changes, and the page's url and title.
        extra["changes"] = self._changes()
        if settled is not None:
            url, title = settled.url, settled.title
        else:
            info = await state if state is not None else None
            url, title = (info["url"], info["title"]) if info else (watch.page.url, "")
        url = self.urls.public(url or watch.page.url)
        snapshot = None
        if opts.wants_elements and not watch.closed:
            try:
                snapshot = await aria_snapshot(watch.page)
            except Exception as exc:
                extra["axtree_error"] = f"the accessibility tree could not be read: {exc}"
        if shot is not None:
            try:
                png = await shot
            except Exception as exc:
                extra["screenshot_error"] = str(exc).splitlines()[0]
        if frame is not None:
            await frame
        self.last_png = png
        if png is not None:
            if opts.screenshot == "array":
                screenshot = await asyncio.to_thread(encode_screenshot, png, "array", opts.size)
            else:
                screenshot = encode_screenshot(png, opts.screenshot, opts.size)
        else:
            screenshot = blank_screenshot(opts.screenshot, self.screen_size)
        obs: dict[str, Any] = {
            "screenshot": screenshot,
            "url": url,
            "title": title,
            "instruction": self.spec.instruction,
            "last_action_error": self.last_error or "",
        }
        if opts.tools:
            text = tool_result.text() if tool_result is not None else ""
            obs["tool_result"] = text if len(text) <= TOOL_RESULT_CHARS else text[: TOOL_RESULT_CHARS - 40] + " ... (truncated: ask for fewer rows)"
        if opts.screenshot == "none":
            del obs["screenshot"]
        if opts.wants_elements:
            text, elements = parse_snapshot(snapshot or "", self.settings.viewport, self.scale)
            if opts.axtree:
                obs["axtree"] = text
            if opts.marks:
                extra["elements"] = [e.to_dict() for e in elements]
        if result is not None and result.zoom is not None and not watch.closed:
            try:  # after the full screenshot: a clipped capture must not overlap another capture
                zpng = await capture_png(watch.cdp, clip=result.zoom, fast=opts.fast_png)
                extra["zoom"] = encode_screenshot(zpng, "png" if opts.screenshot == "png" else "array", None)
            except Exception as exc:
                extra["zoom_error"] = str(exc).splitlines()[0]
        if result is not None and result.cursor is not None:
            fx, fy = self.scale
            extra["cursor"] = (round(result.cursor[0] / fx), round(result.cursor[1] / fy))
        self.last_obs = obs
        return obs, extra

    async def _title(self) -> str:
        try:
            return await self.watch.page.title()
        except Exception:
            return ""

    def _changes(self) -> WorldDiff:
        try:
            diff, self._seq = _changelog.changes_since(self._db, self._seq)
        except Exception:  # the world file is gone (dropped under us): report nothing rather than fail
            return WorldDiff()
        return diff

    async def observe_elements(self) -> tuple[str, list[Element]]:
        """A fresh accessibility tree and set-of-marks list, whatever the observation options say."""
        snapshot = await aria_snapshot(self.page)
        return parse_snapshot(snapshot, self.settings.viewport, self.scale)

    # -- the end -------------------------------------------------------------------------------------
    async def verify(self) -> Any:
        """The spec's verdict on the episode (None without a verifier). Errors become a failed verdict."""
        if self.spec.verify is None:
            return None
        from verifiers import Verdict, VerifyContext

        try:
            signed_in = await final_user_of(self.context, self.runtime.host, self.world, self.username)
            ctx = VerifyContext(**verify_context_fields(self, signed_in))
            return await asyncio.to_thread(self.spec.verify, ctx)
        except Exception as exc:
            return Verdict(passed=False, score=0.0, reason=f"the verifier failed: {type(exc).__name__}: {exc}")

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """One tool call as the persona in this episode's world, through the episode's app host."""
        if self._tools is None:
            from apps_web.identity.session import session_cookie
            from apps_web.tools import ToolSession

            host = self.runtime.host
            token = session_cookie(host.secret, self.username, self.world.id) if self.username else None
            self._tools = ToolSession(list(tools_of(tuple(s.name for s in host.apps))), world_id=self.world.id, token=token,
                                      base_url=f"http://localhost:{host.port}")
        return await self._tools.call(name, arguments)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._tools is not None:
            await self._tools.aclose()
            self._tools = None
        if self._db is not None:
            self._db.close()
            self._db = None
        for ext in self.extensions.values():
            close = getattr(ext, "close", None)  # state()/restore() are the contract; close() is optional
            if close is not None:
                close()
        try:
            await self.context.close()
        except Exception:
            pass
        self.files.close()
        if not self.keep_world:
            self.runtime.store.drop(self.world)


def _open_extensions(episode: Episode) -> None:
    """The episode's extensions its spec asks for: the co-workers when it has actors or events."""
    from .coworkers.extension import CoworkerExtension

    ext = CoworkerExtension.for_spec(episode.spec, episode.world)
    if ext is not None:
        episode.extensions[ext.name] = ext


def as_array(screenshot: Any) -> np.ndarray:
    """A screenshot from an observation as an HxWx3 uint8 array, whatever its form."""
    if isinstance(screenshot, np.ndarray):
        return screenshot
    from .observe import png_to_array

    return png_to_array(screenshot)


__all__ = ["REWARD_MODES", "Episode", "StepResult", "as_array", "out_of_screen", "verify_context_fields"]
