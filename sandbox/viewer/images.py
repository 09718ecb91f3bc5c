"""Thumbnails and before/after differences of screenshots, computed on request and cached in memory."""

from __future__ import annotations

import io
from collections import OrderedDict
from pathlib import Path
from threading import Lock

import numpy as np
from PIL import Image

THRESHOLD = 24  # per-channel difference that counts as a change (ignores anti-aliasing noise)


class LRU:
    def __init__(self, size: int = 512) -> None:
        self.size = size
        self.data: OrderedDict[tuple, bytes] = OrderedDict()
        self.lock = Lock()

    def get(self, key: tuple, make) -> bytes:  # noqa: ANN001
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        value = make()
        with self.lock:
            self.data[key] = value
            while len(self.data) > self.size:
                self.data.popitem(last=False)
        return value


def png_size(path: Path) -> tuple[int, int] | None:
    """(width, height) from a PNG header, without decoding the image."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _encode(img: Image.Image, fmt: str = "PNG") -> bytes:
    buf = io.BytesIO()
    if fmt == "JPEG":
        img.convert("RGB").save(buf, format="JPEG", quality=80)
    else:
        img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def thumbnail(path: Path, width: int = 200) -> bytes:
    with Image.open(path) as img:
        img = img.convert("RGB")
        h = max(1, round(img.height * width / img.width))
        return _encode(img.resize((width, h), Image.Resampling.BILINEAR), "JPEG")


def difference(before: Path, after: Path) -> tuple[bytes, float]:
    """A picture of what changed (changed pixels in red over a faded 'after'), and the changed share."""
    with Image.open(before) as a, Image.open(after) as b:
        a_arr = np.asarray(a.convert("RGB"), dtype=np.int16)
        b_img = b.convert("RGB")
        b_arr = np.asarray(b_img, dtype=np.int16)
    if a_arr.shape != b_arr.shape:  # different sizes: compare the common region
        h, w = min(a_arr.shape[0], b_arr.shape[0]), min(a_arr.shape[1], b_arr.shape[1])
        a_arr, b_arr = a_arr[:h, :w], b_arr[:h, :w]
    changed = (np.abs(a_arr - b_arr).max(axis=2) > THRESHOLD)
    faded = (b_arr * 0.25 + 190).astype(np.uint8)
    faded[changed] = (230, 30, 50)
    return _encode(Image.fromarray(faded)), float(changed.mean())
