"""A long episode: 500 steps of realistic CRM work in one episode, against a raw-Playwright floor of
the same actions measured in the same run (interleaved step by step, so machine load hits both alike).

The work, repeated: open an account record (goto), click the global search box, type part of a
name, press Enter (the search results page), scroll. Reported: the median latency of the first and
the last 50 steps, env and floor, and the memory every 100 steps (RSS of this process, of Chromium's
processes and of the app host; PSS of Chromium, which counts shared pages once): step latency and
memory must stay flat.

Then milestone grading over 200 steps of a task that tracks its progress: the verifier runs only on
steps that changed the world (here every 10th step changes it), and its cost is reported.

``python -m bench long_episode`` (``SANDBOX_BENCH_QUICK=1``: 100 steps, 60 graded).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from apps_web.world import WorldStore, default_home

QUICK = bool(os.environ.get("SANDBOX_BENCH_QUICK"))
STEPS = 100 if QUICK else 500
GRADED_STEPS = 60 if QUICK else 200
WINDOW = 20 if QUICK else 50  # the first and last steps compared
EVERY = 20 if QUICK else 100  # memory samples
SEARCH = "#global-search"
SEARCH_TASK = "crm.workflow-convert-and-price"


def memory(runtime: Any) -> dict[str, float]:
    """MB: RSS of this process, of Chromium's processes (summed) and of the app host; PSS of Chromium."""
    import psutil

    ids = runtime.process_ids()
    out = {"python_rss": psutil.Process().memory_info().rss / 1e6, "chromium_rss": 0.0, "chromium_pss": 0.0, "host_rss": 0.0}
    for pid in ids["browser"]:
        try:
            info = psutil.Process(pid).memory_full_info()
        except psutil.Error:
            continue
        out["chromium_rss"] += info.rss / 1e6
        out["chromium_pss"] += info.pss / 1e6
    for pid in ids["host"]:
        try:
            out["host_rss"] += psutil.Process(pid).memory_info().rss / 1e6
        except psutil.Error:
            continue
    return out


def plan(world: Any, n: int) -> list[tuple[str, Any]]:
    """The actions of ``n`` steps: (kind, argument) in a five-step cycle over different accounts."""
    accounts = world.query("SELECT id, name FROM crm_account ORDER BY id LIMIT 40")
    out: list[tuple[str, Any]] = []
    i = 0
    while len(out) < n:
        acc_id, name = accounts[i % len(accounts)]
        out += [("goto", f"/accounts/{acc_id}"), ("click", SEARCH), ("type", name.split()[0][:6]), ("enter", None), ("scroll", 3)]
        i += 1
    return out[:n]


async def run(console: Console) -> None:
    from apps_web.identity import browser_cookies
    from sandbox.env import AsyncSandboxEnv, make_async_env
    from sandbox.observe import ObserveOptions, capture_png
    from sandbox.runtime import Runtime, default_apps
    from tasks.registry import TaskRegistry

    root = Path(tempfile.mkdtemp(prefix="bench-long-"))
    store = WorldStore(root, templates_dir=default_home() / "templates")
    store.template(0)
    runtime = await Runtime.start(store=store, apps=default_apps())
    try:
        host = runtime.host
        env = make_async_env("crm", "/", "bench", runtime=runtime, observe=ObserveOptions(screenshot="png"), max_steps=100_000)
        await env.reset(seed=0)
        ep = env.episode
        steps = plan(ep.world, STEPS)
        box = await ep.page.locator(SEARCH).bounding_box()  # the same spot on every CRM page (the header)
        sx, sy = round(box["x"] + box["width"] / 2), round(box["y"] + box["height"] / 2)

        # the floor: a plain context on the same world and user, no tracker, proxy or clock
        ctx = await runtime.browser.new_context(viewport={"width": 1280, "height": 800}, extra_http_headers={"X-Sandbox-World": ep.world.id})
        await ctx.add_cookies(browser_cookies(host.secret, ep.username, ep.world.id, host.port, host.app_names))
        raw = await ctx.new_page()
        cdp = await ctx.new_cdp_session(raw)
        await raw.goto(host.url("crm", "/"))

        async def floor(kind: str, arg: Any) -> None:
            if kind == "goto":
                await raw.goto(host.url("crm", arg))
            elif kind == "click":
                await raw.mouse.click(sx, sy)
            elif kind == "type":
                await raw.keyboard.type(arg)
            elif kind == "enter":
                async with raw.expect_navigation(wait_until="load"):
                    await raw.keyboard.press("Enter")
            else:
                await raw.mouse.move(640, 500)
                await raw.mouse.wheel(0, 100 * arg)
            await capture_png(cdp)

        def action(kind: str, arg: Any) -> dict[str, Any]:
            return {
                "goto": lambda: {"action": "goto", "url": arg},
                "click": lambda: {"action": "left_click", "x": sx, "y": sy},
                "type": lambda: {"action": "type", "text": arg},
                "enter": lambda: {"action": "key", "key": "Return"},
                "scroll": lambda: {"action": "scroll", "x": 640, "y": 500, "direction": "down", "amount": arg},
            }[kind]()

        env_ms: list[float] = []
        floor_ms: list[float] = []
        errors: list[str] = []
        mem = [(0, memory(runtime))]
        for i, (kind, arg) in enumerate(steps, 1):
            order = ("env", "floor") if i % 2 else ("floor", "env")
            for who in order:
                t = time.perf_counter()
                if who == "env":
                    _, _, _, _, info = await env.step(action(kind, arg))
                    env_ms.append((time.perf_counter() - t) * 1000)
                    if info.get("error"):
                        errors.append(f"step {i} {kind}: {info['error']}")
                else:
                    await floor(kind, arg)
                    floor_ms.append((time.perf_counter() - t) * 1000)
            if i % EVERY == 0:
                mem.append((i, memory(runtime)))
        sizes = {"trajectory lines": len(ep.trajectory), "tabs watched": len(ep._watches), "pages in context": len(ep.context.pages)}
        await ctx.close()
        await env.close()

        # -- milestone grading over a long tracked episode ---------------------------------------------------
        registry = TaskRegistry(store=store)
        base = registry.get(SEARCH_TASK, 0)
        graded: list[float] = []

        def counted(ctx_: Any) -> Any:
            t = time.perf_counter()
            try:
                return base.verify(ctx_)
            finally:
                graded.append((time.perf_counter() - t) * 1000)

        spec = base.replace(verify=counted, track_progress=True, max_steps=100_000, start_url="/")
        tracked = AsyncSandboxEnv(spec, runtime=runtime, observe=ObserveOptions(screenshot="png"))
        await tracked.reset(seed=0)
        at_reset = len(graded)
        tep = tracked.episode
        acc = tep.world.query("SELECT id FROM crm_account ORDER BY id LIMIT 1")[0][0]
        with_grading: list[float] = []
        without: list[float] = []
        step_verify: list[float] = []  # the step's grading: the verifier, the sign-in check, the thread hop
        changed = 0
        for i, (kind, arg) in enumerate(plan(tep.world, GRADED_STEPS), 1):
            if i % 10 == 0:  # a co-worker's edit lands before this step: the world changed
                conn = tep.world.connect(readonly=False)
                conn.execute("UPDATE crm_account SET phone = ? WHERE id = ?", (f"555-{i:04d}", acc))
                conn.commit()
                conn.close()
                changed += 1
            n = len(graded)
            t = time.perf_counter()
            _, _, _, _, info = await tracked.step(action(kind, arg))
            if len(graded) > n:
                with_grading.append((time.perf_counter() - t) * 1000)
                step_verify.append(info["timing"]["verify_ms"])
            elif kind == "scroll":  # the graded steps are scrolls: compare like with like
                without.append((time.perf_counter() - t) * 1000)
            assert "milestones" in info
        runs = len(graded) - at_reset
        await tracked.close()
    finally:
        await runtime.close()
        shutil.rmtree(root, ignore_errors=True)

    # -- report ------------------------------------------------------------------------------------------
    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    table = Table(title=f"One episode of {STEPS} CRM steps (ms; the floor is raw Playwright, same actions, interleaved)")
    for col in ("steps", "env median", "floor median", "ratio"):
        table.add_column(col, justify="left" if col == "steps" else "right")
    first_e, last_e = med(env_ms[:WINDOW]), med(env_ms[-WINDOW:])
    first_f, last_f = med(floor_ms[:WINDOW]), med(floor_ms[-WINDOW:])
    table.add_row(f"first {WINDOW}", f"{first_e:.1f}", f"{first_f:.1f}", f"{first_e / first_f:.2f}x")
    table.add_row(f"last {WINDOW}", f"{last_e:.1f}", f"{last_f:.1f}", f"{last_e / last_f:.2f}x")
    table.add_row("all", f"{med(env_ms):.1f}", f"{med(floor_ms):.1f}", f"{med(env_ms) / med(floor_ms):.2f}x")
    growth = last_e / first_e
    console.print(table)
    console.print(f"env latency last/first: [{'green' if growth <= 1.15 else 'red'}]{growth:.2f}x[/] "
                  f"(floor: {last_f / first_f:.2f}x); {len(errors)} step errors" + (f", e.g. {errors[0]}" if errors else ""))  # fmt: skip

    mt = Table(title="Memory (MB) while the episode runs (the floor's page shares the same Chromium)")
    for col in ("after step", "python RSS", "chromium RSS", "chromium PSS", "app host RSS"):
        mt.add_column(col, justify="right")
    for step, m in mem:
        mt.add_row(str(step), f"{m['python_rss']:.0f}", f"{m['chromium_rss']:.0f}", f"{m['chromium_pss']:.0f}", f"{m['host_rss']:.0f}")
    console.print(mt)
    d = {k: mem[-1][1][k] - mem[1][1][k] for k in mem[0][1]}
    console.print(f"growth from step {mem[1][0]} to {mem[-1][0]}: " + ", ".join(f"{k} {v:+.0f} MB" for k, v in d.items()))
    console.print("episode state at the end: " + ", ".join(f"{k} {v}" for k, v in sizes.items()))

    gt = Table(title=f"Milestone grading over {GRADED_STEPS} steps of {SEARCH_TASK} (progress tracked; the world changes every 10th step)")
    for col in ("measure", "value"):
        gt.add_column(col, justify="left" if col == "measure" else "right")
    gt.add_row("steps that changed the world", str(changed))
    gt.add_row("verifier runs during the steps (+1 at reset)", f"{runs} (+{at_reset})")
    gt.add_row("verifier ms per run, median", f"{med(graded):.1f}")
    gt.add_row("verifier ms in all", f"{sum(graded):.0f}")
    gt.add_row("grading ms per graded step, median (verifier + sign-in check)", f"{med(step_verify):.1f}")
    gt.add_row("scroll step ms median, graded (the world changed)", f"{med(with_grading):.1f}")
    gt.add_row("scroll step ms median, not graded", f"{med(without):.1f}")
    console.print(gt)
    try:
        console.print(f"load average: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    except OSError:
        pass


def main() -> None:
    asyncio.run(run(Console(width=160)))


if __name__ == "__main__":
    main()
