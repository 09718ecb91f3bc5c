// The recording page: draws the sandboxed browser's frames and sends the person's input back.
// Input events are sent in order (one POST in flight; what arrives meanwhile goes in the next batch).
(() => {
  const root = document.querySelector('main.record');
  if (!root) return;
  const sid = root.dataset.session;
  const api = (path) => `/api/sessions/${sid}/${path}`;
  const canvas = document.getElementById('view');
  const ctx = canvas.getContext('2d');
  const readonly = canvas.dataset.readonly === '1';
  const $ = (id) => document.getElementById(id);
  const MAC = /Mac/.test(navigator.platform);
  const BUTTONS = ['left', 'middle', 'right'];
  const REST_MS = 250;

  // -- sending ------------------------------------------------------------------------------------
  const queue = [];
  let inflight = false;
  async function flush() {
    if (inflight || !queue.length) return;
    inflight = true;
    const batch = queue.splice(0);
    try {
      const res = await fetch(api('input'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(batch) });
      if (!res.ok) showWarning((await res.json()).error || `input refused (${res.status})`);
    } catch (e) { showWarning('the studio server did not answer'); }
    inflight = false;
    flush();
  }
  function send(ev) {
    if (readonly || finished) return;
    ev.t = performance.now();
    queue.push(ev);
    window.__studioSent && window.__studioSent(ev);
    flush();
  }
  async function command(name, body) {
    const res = await fetch(api(name), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body || {}) });
    const data = await res.json();
    if (!res.ok) { showWarning(data.error || `${name} failed`); return null; }
    return data;
  }

  // -- input capture on the view ------------------------------------------------------------------
  const mods = (e) => {
    const out = [];
    if (e.ctrlKey || (MAC && e.metaKey)) out.push('ctrl');
    if (e.altKey) out.push('alt');
    if (e.shiftKey) out.push('shift');
    if (e.metaKey && !MAC) out.push('super');
    return out;
  };
  function point(e) {
    // The frame is drawn scaled to fit the element's box, centred (object-fit: contain).
    const r = canvas.getBoundingClientRect();
    const scale = Math.min(r.width / canvas.width, r.height / canvas.height);
    const left = r.left + (r.width - canvas.width * scale) / 2;
    const top = r.top + (r.height - canvas.height * scale) / 2;
    const x = Math.round((e.clientX - left) / scale);
    const y = Math.round((e.clientY - top) / scale);
    return { x: Math.min(canvas.width - 1, Math.max(0, x)), y: Math.min(canvas.height - 1, Math.max(0, y)) };
  }
  let pressed = null, lastMove = null, moveQueued = false, restTimer = 0, restedAt = null;
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('mousedown', (e) => {
    if (BUTTONS[e.button] === undefined) return;
    e.preventDefault();
    canvas.focus();
    clearTimeout(restTimer);
    pressed = BUTTONS[e.button];
    restedAt = point(e);
    send({ type: 'down', ...point(e), button: pressed, count: Math.min(3, Math.max(1, e.detail || 1)), mods: mods(e) });
  });
  window.addEventListener('mouseup', (e) => {
    if (!pressed || BUTTONS[e.button] !== pressed) return;
    pressed = null;
    restedAt = point(e);
    send({ type: 'up', ...point(e), button: BUTTONS[e.button], mods: mods(e) });
  });
  window.addEventListener('mousemove', (e) => {
    if (!pressed && e.target !== canvas) return;
    lastMove = point(e);
    if (!moveQueued) {  // at most one move per frame of this page
      moveQueued = true;
      requestAnimationFrame(() => { moveQueued = false; if (lastMove) send({ type: 'move', ...lastMove }); });
    }
    clearTimeout(restTimer);
    if (!pressed) restTimer = setTimeout(() => {
      const p = lastMove;
      if (!p || pressed || (restedAt && Math.abs(restedAt.x - p.x) + Math.abs(restedAt.y - p.y) < 4)) return;
      restedAt = p;
      send({ type: 'rest', ...p });
    }, REST_MS);
  });
  canvas.addEventListener('mouseleave', () => clearTimeout(restTimer));
  // Wheel deltas add up into whole 100 px clicks, the unit of the `scroll` action.
  const acc = { x: 0, y: 0 };
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    restedAt = point(e);
    const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? canvas.height : 1;
    acc.x += e.deltaX * unit; acc.y += e.deltaY * unit;
    for (const [axis, pos, neg] of [['y', 'down', 'up'], ['x', 'right', 'left']]) {
      const clicks = Math.trunc(acc[axis] / 100);
      if (clicks) {
        acc[axis] -= clicks * 100;
        send({ type: 'wheel', ...point(e), direction: clicks > 0 ? pos : neg, clicks: Math.min(50, Math.abs(clicks)), mods: mods(e) });
      }
    }
  }, { passive: false });
  canvas.addEventListener('keydown', (e) => {
    if (e.isComposing) return;
    const paste = (e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V');
    if (paste) return;  // the paste event brings the text
    e.preventDefault();
    send({ type: 'key', key: e.key, code: e.code, mods: mods(e) });
  });
  document.addEventListener('paste', (e) => {
    if (document.activeElement !== canvas) return;
    const text = e.clipboardData && e.clipboardData.getData('text/plain');
    if (text) { e.preventDefault(); send({ type: 'paste', text }); }
  });
  canvas.addEventListener('compositionend', (e) => { if (e.data) send({ type: 'paste', text: e.data }); });

  // -- the stream: frames and events --------------------------------------------------------------
  let drawn = 0, decoding = 0;
  async function drawFrame(bytes) {
    const ticket = ++decoding;
    const type = bytes[0] === 0x89 ? 'image/png' : 'image/jpeg';
    const bitmap = await createImageBitmap(new Blob([bytes], { type }));
    if (ticket < drawn) { bitmap.close(); return; }  // a newer frame was drawn meanwhile
    drawn = ticket;
    if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) { canvas.width = bitmap.width; canvas.height = bitmap.height; }
    ctx.drawImage(bitmap, 0, 0);
    bitmap.close();
    window.__studioOnFrame && window.__studioOnFrame(ctx, canvas);
  }
  async function stream() {
    for (;;) {
      try {
        const res = await fetch(api('stream'));
        if (!res.ok) { showWarning('this recording is no longer open'); return; }
        const reader = res.body.getReader();
        let buf = new Uint8Array(0);
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const joined = new Uint8Array(buf.length + value.length);
          joined.set(buf); joined.set(value, buf.length);
          buf = joined;
          while (buf.length >= 5) {
            const len = new DataView(buf.buffer, buf.byteOffset + 1, 4).getUint32(0);
            if (buf.length < 5 + len) break;
            const kind = String.fromCharCode(buf[0]);
            const payload = buf.slice(5, 5 + len);
            buf = buf.slice(5 + len);
            if (kind === 'F') drawFrame(payload);
            else onEvent(JSON.parse(new TextDecoder().decode(payload)));
          }
        }
      } catch (e) { /* the server restarted or the connection dropped: reconnect */ }
      if (finished) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  // -- the panel ----------------------------------------------------------------------------------
  let steps = [], finished = false, maxSteps = 0;
  function describe(a) {
    if (!a) return '';
    const at = a.x !== undefined ? ` at (${a.x}, ${a.y})` : '';
    const mod = a.modifiers && a.modifiers.length ? ` with ${a.modifiers.join('+')}` : '';
    switch (a.action) {
      case 'type': return `type "${a.text}"`;
      case 'key': return `key ${a.key}${a.repeat > 1 ? ` ×${a.repeat}` : ''}`;
      case 'scroll': return `scroll ${a.direction} ${a.amount}${at}`;
      case 'left_click_drag': return `drag (${a.start_x}, ${a.start_y}) → (${a.end_x}, ${a.end_y})`;
      case 'answer': return `answer "${a.text}"`;
      case 'report_infeasible': return `report infeasible: ${a.reason}`;
      default: return `${a.action.replace(/_/g, ' ')}${at}${mod}`;
    }
  }
  function renderSteps() {
    const list = $('steps');
    list.replaceChildren(...steps.map((s) => {
      const li = document.createElement('li');
      li.dataset.step = s.step;
      li.tabIndex = 0;
      li.title = 'Select to add a note to this step';
      if (s.step === selected) li.classList.add('selected');
      li.addEventListener('click', () => selectStep(s.step === selected ? null : s.step));
      const what = document.createElement('span');
      what.className = 'what';
      what.textContent = describe(s.action);
      li.append(what);
      if (s.changes && s.changes.length) {
        const ch = document.createElement('span');
        ch.className = 'changes';
        ch.textContent = s.changes.join('; ');
        li.append(ch);
      }
      if (s.thought) {
        const th = document.createElement('span');
        th.className = 'thought';
        th.textContent = s.thought;
        li.append(th);
      }
      return li;
    }));
    list.scrollTop = list.scrollHeight;
    $('count').textContent = steps.length;
  }
  let selected = null;  // the step a note goes to (default: the last one)
  function selectStep(n) {
    selected = n;
    $('note-label').textContent = n ? `Why (a sentence of reasoning for step ${n})` : 'Why (a sentence of reasoning for the last step)';
    renderSteps();
  }
  function upsert(step) {
    const i = steps.findIndex((s) => s.step === step.step);
    if (i >= 0) steps[i] = step; else steps.push(step);
    renderSteps();
  }
  function showPending(p) { $('pending').textContent = p ? `in progress: ${describe(p)}` : ''; }
  function showWarning(text) { const w = $('warning'); w.textContent = text; w.hidden = !text; }
  function showVerdict(v, folder) {
    const box = $('verdict');
    box.hidden = false;
    box.replaceChildren();
    const h = document.createElement('h3');
    if (!v) { h.textContent = 'Finished (no verifier for free exploration)'; box.append(h); }
    else {
      h.textContent = v.passed ? `Passed · score ${Number(v.score).toFixed(2)}` : `Failed · score ${Number(v.score).toFixed(2)}`;
      h.className = v.passed ? 'pass' : 'fail';
      box.append(h);
      if (v.reason) { const p = document.createElement('p'); p.textContent = v.reason; box.append(p); }
      const ul = document.createElement('ul');
      ul.className = 'checks';
      const add = (c, depth) => {
        const li = document.createElement('li');
        li.className = c.passed ? 'pass' : 'fail';
        li.style.marginLeft = `${depth}em`;
        li.textContent = `${c.passed ? '✓' : '✗'} ${c.sentence}`;
        if (!c.passed && (c.expected !== null || c.actual !== null)) {
          const d = document.createElement('span');
          d.className = 'detail';
          d.textContent = ` expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(c.actual)}`;
          li.append(d);
        }
        ul.append(li);
        (c.checks || []).forEach((k) => add(k, depth + 1));
      };
      (v.checks || []).forEach((c) => add(c, 0));
      box.append(ul);
    }
    if (folder) { const p = document.createElement('p'); p.className = 'hint'; p.textContent = `Saved in ${folder}`; box.append(p); }
    const links = document.createElement('p');
    const view = document.createElement('a');
    view.href = `/episodes/${encodeURIComponent(sid)}`;
    view.textContent = 'Open in the viewer';
    links.append(view);
    if (/\.free$/.test(root.dataset.task || '')) {
      const draft = document.createElement('a');
      draft.href = `/recordings/${encodeURIComponent(sid)}/draft`;
      draft.textContent = 'Draft a task from this recording';
      links.append(' · ', draft);
    }
    box.append(links);
  }
  function setFinished(data) {
    finished = true;
    root.classList.add('finished');
    document.querySelectorAll('#finish-box button, #undo, #restart').forEach((b) => { b.disabled = true; });
    showVerdict(data.verdict, data.folder);
  }
  function onEvent(ev) {
    switch (ev.type) {
      case 'state':
        steps = ev.steps; maxSteps = ev.max_steps; renderSteps(); showPending(ev.pending);
        $('url').textContent = ev.url || '';
        if (ev.finished) setFinished(ev);
        break;
      case 'step': upsert(ev.step); showPending(null); break;
      case 'pending': showPending(ev.pending); if (ev.url) $('url').textContent = ev.url; break;
      case 'reset':
        selected = null;
        steps = ev.steps; renderSteps(); showPending(null); showWarning(ev.warning || '');
        if (ev.url) $('url').textContent = ev.url;
        break;
      case 'finished': setFinished(ev); break;
      case 'warning': showWarning(ev.text); break;
    }
  }

  // -- controls -----------------------------------------------------------------------------------
  $('note-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = $('note').value.trim();
    if (!text) return;
    if (await command('annotate', selected ? { text, step: selected } : { text })) { $('note').value = ''; selectStep(null); }
  });
  $('undo').addEventListener('click', () => command('undo'));
  $('restart').addEventListener('click', () => command('restart'));
  $('finish').addEventListener('click', async () => {
    await waitSent();
    const data = await command('finish', { kind: 'answer', text: $('answer').value });
    if (data) setFinished(data);
  });
  $('infeasible').addEventListener('click', async () => {
    await waitSent();
    const data = await command('finish', { kind: 'infeasible', text: $('answer').value });
    if (data) setFinished(data);
  });
  async function waitSent() {  // inputs still on their way must be queued before the command
    while (inflight || queue.length) { await new Promise((r) => setTimeout(r, 10)); }
  }

  stream();
  canvas.focus();
})();
