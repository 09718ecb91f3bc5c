"""Screenshot checks: pixel difference and SSIM against a reference, with masked regions."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw

from verifiers import build_verifier, pixel_diff_ratio, ssim_score


def page(*, banner: str = "#3366cc", box: tuple[int, int, int, int] | None = None, size=(320, 200),
         noise: float = 0.0) -> bytes:
    """A fake page: a banner, some text-like stripes, and an optional extra box."""
    img = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, size[0], 30], fill=banner)
    for y in range(50, size[1] - 20, 14):
        d.rectangle([20, y, 20 + (y * 7) % 200 + 60, y + 6], fill="#444444")
    if box:
        d.rectangle(box, fill="#cc0000")
    arr = np.asarray(img).astype(np.int16)
    if noise:
        rng = np.random.default_rng(0)
        arr = np.clip(arr + rng.normal(0, noise, arr.shape), 0, 255)
    out = io.BytesIO()
    Image.fromarray(arr.astype(np.uint8)).save(out, format="PNG")
    return out.getvalue()


def grade(world, check, shot, **ctx):
    return build_verifier([check]).verify(world.context(final_screenshot=shot, **ctx))


def test_identical_screenshot_passes_both(world):
    ref = page()
    v = grade(world, {"kind": "visual", "reference": ref}, page())
    assert v.passed, v.explain()
    assert [c.name for c in v.checks] == ["visual.pixel", "visual.ssim"]
    assert v.checks[0].actual == {"diff_ratio": 0.0} and v.checks[1].actual == {"ssim": 1.0}


def test_change_outside_mask_fails_inside_mask_passes(world):
    ref = page()
    changed = page(box=(250, 150, 300, 190))
    unmasked = grade(world, {"kind": "visual", "reference": ref}, changed)
    assert not unmasked.passed
    assert "of pixels differ" in unmasked.checks[0].detail
    masked = grade(world, {"kind": "visual", "reference": ref, "masks": [[240, 140, 80, 60]]}, changed)
    assert masked.passed, masked.explain()
    # a mask elsewhere does not help
    elsewhere = grade(world, {"kind": "visual", "reference": ref, "masks": [{"x": 0, "y": 0, "w": 50, "h": 50}]}, changed)
    assert not elsewhere.passed


def test_threshold_and_ratio(world):
    ref = page()
    subtle = page(banner="#3467cc")  # a barely perceptible colour shift over the banner
    assert grade(world, {"kind": "visual", "reference": ref, "method": "pixel"}, subtle).passed
    strict = {"kind": "visual", "reference": ref, "method": "pixel", "threshold": 0.0}
    assert not grade(world, strict, subtle).passed
    loose = {**strict, "max_diff_ratio": 0.2}
    assert grade(world, loose, subtle).passed


def test_ssim_tolerates_noise_but_not_layout_change(world):
    ref = page()
    noisy = page(noise=2.0)
    v = grade(world, {"kind": "visual", "reference": ref, "method": ["ssim"], "min_ssim": 0.9}, noisy)
    assert v.passed, v.explain()
    assert len(v.checks) == 1
    moved = page(box=(20, 40, 300, 190))
    v = grade(world, {"kind": "visual", "reference": ref, "method": "ssim", "min_ssim": 0.9}, moved)
    assert not v.passed and v.checks[0].detail.startswith("SSIM is")


def test_size_mismatch_fails_clearly(world):
    v = grade(world, {"kind": "visual", "reference": page()}, page(size=(300, 200)))
    assert not v.passed
    assert v.checks[0].detail == "the screenshot is 300x200 but the reference is 320x200"


def test_reference_path_relative_to_base_dir_and_step_screenshot(world, tmp_path):
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "done.png").write_bytes(page())
    (tmp_path / "traj").mkdir()
    (tmp_path / "traj" / "0001.png").write_bytes(page(box=(0, 0, 320, 200)))
    (tmp_path / "traj" / "0002.png").write_bytes(page())
    verifier = build_verifier([{"kind": "visual", "reference": "refs/done.png", "step": 1}], base_dir=tmp_path)
    steps = [{"screenshot": "0001.png"}, {"screenshot": "0002.png"}]
    assert verifier.verify(world.context(steps=steps, trajectory_dir=tmp_path / "traj")).passed
    verifier = build_verifier([{"kind": "visual", "reference": "refs/done.png", "step": 0}], base_dir=tmp_path)
    assert not verifier.verify(world.context(steps=steps, trajectory_dir=tmp_path / "traj")).passed


def test_missing_images_fail_with_reason(world, tmp_path):
    v = grade(world, {"kind": "visual", "reference": str(tmp_path / "nope.png")}, page())
    assert not v.passed and "image not found" in v.checks[0].error
    v = grade(world, {"kind": "visual", "reference": page()}, None)
    assert not v.passed and v.checks[0].error == "there is no final screenshot"
    v = grade(world, {"kind": "visual", "reference": page()}, b"not a png")
    assert not v.passed and "unreadable image" in v.checks[0].error
    v = build_verifier([{"kind": "visual", "reference": page(), "step": 5}]).verify(world.context())
    assert "there is no step 5" in v.checks[0].error


def test_metric_functions():
    a = np.zeros((20, 20, 3), dtype=np.uint8)
    b = a.copy()
    b[0:2, 0:10] = 255
    assert pixel_diff_ratio(a, b) == 20 / 400
    assert ssim_score(a, a) == 1.0
    assert ssim_score(a, b) < 1.0
