"""The agent's own files during an episode: the folder its downloads are saved to and its uploads are
chosen from, and the file chooser a page has open.

A page that opens a file chooser (a click on a file field or an upload button) does not show the
operating system's dialog: the chooser waits here until the agent sends ``upload_file`` with the names
of files in the folder (or an empty list, which cancels it). Every download of the episode's pages is
saved into the folder under the name the server suggested, so a file received in one app (a mail
attachment, a report export) can be uploaded to another, as a person would through their disk.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

SAVE_TIMEOUT_S = 10.0
CHOOSER_WAIT_S = 2.0  # how long upload_file waits for a chooser the last click may still be opening


class EpisodeFiles:
    def __init__(self) -> None:
        self._folder: Path | None = None
        self.chooser: Any = None  # the pending Playwright FileChooser, if a page opened one
        self._saving: list[asyncio.Future[None]] = []
        self.errors: list[str] = []
        self._opened: asyncio.Event | None = None

    @property
    def folder(self) -> Path:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="sandbox-files-"))
        return self._folder

    def attach(self, page: Any) -> None:
        """Watch ``page`` (and, by the caller, every tab it opens) for file choosers and downloads."""
        page.on("filechooser", self._on_chooser)
        page.on("download", self._on_download)

    def _on_chooser(self, chooser: Any) -> None:
        self.chooser = chooser
        if self._opened is not None:
            self._opened.set()

    def _on_download(self, download: Any) -> None:
        self._saving.append(asyncio.ensure_future(self._save(download)))

    async def _save(self, download: Any) -> None:
        name = _unique(self.folder, _safe_name(download.suggested_filename))
        try:
            await asyncio.wait_for(download.save_as(self.folder / name), SAVE_TIMEOUT_S)
        except Exception as exc:  # a failed or cancelled download: the agent is told, the episode goes on
            self.errors.append(f"the download of {download.suggested_filename!r} failed: {str(exc).splitlines()[0]}")

    async def settle(self) -> None:
        """Wait (bounded) for the downloads in progress to be saved."""
        saving, self._saving = self._saving, []
        if saving:
            await asyncio.gather(*saving, return_exceptions=True)

    def names(self) -> list[str]:
        if self._folder is None:
            return []
        return sorted(p.name for p in self._folder.iterdir() if p.is_file())

    def add(self, name: str, data: bytes) -> Path:
        """Put a file in the folder (a task's file, a resumed checkpoint's)."""
        path = self.folder / _safe_name(name)
        path.write_bytes(data)
        return path

    def info(self) -> dict[str, Any]:
        """What a step's ``info`` says of the files: ``files``, an open ``file_chooser``, the
        ``download_errors`` since the last step (each reported once)."""
        out: dict[str, Any] = {}
        names = self.names()
        if names:
            out["files"] = names
        chooser = self.pending()
        if chooser is not None:
            out["file_chooser"] = chooser
        if self.errors:
            out["download_errors"], self.errors = self.errors, []
        return out

    def pending(self) -> dict[str, Any] | None:
        """What the open chooser takes, for ``info["file_chooser"]``."""
        if self.chooser is None:
            return None
        try:
            return {"multiple": bool(self.chooser.is_multiple())}
        except Exception:
            return {"multiple": False}

    async def choose(self, names: list[str]) -> None:
        """Answer the open chooser with ``names`` (files of the folder); an empty list cancels it."""
        from .execute import ActionFailed

        if self.chooser is None:
            # Chromium reports a chooser a moment after the click that opened it (the step may have
            # settled before): wait for it, bounded.
            self._opened = asyncio.Event()
            try:
                await asyncio.wait_for(self._opened.wait(), CHOOSER_WAIT_S)
            except asyncio.TimeoutError:
                pass
            finally:
                self._opened = None
        chooser = self.chooser
        if chooser is None:
            raise ActionFailed(
                "no file chooser is open: click the page's upload button or file field first, then send upload_file"
            )
        have = self.names()
        missing = [n for n in names if n not in have]
        if missing:
            listed = ", ".join(repr(n) for n in have) if have else "none yet (download a file first)"
            raise ActionFailed(f"no file named {', '.join(repr(n) for n in missing)} among the episode's files: {listed}")
        if len(names) > 1 and not chooser.is_multiple():
            raise ActionFailed(f"this file chooser takes one file, not {len(names)}")
        await chooser.set_files([str(self.folder / n) for n in names])
        self.chooser = None

    def close(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def _safe_name(name: str) -> str:
    base = Path(name.replace("\\", "/")).name.strip() or "download"
    return base[:255]


def _unique(folder: Path, name: str) -> str:
    """``name``, or ``name (1).ext``... when the folder already has it (as browsers do), reserved."""
    stem, dot, ext = name.rpartition(".") if "." in name[1:] else (name, "", "")
    for k in range(1000):
        candidate = f"{stem} ({k}){dot}{ext}" if k else name
        try:
            (folder / candidate).touch(exist_ok=False)  # taken now: a download saved at the same time picks another
            return candidate
        except FileExistsError:
            continue
    raise RuntimeError(f"too many files named like {name!r}")
