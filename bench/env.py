"""Environment runtime: reset, in-page and navigating steps against raw-Playwright floors, and scaling.

Everything is measured in one run on one Chromium and one app host (child process). Floors are raw
Playwright loops on the same pages, in a plain context, interleaved with the env's own measurements
so that machine load affects both alike:

- in-page step: env ``step(left_click)`` (settle + CDP screenshot + world changes) vs
  ``page.mouse.click`` + ``Page.captureScreenshot`` (both through ``capture_png``: the same capture
  parameters, and the same retry when Chromium has no frame to copy yet after a navigation);
- navigating step: env ``step`` on a link (new page) or a form (POST + 303 + GET) vs
  ``page.goto(next page)`` + ``Page.captureScreenshot``;
- reset: new world + context + start page + first observation; into each app's home (CRM, desk, mail,
  chat, drive) beside a raw floor of the same page (a new context signed in to the same world, goto,
  screenshot), after a short episode and 0.5 s of agent time (design target: at most 0.6x);
- concurrency: total in-page steps/s with 1, 2, 4 and 8 episodes in one pool, and the memory (PSS of
  the browser and host processes) each extra episode adds.

``python -m bench env`` (``SANDBOX_BENCH_QUICK=1`` for a shorter run).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from rich.console import Console
from rich.table import Table

from apps_web.world import WorldStore, default_home

from .stats import summarize

QUICK = bool(os.environ.get("SANDBOX_BENCH_QUICK"))
ROUNDS = 4 if QUICK else 8  # interleaved blocks of floor / env samples
PER_ROUND = 8 if QUICK else 15
RESETS = 12 if QUICK else 30
SCALE_STEPS = 15 if QUICK else 40  # in-page steps per episode in the concurrency runs
COUNTS = (1, 2, 4, 8)

INC = (520, 30)  # "Increment" on /counter: a synchronous DOM change
INC_FETCH = (520, 80)  # "Increment (slow fetch)": the change arrives from a request to the host
INC_NAV = (480, 130)  # "Increment (new page)": a link
INC_POST = (520, 180)  # "Increment (form)": POST, 303, GET


async def _timed(fn: Callable[[], Awaitable[Any]]) -> float:
    """The measure's time in ms; a measure with untimed preparation times itself and returns a float."""
    t = time.perf_counter()
    own = await fn()
    return own if isinstance(own, float) else (time.perf_counter() - t) * 1000


async def interleave(floor: Callable[[], Awaitable[Any]], subject: Callable[[], Awaitable[Any]]) -> tuple[list[float], list[float]]:
    """Floor and subject samples taken alternately (ABAB...), so load swings hit both alike."""
    f, s = await interleave_all(floor, subject)
    return f, s


async def interleave_all(*fns: Callable[[], Awaitable[Any]]) -> list[list[float]]:
    """Samples of each measure taken in turn, the order rotating every round (ABC, BCA, ...), so load
    swings and whatever one leaves behind hit them all alike; one list of samples per measure."""
    out: list[list[float]] = [[] for _ in fns]
    for fn in fns:  # warm-up
        for _ in range(3):
            await fn()
    for i in range(ROUNDS * PER_ROUND):
        for k in range(len(fns)):
            j = (i + k) % len(fns)
            out[j].append(await _timed(fns[j]))
    return out


def _all_pids(runtime: Any) -> list[int]:
    import psutil

    me = psutil.Process()
    ids = runtime.process_ids()
    pids = {me.pid, *ids["browser"], *ids["host"]}
    pids |= {c.pid for c in me.children(recursive=False)}  # Playwright's driver
    return sorted(pids)


def _cpu_s(pids: list[int]) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
            total += t.user + t.system
        except psutil.Error:
            continue
    return total


async def cpu_per_call(runtime: Any, fn: Callable[[], Awaitable[Any]], n: int) -> float:
    """CPU ms per call, summed over this process, the driver, the browser and the host: unlike wall
    time, barely affected by other work on the machine."""
    pids = _all_pids(runtime)
    before = _cpu_s(pids)
    for _ in range(n):
        await fn()
    return (_cpu_s(pids) - before) / n * 1000


def pss_mb(pids: list[int]) -> float:
    import psutil

    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_full_info().pss
        except psutil.Error:
            continue
    return total / 1e6


# Each app's start page, for the per-app resets (every app the host serves by default).
APP_HOMES = (("crm", "/"), ("desk", "/"), ("mail", "/mail/inbox"), ("chat", "/"), ("drive", "/my"))


async def run(console: Console) -> None:
    from sandbox.env import make_async_env
    from sandbox.observe import ObserveOptions, capture_png
    from sandbox.pool import EpisodePool
    from sandbox.runtime import Runtime, default_apps
    from sandbox.spec import free_spec

    root = Path(tempfile.mkdtemp(prefix="bench-env-"))
    store = WorldStore(root, templates_dir=default_home() / "templates")
    store.template(0)  # build outside the measurements if needed
    runtime = await Runtime.start(store=store, apps=default_apps("playground"))
    rows: list[tuple] = []
    try:
        host = runtime.host
        counter = host.url("playground", "/counter?n=0&delay=0")

        # -- raw floor page: a plain context, no tracker, no proxy, no clock ---------------------------
        plain = await runtime.browser.new_context(viewport={"width": 1280, "height": 800})
        raw = await plain.new_page()
        await raw.goto(counter)
        raw_cdp = await plain.new_cdp_session(raw)

        async def floor_click() -> None:
            await raw.mouse.click(*INC)
            await capture_png(raw_cdp)

        nav_n = [0]

        async def floor_goto() -> None:
            nav_n[0] += 1
            await raw.goto(host.url("playground", f"/counter?n={nav_n[0]}&delay=0"))
            await capture_png(raw_cdp)

        async def floor_form() -> None:
            # The same form submission (POST, 303, GET: one navigation with a redirect), raw.
            async with raw.expect_navigation(wait_until="load"):
                await raw.mouse.click(*INC_POST)
            await capture_png(raw_cdp)

        # -- env steps ---------------------------------------------------------------------------------
        results: dict[str, Any] = {}
        for mode in ("png", "array"):
            env = make_async_env("playground", "/counter?n=0&delay=0", "bench", runtime=runtime,
                                 observe=ObserveOptions(screenshot=mode), max_steps=100_000)
            await env.reset(seed=0)

            async def click(env: Any = env) -> None:
                await env.step({"action": "left_click", "x": INC[0], "y": INC[1]})

            results[f"inpage_{mode}"] = await interleave(floor_click, click)
            n = ROUNDS * PER_ROUND
            results[f"cpu_inpage_{mode}"] = (await cpu_per_call(runtime, floor_click, n), await cpu_per_call(runtime, click, n))
            await env.close()

        env = make_async_env("playground", "/counter?n=0&delay=0", "bench", runtime=runtime,
                             observe=ObserveOptions(screenshot="png"), max_steps=100_000)
        await env.reset(seed=0)

        async def link() -> None:
            await env.step({"action": "left_click", "x": INC_NAV[0], "y": INC_NAV[1]})

        async def form() -> None:
            await env.step({"action": "left_click", "x": INC_POST[0], "y": INC_POST[1]})

        goto_n = [0]

        async def goto() -> None:
            goto_n[0] += 1
            await env.step({"action": "goto", "url": f"/counter?n={goto_n[0]}&delay=0"})

        results["nav_link"] = await interleave(floor_goto, link)
        n = ROUNDS * PER_ROUND // 2
        results["cpu_nav_link"] = (await cpu_per_call(runtime, floor_goto, n), await cpu_per_call(runtime, link, n))
        await raw.goto(counter)
        results["nav_form"] = await interleave(floor_form, form)
        results["nav_goto"] = await interleave(floor_goto, goto)
        await env.close()

        # CRM pages: heavier server rendering, same comparison
        crm = make_async_env("crm", "/", "bench", runtime=runtime, observe=ObserveOptions(screenshot="png"), max_steps=100_000)
        await crm.reset(seed=0)
        raw_crm_ctx = await runtime.browser.new_context(viewport={"width": 1280, "height": 800},
                                                        extra_http_headers={"X-Sandbox-World": crm.episode.world.id})
        from apps_web.identity import browser_cookies

        await raw_crm_ctx.add_cookies(browser_cookies(host.secret, crm.episode.username, crm.episode.world.id, host.port, host.app_names))
        raw_crm = await raw_crm_ctx.new_page()
        raw_crm_cdp = await raw_crm_ctx.new_cdp_session(raw_crm)
        crm_pages = ["/accounts", "/opportunities", "/contacts", "/"]
        i = [0, 0]

        async def floor_crm() -> None:
            i[0] += 1
            await raw_crm.goto(host.url("crm", crm_pages[i[0] % len(crm_pages)]))
            await capture_png(raw_crm_cdp)

        async def env_crm() -> None:
            i[1] += 1
            await crm.step({"action": "goto", "url": crm_pages[i[1] % len(crm_pages)]})

        results["nav_crm"] = await interleave(floor_crm, env_crm)
        await crm.close()
        await raw_crm_ctx.close()

        # -- resets ---------------------------------------------------------------------------------------
        # Each reset follows a short episode (3 steps): the spare context for the next episode is
        # prepared meanwhile. A model agent thinks between steps (0.5 s here, a fast one), which gives
        # the spare time to be ready; "back to back" resets leave it none.
        async def resets(app: str, path: str, steps: int, think: float) -> tuple[Any, list[float], dict[str, list[float]]]:
            """RESETS timed resets (after 2 warm-ups), each followed by ``steps`` steps and ``think`` s of agent time."""
            env = make_async_env(app, path, "bench", runtime=runtime, observe=ObserveOptions(screenshot="png"))
            samples: list[float] = []
            parts: dict[str, list[float]] = {}
            for k in range(RESETS + 2):
                t = time.perf_counter()
                _, info = await env.reset(seed=0)
                if k >= 2:
                    samples.append((time.perf_counter() - t) * 1000)
                    for name, ms in info["timing"].items():
                        parts.setdefault(name, []).append(ms)
                for _ in range(steps):
                    await env.step({"action": "mouse_move", "x": 600 + k % 7, "y": 500})
                if think:
                    await asyncio.sleep(think)  # the agent's model call, not a wait for the page
            return env, samples, parts

        for label, app, path, steps, think in (
            ("reset (playground /counter)", "playground", "/counter", 3, 0.0),
            ("reset (CRM home)", "crm", "/", 3, 0.0),
            ("reset (CRM home), after 0.5 s of agent time", "crm", "/", 3, 0.5),
            ("reset (CRM home), back to back", "crm", "/", 0, 0.0),
        ):
            env, samples, parts = await resets(app, path, steps, think)
            await env.close()
            results[label] = (samples, {k: statistics.median(v) for k, v in parts.items()})

        # raw floor of a reset: a new context + page + goto + screenshot, nothing else (cold cache)
        async def raw_reset() -> None:
            ctx = await runtime.browser.new_context(viewport={"width": 1280, "height": 800})
            page = await ctx.new_page()
            await page.goto(counter)
            cdp = await ctx.new_cdp_session(page)
            await capture_png(cdp)
            await ctx.close()

        results["reset_floor"] = [await _timed(raw_reset) for _ in range(RESETS)]

        # Resets into each app's home, beside the raw floor of the same page: a new context signed in
        # to the same world as the same person, goto, screenshot. An agent thinks between steps (0.5 s).
        from apps_web.identity import browser_cookies

        for app, path in APP_HOMES:
            env, samples, _parts = await resets(app, path, 3, 0.5)
            world_id, username = env.episode.world.id, env.episode.username
            page_url = host.url(app, path)

            async def raw_app_reset() -> None:
                ctx = await runtime.browser.new_context(viewport={"width": 1280, "height": 800}, extra_http_headers={"X-Sandbox-World": world_id})
                await ctx.add_cookies(browser_cookies(host.secret, username, world_id, host.port, host.app_names))
                page = await ctx.new_page()
                await page.goto(page_url)
                await capture_png(await ctx.new_cdp_session(page))
                await ctx.close()

            floor = [await _timed(raw_app_reset) for _ in range(RESETS)]
            await env.close()
            results[f"reset ({app} home)"] = (floor, samples)
        await plain.close()

        # -- concurrency and memory --------------------------------------------------------------------------
        scale_rows = []
        base_pss = None
        for n in COUNTS:
            pool = EpisodePool(runtime=runtime, max_concurrency=n, observe=ObserveOptions(screenshot="png"))
            await pool.start()
            await pool.reset([free_spec("playground", "/counter?n=0&delay=0", max_steps=100_000)] * n)
            for _ in range(3):
                await pool.step([{"action": "left_click", "x": INC[0], "y": INC[1]}] * n)
            pids = runtime.process_ids()
            pss = pss_mb(pids["browser"] + pids["host"])

            async def loop(env: Any) -> None:
                for _ in range(SCALE_STEPS):
                    await env.step({"action": "left_click", "x": INC[0], "y": INC[1]})

            t = time.perf_counter()
            await asyncio.gather(*(loop(e) for e in pool.envs))
            wall = time.perf_counter() - t
            await pool.close()
            if base_pss is None:
                base_pss = pss
            per_extra = (pss - base_pss) / (n - 1) if n > 1 else float("nan")
            scale_rows.append((n, n * SCALE_STEPS / wall, pss, per_extra))
    finally:
        await runtime.close()
        shutil.rmtree(root, ignore_errors=True)

    # -- report -------------------------------------------------------------------------------------------------
    table = Table(title="Environment runtime (ms; floors are raw Playwright on the same pages, same run)")
    for col in ("measure", "median", "p95", "floor median", "floor p95", "ratio", "target"):
        table.add_column(col, justify="left" if col in ("measure", "target") else "right")

    def add(name: str, floor: list[float] | None, subject: list[float], target: str, limit: float | None, absolute: bool = False) -> None:
        s = summarize(subject)
        if floor:
            f = summarize(floor)
            ratio = s["median"] / f["median"]
            ok = limit is None or (s["median"] if absolute else ratio) <= limit
            med = f"[{'green' if ok else 'red'}]{s['median']:.1f}[/]" if absolute else f"{s['median']:.1f}"
            rat = f"{ratio:.2f}x" if absolute else f"[{'green' if ok else 'red'}]{ratio:.2f}x[/]"
            table.add_row(name, med, f"{s['p95']:.1f}", f"{f['median']:.1f}", f"{f['p95']:.1f}", rat, target)
        else:
            ok = limit is None or s["median"] <= limit
            table.add_row(name, f"[{'green' if ok else 'red'}]{s['median']:.1f}[/]", f"{s['p95']:.1f}", "", "", "", target)

    add("in-page step, PNG obs (click + screenshot)", *results["inpage_png"], "<= 1.25x", 1.25)
    add("in-page step, array obs", *results["inpage_array"], "(decode in a thread)", None)
    add("navigating step: link to a new page", *results["nav_link"], "<= 1.2x", 1.2)
    add("navigating step: form POST + 303 + GET", *results["nav_form"], "<= 1.2x", 1.2)
    add("navigating step: goto action", *results["nav_goto"], "<= 1.2x", 1.2)
    add("navigating step: CRM pages (goto)", *results["nav_crm"], "<= 1.2x", 1.2)
    for label in ("reset (playground /counter)", "reset (CRM home)", "reset (CRM home), after 0.5 s of agent time",
                  "reset (CRM home), back to back"):
        samples, parts = results[label]
        add(label, results["reset_floor"] if "playground" in label else None, samples, "<= 150 ms median", 150, absolute=True)
        console.print(f"  {label}: " + ", ".join(f"{k} {v:.1f}" for k, v in parts.items()))
    for app, _path in APP_HOMES:
        floor, samples = results[f"reset ({app} home)"]
        add(f"reset ({app} home), after 0.5 s of agent time", floor, samples, "<= 0.6x", 0.6)
    console.print(table)
    cpu = Table(title="CPU per step (ms, all processes: Python, Playwright driver, Chromium, app host)")
    for col in ("measure", "floor", "env", "ratio"):
        cpu.add_column(col, justify="left" if col == "measure" else "right")
    for key, label in (("cpu_inpage_png", "in-page step, PNG obs"), ("cpu_inpage_array", "in-page step, array obs"),
                       ("cpu_nav_link", "navigating step: link vs goto floor")):
        f, e = results[key]
        cpu.add_row(label, f"{f:.1f}", f"{e:.1f}", f"{e / f:.2f}x")
    console.print(cpu)

    scale = Table(title=f"Concurrent episodes (in-page steps, {SCALE_STEPS} per episode, PNG observations)")
    for col in ("episodes", "steps/s total", "PSS browser+host MB", "MB per extra episode"):
        scale.add_column(col, justify="right")
    for n, rate, pss, per in scale_rows:
        rate_txt = f"[{'green' if n != 8 or rate >= 45 else 'red'}]{rate:.1f}[/]"
        per_txt = "" if n == 1 else f"[{'green' if per <= 70 else 'red'}]{per:.1f}[/]"
        scale.add_row(str(n), rate_txt, f"{pss:.0f}", per_txt)
    console.print(scale)
    console.print("targets: >= 45 steps/s at 8 episodes; <= 70 MB per extra episode")
    try:
        load = os.getloadavg()
        console.print(f"load average during the run: {load[0]:.1f} (this machine has {os.cpu_count()} cores)")
    except OSError:
        pass


def main() -> None:
    asyncio.run(run(Console(width=160)))


if __name__ == "__main__":
    main()
