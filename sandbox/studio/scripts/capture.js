// Headed mode: installed in every page of a Chromium window that a person uses directly. It turns
// the person's real (trusted) DOM events into the studio's raw input events, the same ones the
// studio page sends, and hands them to the recorder through the `__sbxStudioEmit` binding.
// It never prevents or changes an event: the page behaves exactly as without it.
(() => {
  if (window.__sbxCapture) return;
  Object.defineProperty(window, '__sbxCapture', { value: true, enumerable: false });
  const emit = (ev) => {
    ev.t = performance.now();
    const send = window.__sbxStudioEmit;
    if (typeof send === 'function') send(ev);
  };
  const BUTTONS = ['left', 'middle', 'right'];
  const mods = (e) => {
    const out = [];
    if (e.ctrlKey) out.push('ctrl');
    if (e.altKey) out.push('alt');
    if (e.shiftKey) out.push('shift');
    if (e.metaKey) out.push('super');
    return out;
  };
  const pt = (e) => ({ x: Math.max(0, Math.round(e.clientX)), y: Math.max(0, Math.round(e.clientY)) });
  const REST_MS = 300;  // a pointer still for this long has come to rest (a hover)
  let restTimer = 0, pressed = false, last = null, restedAt = null;
  const opts = { capture: true, passive: true };

  window.addEventListener('mousedown', (e) => {
    if (!e.isTrusted || BUTTONS[e.button] === undefined) return;
    pressed = true; clearTimeout(restTimer);
    emit({ type: 'down', ...pt(e), button: BUTTONS[e.button], count: Math.min(3, Math.max(1, e.detail || 1)), mods: mods(e) });
  }, opts);
  window.addEventListener('mouseup', (e) => {
    if (!e.isTrusted || BUTTONS[e.button] === undefined) return;
    pressed = false; restedAt = pt(e);
    emit({ type: 'up', ...pt(e), button: BUTTONS[e.button], mods: mods(e) });
  }, opts);
  window.addEventListener('mousemove', (e) => {
    if (!e.isTrusted) return;
    last = pt(e);
    if (pressed) { emit({ type: 'move', ...last }); return; }
    clearTimeout(restTimer);
    restTimer = setTimeout(() => {
      if (!last || (restedAt && Math.abs(restedAt.x - last.x) + Math.abs(restedAt.y - last.y) < 4)) return;
      restedAt = last;
      const s = window.__sbxStudio;
      if (s && s.hoverMatters()) emit({ type: 'rest', ...last });
    }, REST_MS);
  }, opts);
  // Wheel deltas (pixels, lines or pages) add up into whole 100 px wheel clicks, as `scroll` counts them.
  // The window scrolls by its own notch size (120 px on Linux), so a replay may differ by the
  // remainder carried here (under one click); the studio's live view scrolls by exact clicks.
  let acc = { x: 0, y: 0 };
  window.addEventListener('wheel', (e) => {
    if (!e.isTrusted) return;
    restedAt = pt(e);
    const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? window.innerHeight : 1;
    acc.x += e.deltaX * unit; acc.y += e.deltaY * unit;
    for (const [axis, pos, neg] of [['y', 'down', 'up'], ['x', 'right', 'left']]) {
      const clicks = Math.trunc(acc[axis] / 100);
      if (clicks !== 0) {
        acc[axis] -= clicks * 100;
        emit({ type: 'wheel', ...pt(e), direction: clicks > 0 ? pos : neg, clicks: Math.min(50, Math.abs(clicks)), mods: mods(e) });
      }
    }
  }, opts);
  window.addEventListener('keydown', (e) => {
    if (!e.isTrusted || e.isComposing) return;
    // A paste arrives as its own event with the text; ctrl+v itself is not a step.
    if ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V')) return;
    emit({ type: 'key', key: e.key, code: e.code, mods: mods(e) });
  }, opts);
  window.addEventListener('paste', (e) => {
    if (!e.isTrusted) return;
    const text = e.clipboardData && e.clipboardData.getData('text/plain');
    if (text) emit({ type: 'paste', text });
  }, opts);
  window.addEventListener('compositionend', (e) => {
    if (e.isTrusted && e.data) emit({ type: 'paste', text: e.data });  // IME input: the composed text
  }, opts);
})();
