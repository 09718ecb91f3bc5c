"""Screenshot checks: pixel difference (pixelmatch-style) and SSIM against a reference PNG.

The pixel test counts pixels whose perceived colour difference exceeds ``threshold`` (0..1), using the
YIQ colour distance of Kotsarenko & Ramos ("Measuring perceived color difference using YIQ NTSC
transmission color space in mobile applications", 2010), as pixelmatch does; the share of differing
unmasked pixels must stay at or below ``max_diff_ratio``. Anti-aliasing detection is not attempted.
SSIM (scikit-image ``structural_similarity`` on luma) is averaged over unmasked pixels and must
reach ``min_ssim``. Masked rectangles are excluded from both.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from .base import CheckSpec, Env, SpecModel, spec_error
from .values import EvaluationError
from .verdict import Check

_MAX_YIQ_DELTA = 35215.0


class Rect(SpecModel):
    """A masked region in pixels: ``[x, y, width, height]`` or ``{x, y, width, height}``."""

    x: int = Field(ge=0)
    y: int = Field(ge=0)
    width: int = Field(gt=0)
    height: int = Field(gt=0)

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, data: Any) -> Any:
        if isinstance(data, (list, tuple)):
            if len(data) != 4:
                raise spec_error("a mask is [x, y, width, height]")
            return dict(zip(("x", "y", "width", "height"), data))
        if isinstance(data, dict) and ("w" in data or "h" in data):
            data = dict(data)
            if "w" in data:
                data["width"] = data.pop("w")
            if "h" in data:
                data["height"] = data.pop("h")
        return data


def load_rgb(data: bytes | str | Path) -> np.ndarray:
    """An HxWx3 uint8 array from PNG bytes or a path (alpha is composited over white)."""
    from PIL import Image

    try:
        img = Image.open(io.BytesIO(data)) if isinstance(data, (bytes, bytearray)) else Image.open(data)
        img.load()
    except FileNotFoundError:
        raise EvaluationError(f"image not found: {data}") from None
    except Exception as e:  # noqa: BLE001 - any unreadable image is a failed check, not a crash
        raise EvaluationError(f"unreadable image: {e}") from None
    if img.mode in ("RGBA", "LA", "P"):
        img = img.convert("RGBA")
        bg = Image.new("RGBA", img.size, (255, 255, 255, 255))
        img = Image.alpha_composite(bg, img)
    return np.asarray(img.convert("RGB"), dtype=np.uint8)


def _yiq(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r, g, b = (img[..., i].astype(np.float32) for i in range(3))
    y = 0.29889531 * r + 0.58662247 * g + 0.11448223 * b
    i = 0.59597799 * r - 0.27417610 * g - 0.32180189 * b
    q = 0.21147017 * r - 0.52261711 * g + 0.31114694 * b
    return y, i, q


def diff_mask(a: np.ndarray, b: np.ndarray, threshold: float = 0.1) -> np.ndarray:
    """Boolean HxW array of pixels whose perceived colour difference exceeds the threshold."""
    ya, ia, qa = _yiq(a)
    yb, ib, qb = _yiq(b)
    delta = 0.5053 * (ya - yb) ** 2 + 0.299 * (ia - ib) ** 2 + 0.1957 * (qa - qb) ** 2
    return delta > _MAX_YIQ_DELTA * threshold * threshold


def _unmasked(shape: tuple[int, int], masks: list[Rect]) -> np.ndarray:
    keep = np.ones(shape, dtype=bool)
    for m in masks:
        keep[m.y: m.y + m.height, m.x: m.x + m.width] = False
    return keep


def pixel_diff_ratio(a: np.ndarray, b: np.ndarray, masks: list[Rect] = (), threshold: float = 0.1) -> float:  # type: ignore[assignment]
    keep = _unmasked(a.shape[:2], list(masks))
    total = int(keep.sum())
    if total == 0:
        return 0.0
    return float((diff_mask(a, b, threshold) & keep).sum()) / total


def ssim_score(a: np.ndarray, b: np.ndarray, masks: list[Rect] = ()) -> float:  # type: ignore[assignment]
    from skimage.metrics import structural_similarity

    keep = _unmasked(a.shape[:2], list(masks))
    ya, yb = _yiq(a)[0], _yiq(b)[0]
    yb = np.where(keep, yb, ya)  # masked content cannot leak into neighbouring windows
    if min(ya.shape) < 7:
        return 1.0 if np.array_equal(ya, yb) else 0.0
    _, smap = structural_similarity(ya, yb, data_range=255.0, full=True)
    return float(smap[keep].mean()) if keep.any() else 1.0


class VisualSpec(CheckSpec):
    """The final screenshot (or ``step``'s) looks like ``reference`` (a PNG path, relative to the task
    directory, or bytes). ``method`` picks the tests: ``pixel`` and/or ``ssim``; each gives one check.
    """

    kind: Literal["visual"] = "visual"
    reference: Any
    step: int | None = None
    method: list[Literal["pixel", "ssim"]] = Field(default_factory=lambda: ["pixel", "ssim"])
    threshold: float = Field(0.1, ge=0, le=1)
    max_diff_ratio: float = Field(0.001, ge=0, le=1)
    min_ssim: float = Field(0.98, ge=-1, le=1)
    masks: list[Rect] = Field(default_factory=list)

    @field_validator("reference")
    @classmethod
    def _ref(cls, v: Any) -> Any:
        if isinstance(v, Path):
            return str(v)
        if isinstance(v, bytearray):
            return bytes(v)
        if not isinstance(v, (str, bytes)) or not v:
            raise ValueError("a reference is a PNG path or PNG bytes")
        return v

    @field_validator("method", mode="before")
    @classmethod
    def _one(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("method")
    @classmethod
    def _some(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("give at least one method: pixel, ssim")
        return v

    def default_name(self) -> str:
        return "visual"

    def _where(self) -> str:
        return "the final screenshot" if self.step is None else f"the screenshot of step {self.step}"

    def describe(self) -> str:
        return self.sentence or f"{self._where()} matches the reference"

    def _screenshot(self, env: Env) -> bytes | Path:
        if self.step is None:
            if env.ctx.final_screenshot is None:
                raise EvaluationError("there is no final screenshot")
            return env.ctx.final_screenshot
        steps = env.ctx.steps
        try:
            step = steps[self.step]
        except IndexError:
            raise EvaluationError(f"there is no step {self.step} (the trajectory has {len(steps)})") from None
        shot = step.get("screenshot") or step.get("screenshot_path")
        if shot is None:
            raise EvaluationError(f"step {self.step} has no screenshot")
        if isinstance(shot, (bytes, bytearray)):
            return bytes(shot)
        path = Path(shot)
        if not path.is_absolute() and env.ctx.trajectory_dir is not None:
            path = env.ctx.trajectory_dir / path
        return path

    def _reference(self, env: Env) -> bytes | Path:
        if isinstance(self.reference, bytes):
            return self.reference
        path = Path(env.resolve(self.reference))
        if not path.is_absolute() and env.base_dir is not None:
            path = env.base_dir / path
        return path

    def evaluate(self, env: Env) -> list[Check]:
        sentences = {
            "pixel": f"{self._where()} matches the reference pixel by pixel "
            f"(at most {self.max_diff_ratio:.2%} of pixels differ)",
            "ssim": f"{self._where()} is structurally similar to the reference (SSIM at least {self.min_ssim:.3f})",
        }
        if self.sentence:
            sentences = {k: f"{env.resolve(self.sentence)} ({k})" if len(self.method) > 1 else env.resolve(self.sentence)
                         for k in sentences}
        expected = {"pixel": {"max_diff_ratio": self.max_diff_ratio}, "ssim": {"min_ssim": self.min_ssim}}
        try:
            ref = load_rgb(self._reference(env))
            shot = load_rgb(self._screenshot(env))
        except EvaluationError as e:
            return [self.check(m, sentence=sentences[m], passed=False, expected=expected[m], error=str(e))
                    for m in self.method]
        if ref.shape != shot.shape:
            msg = (f"the screenshot is {shot.shape[1]}x{shot.shape[0]} but the reference is "
                   f"{ref.shape[1]}x{ref.shape[0]}")
            return [self.check(m, sentence=sentences[m], passed=False, expected=expected[m],
                               actual={"size": [shot.shape[1], shot.shape[0]]}, detail=msg) for m in self.method]
        out = []
        for m in self.method:
            if m == "pixel":
                ratio = pixel_diff_ratio(shot, ref, self.masks, self.threshold)
                ok = ratio <= self.max_diff_ratio
                out.append(self.check(m, sentence=sentences[m], passed=ok, expected=expected[m],
                                      actual={"diff_ratio": round(ratio, 6)},
                                      detail=None if ok else f"{ratio:.2%} of pixels differ"))
            else:
                score = ssim_score(shot, ref, self.masks)
                ok = score >= self.min_ssim
                out.append(self.check(m, sentence=sentences[m], passed=ok, expected=expected[m],
                                      actual={"ssim": round(score, 6)},
                                      detail=None if ok else f"SSIM is {score:.4f}"))
        return out
