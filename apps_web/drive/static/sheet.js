// The spreadsheet grid: click or arrow keys select a cell; typing starts an edit (or F2 / double-click
// edits the formula); Enter commits and moves down, Tab right, Escape cancels. The server evaluates
// the workbook and returns the cells whose values changed; they are repainted in place.
(function () {
  "use strict";
  const grid = document.getElementById("grid");
  if (!grid) return;
  const readOnly = grid.dataset.readonly === "true";
  const nameBox = document.getElementById("name-box");
  const bar = document.getElementById("formula-input");
  const status = document.getElementById("status-bar");
  const state = document.getElementById("save-state");
  let current = null, editor = null;
  const cellAt = (ref) => grid.querySelector(`td[data-ref="${ref}"]`);
  const parse = (ref) => { const m = /^([A-Z]+)(\d+)$/.exec(ref); let c = 0; for (const ch of m[1]) c = c * 26 + ch.charCodeAt(0) - 64; return [parseInt(m[2], 10), c]; };
  const name = (r, c) => { let s = ""; while (c) { const k = (c - 1) % 26; s = String.fromCharCode(65 + k) + s; c = Math.floor((c - 1) / 26); } return s + r; };
  function select(td) {
    if (!td) return;
    if (current) current.classList.remove("selected");
    current = td; td.classList.add("selected");
    nameBox.value = td.dataset.ref;
    document.querySelectorAll("input[data-selection]").forEach((i) => { i.value = td.dataset.ref; });
    bar.value = td.dataset.input || "";
    td.scrollIntoView({ block: "nearest", inline: "nearest" });
    grid.focus({ preventScroll: true });
  }
  function move(dr, dc) {
    const [r, c] = parse(current.dataset.ref);
    const next = cellAt(name(Math.max(1, r + dr), Math.max(1, c + dc)));
    if (next) select(next);
  }
  function startEdit(initial) {
    if (readOnly || !current) return;
    editor = document.createElement("input");
    editor.className = "cell-editor"; editor.setAttribute("aria-label", `Edit ${current.dataset.ref}`);
    editor.value = initial !== undefined ? initial : (current.dataset.input || "");
    current.textContent = ""; current.appendChild(editor); editor.focus();
    editor.addEventListener("input", () => { bar.value = editor.value; });
    editor.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") { ev.preventDefault(); commit(editor.value, 1, 0); }
      else if (ev.key === "Tab") { ev.preventDefault(); commit(editor.value, 0, ev.shiftKey ? -1 : 1); }
      else if (ev.key === "Escape") { ev.preventDefault(); cancel(); }
      ev.stopPropagation();
    });
  }
  function cancel() {
    if (!editor) return;
    editor.remove(); editor = null;
    paint(current, { value: current.dataset.value !== undefined ? current.dataset.value : current.dataset.shown || "" });
    select(current);
  }
  function paint(td, cell) {
    td.textContent = cell.value || "";
    if ("input" in cell) { if (cell.input) td.dataset.input = cell.input; else delete td.dataset.input; }
    td.classList.toggle("num", cell.number !== null && cell.number !== undefined);
    if (cell.error) td.dataset.error = cell.error; else delete td.dataset.error;
    td.dataset.shown = cell.value || "";
  }
  async function commit(text, dr, dc) {
    const td = current;
    const before = td.dataset.input || "";
    editor.remove(); editor = null;
    td.textContent = text.startsWith("=") ? "" : text;
    select(td); move(dr, dc);
    if (text === before) { td.textContent = td.dataset.shown !== undefined ? td.dataset.shown : td.textContent; return send(null); }
    await send({ sheet: grid.dataset.sheet, ref: td.dataset.ref, input: text });
  }
  let pending = Promise.resolve();
  function send(edit) {
    if (!edit) return pending;
    state.textContent = "Saving...";
    grid.dataset.busy = "1";
    pending = pending.then(async () => {
      const res = await fetch(`/sheet/${grid.dataset.item}/cells`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(edit) });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) { state.textContent = "Couldn't save: " + (body.detail || res.status); delete grid.dataset.busy; return; }
      for (const cell of body.cells) { if (cell.sheet !== grid.dataset.sheet) continue; const td = cellAt(cell.ref); if (td) paint(td, cell); }
      status.textContent = body.circular.length ? "Circular References: " + body.circular.map((r) => r.split("!").pop()).join(", ") : "";
      state.textContent = "Saved";
      if (current) bar.value = current.dataset.input || "";
      delete grid.dataset.busy;
    });
    return pending;
  }
  grid.tabIndex = 0;
  grid.querySelectorAll("td[data-ref]").forEach((td) => { td.dataset.shown = td.textContent; });
  grid.addEventListener("mousedown", (ev) => { const td = ev.target.closest("td[data-ref]"); if (td && td !== current) { if (editor) commit(editor.value, 0, 0); select(td); ev.preventDefault(); } });
  grid.addEventListener("dblclick", (ev) => { const td = ev.target.closest("td[data-ref]"); if (td) { select(td); startEdit(); } });
  grid.addEventListener("keydown", (ev) => {
    if (!current || editor) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Enter: [1, 0], Tab: [0, 1] };
    if (moves[ev.key]) { ev.preventDefault(); move(...moves[ev.key]); return; }
    if (ev.key === "F2") { ev.preventDefault(); startEdit(); return; }
    if (ev.key === "Delete" || ev.key === "Backspace") { ev.preventDefault(); if (!readOnly && current.dataset.input) { current.textContent = ""; send({ sheet: grid.dataset.sheet, ref: current.dataset.ref, input: "" }); } return; }
    if (ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); startEdit(ev.key); }
  });
  bar.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && current && !readOnly) { ev.preventDefault(); const td = current; td.textContent = ""; send({ sheet: grid.dataset.sheet, ref: td.dataset.ref, input: bar.value }); select(td); move(1, 0); }
  });
  // Frozen panes: the first rows / columns stick under the headers while the grid scrolls.
  const fr = parseInt(grid.dataset.freezeRows || "0", 10), fc = parseInt(grid.dataset.freezeCols || "0", 10);
  if (fr || fc) {
    const head = grid.querySelector("thead tr");
    const rows = Array.from(grid.querySelectorAll("tbody tr"));
    const top0 = head.offsetHeight;
    rows.forEach((tr, i) => {
      const cells = Array.from(tr.children);
      if (i < fr) {
        const top = top0 + tr.offsetTop - rows[0].offsetTop;
        cells.forEach((c) => { c.classList.add("frozen"); c.style.top = top + "px"; c.style.zIndex = c.tagName === "TH" || cells.indexOf(c) <= fc ? 3 : 2; if (i === fr - 1) c.classList.add("frozen-edge-row"); });
      }
      cells.slice(1, fc + 1).forEach((c, j) => {
        c.classList.add("frozen"); c.style.left = cells[j + 1].offsetLeft + "px"; if (j === fc - 1) c.classList.add("frozen-edge-col");
      });
    });
    Array.from(head.children).slice(1, fc + 1).forEach((th) => { th.style.left = th.offsetLeft + "px"; th.style.zIndex = 4; });
  }
  document.querySelectorAll("[data-select-all]").forEach((all) => {
    const boxes = Array.from(all.closest("fieldset").querySelectorAll("input[name=value]"));
    all.addEventListener("change", () => boxes.forEach((b) => { b.checked = all.checked; }));
    boxes.forEach((b) => b.addEventListener("change", () => { all.checked = boxes.every((x) => x.checked); }));
  });
  select(cellAt("A1"));
})();
