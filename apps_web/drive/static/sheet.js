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
  // Cells by reference, looked up once (a 2,000-cell grid is not searched on every key press).
  const cells = new Map();
  grid.querySelectorAll("td[data-ref]").forEach((td) => cells.set(td.dataset.ref, td));
  const cellAt = (ref) => cells.get(ref) || null;
  // Per column, the longest value sure to fit its width (the server's rule): a longer one is clipped.
  const clipAt = (grid.dataset.clipAt || "").split(",").map(Number);
  // What was typed in a cell: data-input when it differs from what is shown (a formula), else the text.
  const inputOf = (td) => (td.dataset.input !== undefined ? td.dataset.input : shownOf(td));
  const shownOf = (td) => (td.dataset.shown !== undefined ? td.dataset.shown : td.textContent);
  const parse = (ref) => { const m = /^([A-Z]+)(\d+)$/.exec(ref); let c = 0; for (const ch of m[1]) c = c * 26 + ch.charCodeAt(0) - 64; return [parseInt(m[2], 10), c]; };
  const name = (r, c) => { let s = ""; while (c) { const k = (c - 1) % 26; s = String.fromCharCode(65 + k) + s; c = Math.floor((c - 1) / 26); } return s + r; };
  // The selection: the active cell (``current``) and the opposite corner of the range (``extent``).
  let extent = null;
  function rangeOf() {
    const [r1, c1] = parse(current.dataset.ref), [r2, c2] = parse((extent || current).dataset.ref);
    return [Math.min(r1, r2), Math.min(c1, c2), Math.max(r1, r2), Math.max(c1, c2)];
  }
  function paintRange() {
    grid.querySelectorAll("td.in-range").forEach((td) => { td.classList.remove("in-range"); td.removeAttribute("aria-selected"); });
    const [r1, c1, r2, c2] = rangeOf();
    for (let r = r1; r <= r2; r++) for (let c = c1; c <= c2; c++) { const td = cellAt(name(r, c)); if (td) { td.classList.add("in-range"); td.setAttribute("aria-selected", "true"); } }
    grid.dataset.selection = r1 === r2 && c1 === c2 ? name(r1, c1) : `${name(r1, c1)}:${name(r2, c2)}`;
    document.querySelectorAll("input[data-selection-range]").forEach((i) => { i.value = grid.dataset.selection; });
  }
  function extendTo(td) {
    if (!td || !current) return;
    extent = td; paintRange();
    td.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
  function select(td) {
    if (!td) return;
    if (current) current.classList.remove("selected");
    current = td; extent = null; td.classList.add("selected"); paintRange();
    nameBox.value = td.dataset.ref;
    document.querySelectorAll("input[data-selection]").forEach((i) => { i.value = td.dataset.ref; });
    bar.value = inputOf(td);
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
    current.dataset.input = inputOf(current); current.dataset.shown = shownOf(current);
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
    paint(current, { value: current.dataset.shown || "" });
    select(current);
  }
  function show(td, text) { td.textContent = text; td.toggleAttribute("data-clip", !(text.length <= clipAt[parse(td.dataset.ref)[1] - 1])); }
  function paint(td, cell) {
    show(td, cell.value || "");
    if ("input" in cell) { if (cell.input) td.dataset.input = cell.input; else delete td.dataset.input; }
    td.classList.toggle("num", cell.number !== null && cell.number !== undefined);
    if (cell.error) td.dataset.error = cell.error; else delete td.dataset.error;
    td.dataset.shown = cell.value || "";
  }
  async function commit(text, dr, dc) {
    const td = current;
    const before = td.dataset.input || "";
    editor.remove(); editor = null;
    show(td, text.startsWith("=") ? "" : text);
    select(td); move(dr, dc);
    if (text === before) { td.textContent = td.dataset.shown !== undefined ? td.dataset.shown : td.textContent; return send(null); }
    await send({ sheet: grid.dataset.sheet, ref: td.dataset.ref, input: text });
  }
  // Charts whose data changed come back drawn again by the server.
  function redraw(body) {
    for (const c of body.charts || []) { const el = document.querySelector(`#chart-${c.id} .chart-body`); if (el) el.innerHTML = c.svg; }
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
      redraw(body);
      status.textContent = body.circular.length ? "Circular References: " + body.circular.map((r) => r.split("!").pop()).join(", ") : "";
      state.textContent = "Saved";
      if (current) bar.value = inputOf(current);
      delete grid.dataset.busy;
    });
    return pending;
  }
  grid.tabIndex = 0;
  let dragging = false;
  grid.addEventListener("mousedown", (ev) => {
    const td = ev.target.closest("td[data-ref]");
    if (!td || ev.button !== 0) return;
    if (ev.shiftKey && current && !editor) { extendTo(td); ev.preventDefault(); return; }
    if (td !== current) { if (editor) commit(editor.value, 0, 0); select(td); ev.preventDefault(); }
    dragging = !editor;
  });
  grid.addEventListener("mouseover", (ev) => { const td = ev.target.closest("td[data-ref]"); if (dragging && td && (ev.buttons & 1)) extendTo(td); });
  document.addEventListener("mouseup", () => { dragging = false; });
  function repaint(body) {
    for (const cell of body.cells) { if (cell.sheet !== grid.dataset.sheet) continue; const td = cellAt(cell.ref); if (td) paint(td, cell); }
    redraw(body);
    status.textContent = body.circular.length ? "Circular References: " + body.circular.map((r) => r.split("!").pop()).join(", ") : "";
  }
  function post(path, payload) {
    state.textContent = "Saving...";
    grid.dataset.busy = "1";
    pending = pending.then(async () => {
      const res = await fetch(`/sheet/${grid.dataset.item}/${path}`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(payload) });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) { state.textContent = "Couldn't save: " + (body.detail || res.status); delete grid.dataset.busy; return; }
      repaint(body);
      state.textContent = "Saved";
      if (current) bar.value = inputOf(current);
      delete grid.dataset.busy;
    });
    return pending;
  }
  // Ctrl+C copies the selection as tab-separated values (and remembers the formulas, so a paste in a
  // workbook keeps them, shifted); Ctrl+V of several cells fills the grid from the active cell.
  const tsv = (rows) => rows.map((r) => r.join("\t")).join("\n");
  document.addEventListener("copy", (ev) => {
    if (editor || !current || document.activeElement !== grid) return;
    const [r1, c1, r2, c2] = rangeOf();
    const shown = [], inputs = [];
    for (let r = r1; r <= r2; r++) {
      const s = [], i = [];
      for (let c = c1; c <= c2; c++) { const td = cellAt(name(r, c)); s.push(td ? shownOf(td) : ""); i.push(td ? inputOf(td) : ""); }
      shown.push(s); inputs.push(i);
    }
    ev.clipboardData.setData("text/plain", tsv(shown));
    sessionStorage.setItem("sheet-clip", JSON.stringify({ text: tsv(shown), origin: name(r1, c1), inputs }));
    ev.preventDefault();
  });
  document.addEventListener("paste", (ev) => {
    if (editor || !current || readOnly || document.activeElement !== grid) return;
    const text = (ev.clipboardData.getData("text/plain") || "").replace(/\r\n?/g, "\n").replace(/\n$/, "");
    if (!text) return;
    ev.preventDefault();
    let rows = text.split("\n").map((line) => line.split("\t"));
    let origin = null;
    const clip = JSON.parse(sessionStorage.getItem("sheet-clip") || "null");
    if (clip && clip.text === text) { rows = clip.inputs; origin = clip.origin; }
    const [r0, c0] = parse(current.dataset.ref);
    extent = cellAt(name(r0 + rows.length - 1, c0 + Math.max(...rows.map((r) => r.length)) - 1)) || null; paintRange();
    post("paste", { sheet: grid.dataset.sheet, at: current.dataset.ref, rows, origin });
  });
  grid.addEventListener("dblclick", (ev) => { const td = ev.target.closest("td[data-ref]"); if (td) { select(td); startEdit(); } });
  grid.addEventListener("keydown", (ev) => {
    if (!current || editor) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Enter: [1, 0], Tab: [0, 1] };
    if (moves[ev.key] && ev.shiftKey && ev.key.startsWith("Arrow")) {
      ev.preventDefault();
      const [r, c] = parse((extent || current).dataset.ref), [dr, dc] = moves[ev.key];
      extendTo(cellAt(name(Math.max(1, r + dr), Math.max(1, c + dc))) || extent);
      return;
    }
    if (moves[ev.key]) { ev.preventDefault(); move(...moves[ev.key]); return; }
    if ((ev.ctrlKey || ev.metaKey) && (ev.key === "d" || ev.key === "D")) {
      ev.preventDefault();
      if (readOnly) return;
      post("fill", { sheet: grid.dataset.sheet, range: grid.dataset.selection.includes(":") ? grid.dataset.selection : `${grid.dataset.selection}:${grid.dataset.selection}` });
      return;
    }
    if ((ev.ctrlKey || ev.metaKey) && (ev.key === "r" || ev.key === "R")) {
      ev.preventDefault();
      if (readOnly) return;
      post("fill-right", { sheet: grid.dataset.sheet, range: grid.dataset.selection.includes(":") ? grid.dataset.selection : `${grid.dataset.selection}:${grid.dataset.selection}` });
      return;
    }
    if ((ev.ctrlKey || ev.metaKey) && (ev.key === "a" || ev.key === "A")) return;
    if (ev.key === "F2") { ev.preventDefault(); startEdit(); return; }
    if (ev.key === "Delete" || ev.key === "Backspace") {
      ev.preventDefault();
      if (readOnly) return;
      const [r1, c1, r2, c2] = rangeOf();
      const edits = [];
      for (let r = r1; r <= r2; r++) for (let c = c1; c <= c2; c++) { const td = cellAt(name(r, c)); if (td && inputOf(td)) { td.textContent = ""; edits.push({ sheet: grid.dataset.sheet, ref: td.dataset.ref, input: "" }); } }
      if (edits.length) send({ edits });
      return;
    }
    if (ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); startEdit(ev.key); }
  });
  // The Name Box: type a cell or a range ("F2:F13") and press Enter to select it, as in Excel.
  nameBox.addEventListener("focus", () => nameBox.select());
  nameBox.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { ev.preventDefault(); nameBox.value = current ? current.dataset.ref : ""; grid.focus({ preventScroll: true }); return; }
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    const m = /^\s*\$?([A-Za-z]{1,3})\$?(\d+)\s*(?::\s*\$?([A-Za-z]{1,3})\$?(\d+))?\s*$/.exec(nameBox.value);
    const a = m && cellAt(m[1].toUpperCase() + m[2]);
    const b = m && m[3] ? cellAt(m[3].toUpperCase() + m[4]) : null;
    if (!a || (m[3] && !b)) { state.textContent = "Enter a cell reference like B7 or a range like B2:B10."; nameBox.value = current ? current.dataset.ref : ""; grid.focus({ preventScroll: true }); return; }
    select(a);
    if (b) extendTo(b);
  });
  bar.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && current && !readOnly) { ev.preventDefault(); const td = current; td.textContent = ""; send({ sheet: grid.dataset.sheet, ref: td.dataset.ref, input: bar.value }); select(td); move(1, 0); }
  });
  // Frozen panes: the first rows stick under the header row, the first columns beside the row numbers,
  // while the grid scrolls (the columns' offsets are read from the header row, always laid out).
  const fr = parseInt(grid.dataset.freezeRows || "0", 10), fc = parseInt(grid.dataset.freezeCols || "0", 10);
  if (fr || fc) {
    const head = Array.from(grid.querySelector("thead tr").children);
    const x0 = head[0].getBoundingClientRect().left;
    const lefts = head.map((th) => th.getBoundingClientRect().left - x0);
    const top0 = grid.querySelector("thead").offsetHeight;
    const rows = Array.from(grid.querySelectorAll("tbody tr"));
    const rowH = rows.length ? rows[0].offsetHeight || 22 : 22;
    let shown = 0;
    const freezeCols = (cells) => {
      for (let j = 1; j <= fc && j < cells.length; j++) {
        cells[j].classList.add("frozen"); cells[j].style.left = lefts[j] + "px";
        if (j === fc) cells[j].classList.add("frozen-edge-col");
      }
    };
    freezeCols(head);
    head.slice(1, fc + 1).forEach((th) => { th.style.zIndex = 4; });
    rows.forEach((tr, i) => {
      const cells = tr.children;
      if (i < fr) {
        tr.classList.add("frozen-row"); tr.style.top = (top0 + rowH * shown) + "px";
        if (!tr.hidden) shown += 1;
        if (i === fr - 1) for (const c of cells) c.classList.add("frozen-edge-row");
      }
      if (fc) freezeCols(cells);
    });
  }
  document.querySelectorAll("[data-select-all]").forEach((all) => {
    const boxes = Array.from(all.closest("fieldset").querySelectorAll("input[name=value]"));
    all.addEventListener("change", () => boxes.forEach((b) => { b.checked = all.checked; }));
    boxes.forEach((b) => b.addEventListener("change", () => { all.checked = boxes.every((x) => x.checked); }));
  });
  // Sheet tabs: double-click a tab (or right-click > Rename) to rename it in place; right-click >
  // Insert / Delete (Excel asks before deleting a sheet).
  const tabMenu = document.getElementById("tab-menu");
  let menuTab = null;
  function renameTab(tab) {
    const form = document.getElementById("rename-sheet-form");
    if (!form || tab.querySelector("input")) return;
    const input = document.createElement("input");
    input.setAttribute("aria-label", "Sheet name"); input.value = tab.dataset.sheet;
    tab.textContent = ""; tab.appendChild(input); input.focus(); input.select();
    let done = false;
    const finish = (save) => {
      if (done) return; done = true;
      if (save && input.value.trim() && input.value !== tab.dataset.sheet) {
        form.elements.sheet.value = tab.dataset.sheet; form.elements.name.value = input.value; form.submit();
      } else { tab.textContent = tab.dataset.sheet; }
    };
    input.addEventListener("keydown", (ev) => { ev.stopPropagation(); if (ev.key === "Enter") { ev.preventDefault(); finish(true); } else if (ev.key === "Escape") { ev.preventDefault(); finish(false); } });
    input.addEventListener("click", (ev) => ev.preventDefault());
    input.addEventListener("blur", () => finish(true));
  }
  document.querySelectorAll(".sheet-tab").forEach((tab) => {
    if (readOnly) return;
    tab.addEventListener("dblclick", (ev) => { ev.preventDefault(); renameTab(tab); });
    // The active tab is already shown: a click on it stays (so its double-click renames it).
    tab.addEventListener("click", (ev) => { if (tab.getAttribute("aria-current") === "page" || tab.querySelector("input")) ev.preventDefault(); });
    tab.addEventListener("contextmenu", (ev) => {
      ev.preventDefault();
      if (!tabMenu) return;
      menuTab = tab;
      tabMenu.hidden = false;
      const box = tab.getBoundingClientRect();
      tabMenu.style.left = box.left + "px";
      tabMenu.style.top = Math.max(4, box.top - tabMenu.offsetHeight - 4) + "px";
    });
  });
  if (tabMenu) {
    document.addEventListener("mousedown", (ev) => { if (!tabMenu.hidden && !ev.target.closest("#tab-menu")) tabMenu.hidden = true; });
    document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") tabMenu.hidden = true; });
    tabMenu.addEventListener("click", (ev) => {
      const btn = ev.target.closest("[data-tab-act]");
      if (!btn || !menuTab) return;
      tabMenu.hidden = true;
      if (btn.dataset.tabAct === "rename") renameTab(menuTab);
      else if (btn.dataset.tabAct === "insert") document.getElementById("new-sheet-form").submit();
      else {
        const dlg = document.getElementById("dlg-sheet-delete");
        dlg.querySelector("input[name=sheet]").value = menuTab.dataset.sheet;
        dlg.querySelector("[data-sheet-name]").textContent = menuTab.dataset.sheet;
        dlg.showModal();
        dlg.querySelector("button[type=submit]").focus();
      }
    });
  }
  // Charts sit over the grid with their top-left corner on their anchor cell; drag one to move it
  // (it snaps to the cell under its corner); select one and press Delete to remove it.
  const wrap = grid.closest(".grid-wrap");
  function place(fig) {
    const td = cellAt(fig.dataset.anchor);
    if (!td) return;
    const a = td.getBoundingClientRect(), w = wrap.getBoundingClientRect();
    fig.style.left = (a.left - w.left + wrap.scrollLeft - wrap.clientLeft) + "px";
    fig.style.top = (a.top - w.top + wrap.scrollTop - wrap.clientTop) + "px";
  }
  document.querySelectorAll(".sheet-chart").forEach((fig) => {
    place(fig);
    fig.hidden = false;
    fig.addEventListener("keydown", (ev) => {
      if ((ev.key === "Delete" || ev.key === "Backspace") && ev.target === fig && !readOnly) { ev.preventDefault(); fig.querySelector("form[action$='/delete']").submit(); }
    });
    if (readOnly) return;
    fig.addEventListener("mousedown", (ev) => {
      if (ev.button !== 0 || ev.target.closest("button, form, a")) return;
      ev.preventDefault();
      fig.focus({ preventScroll: true });
      const x0 = ev.clientX, y0 = ev.clientY, l0 = parseFloat(fig.style.left), t0 = parseFloat(fig.style.top);
      let moved = false;
      const onMove = (e) => { moved = true; fig.classList.add("dragging"); fig.style.left = (l0 + e.clientX - x0) + "px"; fig.style.top = (t0 + e.clientY - y0) + "px"; };
      const onUp = async () => {
        document.removeEventListener("mousemove", onMove); document.removeEventListener("mouseup", onUp);
        fig.classList.remove("dragging");
        if (!moved) return;
        const box = fig.getBoundingClientRect();
        const under = document.elementsFromPoint(box.left + 2, box.top + 2).find((el) => el.matches && el.matches("td[data-ref]"));
        const anchor = under ? under.dataset.ref : fig.dataset.anchor;
        fig.dataset.anchor = anchor; place(fig);
        state.textContent = "Saving..."; grid.dataset.busy = "1";
        const res = await fetch(`/sheet/${grid.dataset.item}/charts/${fig.dataset.chartId}/move`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify({ anchor }) });
        state.textContent = res.ok ? "Saved" : "Couldn't move the chart"; delete grid.dataset.busy;
      };
      document.addEventListener("mousemove", onMove); document.addEventListener("mouseup", onUp);
    });
  });
  select(cellAt("A1"));
})();
