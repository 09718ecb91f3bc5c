"""Check the studio's headed mode with a real window and real OS input (needs an X display and xdotool).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/check_headed.py

Opens a headed studio session on the playground, clicks into its text box and types with xdotool
(events from the X server, not from the browser's automation), and checks that the recording holds
a click inside the box, the typed text, and the answer. Exits 1 if not. The test suite covers the
capture script in the headless browser; this covers the window.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sandbox.spec import free_spec
from sandbox.studio.server import Studio, StudioOptions
from sandbox.studio.session import StudioSession
from sandbox.trajectory import load_episode

BOX = (570, 210)  # the playground's text box, in page pixels
TEXT = "Hi there"


def xdotool(*args: object) -> None:
    subprocess.run(["xdotool", *map(str, args)], check=True)


async def record(out: Path) -> list[dict]:
    studio = Studio(StudioOptions(headed=True, extra_apps=("playground",), out_dir=out))
    await studio.start()
    try:
        runtime = await studio.runtime_for("headed")
        session = await StudioSession(runtime=runtime, spec=free_spec("playground", "/"), run=studio.run, mode="headed").start()
        page = session.episode.page
        # Where the page's top-left corner is on the screen: the window's position plus its frame.
        g = await page.evaluate("({x: screenX, y: screenY, top: outerHeight - innerHeight, side: (outerWidth - innerWidth) / 2})")
        updates = session.live.subscribe()
        xdotool("mousemove", int(g["x"] + g["side"] + BOX[0]), int(g["y"] + g["top"] + BOX[1]))
        xdotool("click", 1)
        xdotool("type", "--delay", 30, TEXT)
        for _ in range(30):  # the page reports events asynchronously; the session announces each change
            if session.recorder.describe_pending() == {"action": "type", "text": TEXT}:
                break
            try:
                await asyncio.wait_for(updates.next(), 1)
            except asyncio.TimeoutError:
                pass
        await session.command("finish", {"kind": "answer", "text": "Done."})
        await session.close()
        return [s.parsed for s in load_episode(session.folder).steps]
    finally:
        await studio.stop()


def main() -> int:
    if shutil.which("xdotool") is None:
        print("xdotool is not installed (apt-get install xdotool xvfb)", file=sys.stderr)
        return 2
    out = Path(tempfile.mkdtemp(prefix="check-headed-"))
    steps = asyncio.run(record(out))
    print("recorded:", steps)
    click, typed, answer = (steps + [{}, {}, {}])[:3]
    ok = (click.get("action") == "left_click" and abs(click["x"] - BOX[0]) <= 10 and abs(click["y"] - BOX[1]) <= 10
          and typed == {"action": "type", "text": TEXT} and answer.get("action") == "answer" and len(steps) == 3)
    print("headed mode: ok" if ok else "headed mode: the recording is not what the person did", file=sys.stderr if not ok else sys.stdout)
    shutil.rmtree(out, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
