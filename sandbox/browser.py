"""The one place that finds and starts Chromium.

Search order: ``SANDBOX_CHROMIUM`` if set, the Playwright-managed Chromium if installed, then a
system Chromium on PATH. ``python -m sandbox.browser --ensure`` installs one when none is found
(Debian's ``chromium`` package when root, otherwise ``playwright install chromium``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from playwright.async_api import Browser, Playwright
    from playwright.sync_api import Browser as SyncBrowser
    from playwright.sync_api import Playwright as SyncPlaywright

# Fast and quiet on machines without internet: no background fetches, no GPU, no vsync wait.
# --disable-gpu-vsync and --disable-frame-rate-limit let a screenshot return as soon as a frame is
# ready instead of waiting for the next 60 Hz tick.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-quic",
    "--disable-gpu-vsync",
    "--disable-frame-rate-limit",
    # The omnibox-popup WebUIs are headless windows' browser UI, preloaded in a renderer process of
    # their own for every new window (every context's first page): about 25 MB per episode for nothing.
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,"
    "PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxAimPopup",
    "--font-render-hinting=none",
    # A repainted region is re-rastered as a whole tile, not just the changed rectangle: with partial
    # raster, a first screenshot now and then had a rounded border's anti-aliased corners one level
    # off (the two-process determinism test), so the same seed gave other bytes.
    "--disable-partial-raster",
    "--hide-scrollbars",
    "--mute-audio",
)

SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class ChromiumNotFound(RuntimeError):
    """No Chromium could be found; the message says what to install."""


def _managed_chromium() -> str | None:
    """The Chromium that the installed Playwright expects, if it was downloaded."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        return None
    try:
        with sync_playwright() as p:
            path = p.chromium.executable_path
    except Exception:  # pragma: no cover - driver missing or broken
        return None
    return path if path and Path(path).exists() else None


def find_chromium(*, managed: bool = True) -> str | None:
    """Path of the Chromium to use, or None if there is none on this machine."""
    env = os.environ.get("SANDBOX_CHROMIUM")
    if env:
        if not Path(env).exists():
            raise ChromiumNotFound(f"SANDBOX_CHROMIUM={env!r} does not exist; unset it or point it at a Chromium binary")
        return env
    if managed:
        path = _managed_chromium()
        if path:
            return path
    for name in SYSTEM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def ensure_chromium() -> str:
    """Find Chromium, installing one if needed; raise ChromiumNotFound with advice if impossible."""
    path = find_chromium()
    if path:
        return path
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        print("setup: installing Debian's chromium package with apt-get", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium", "fonts-dejavu-core"], check=False, env=env)
    else:
        print("setup: installing Chromium with `playwright install chromium`", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"], check=False)
    path = find_chromium()
    if not path:
        raise ChromiumNotFound(
            "no Chromium found. Install one of: Debian/Ubuntu `apt-get install chromium`, "
            "`python -m playwright install chromium`, or set SANDBOX_CHROMIUM=/path/to/chrome"
        )
    return path


_resolved: str | None | bool = False  # False = not looked up yet; None = use Playwright's own


def _executable(playwright_executable: str) -> str | None:
    """The executable_path to pass to Playwright (None lets Playwright use its managed browser)."""
    global _resolved
    if _resolved is False:
        env = os.environ.get("SANDBOX_CHROMIUM")
        if env:
            _resolved = find_chromium(managed=False)
        elif playwright_executable and Path(playwright_executable).exists():
            _resolved = None
        else:
            _resolved = find_chromium(managed=False)
            if _resolved is None:
                raise ChromiumNotFound(
                    "no Chromium found; run `make setup`, `apt-get install chromium`, "
                    "or set SANDBOX_CHROMIUM=/path/to/chrome"
                )
    return _resolved  # type: ignore[return-value]


def launch_options(playwright_executable: str = "", *, headless: bool = True, extra_args: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "executable_path": _executable(playwright_executable),
        "headless": headless,
        "args": [*CHROMIUM_ARGS, *extra_args],
    }


async def launch(playwright: "Playwright", *, headless: bool = True, extra_args: tuple[str, ...] = ()) -> "Browser":
    """Start Chromium with the sandbox flags (async Playwright API)."""
    opts = launch_options(playwright.chromium.executable_path, headless=headless, extra_args=extra_args)
    return await playwright.chromium.launch(**opts)


def launch_sync(playwright: "SyncPlaywright", *, headless: bool = True, extra_args: tuple[str, ...] = ()) -> "SyncBrowser":
    """Start Chromium with the sandbox flags (sync Playwright API)."""
    opts = launch_options(playwright.chromium.executable_path, headless=headless, extra_args=extra_args)
    return playwright.chromium.launch(**opts)


def _main(argv: list[str]) -> int:
    try:
        path = ensure_chromium() if "--ensure" in argv else find_chromium()
    except ChromiumNotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not path:
        print("error: no Chromium found; run with --ensure to install one", file=sys.stderr)
        return 1
    print(f"setup: Chromium at {path}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
