// The document editor: Quill (vendored) on the saved Delta; Save (or Ctrl+S) posts the Delta, which
// the server stores as blocks. New comment quotes the selected text.
(function () {
  "use strict";
  const el = document.getElementById("editor");
  if (!el || !window.Quill) return;
  const readOnly = el.dataset.readonly === "true";
  // Tab moves to the next cell of a table, as in Word; Tab in the last cell adds a row below.
  const tableTab = {
    key: "Tab", shiftKey: null, format: ["table"],
    handler(range, ctx) {
      const cell = ctx.line, at = cell.offset(this.quill.scroll);
      if (ctx.event.shiftKey) { if (at > 0) this.quill.setSelection(at - 1, "user"); return false; }
      const row = cell.parent;
      if (cell.next == null && row.next == null) this.quill.getModule("table").insertRowBelow();
      this.quill.setSelection(at + cell.length(), "user");
      return false;
    },
  };
  const quill = new Quill(el, { theme: "snow", readOnly, modules: { toolbar: readOnly ? false : "#toolbar", history: { delay: 0 }, table: true,
    keyboard: { bindings: { "table tab": tableTab } } } });
  // Quill's style picker replaces the <select>: give its items the names Word shows.
  document.querySelectorAll("#toolbar .ql-header .ql-picker-item").forEach((it) => {
    it.setAttribute("aria-label", it.dataset.value ? `Heading ${it.dataset.value}` : "Normal");
  });
  const label = document.querySelector("#toolbar .ql-header .ql-picker-label");
  if (label) label.setAttribute("aria-label", "Style");
  // The document's content: the server's rendering of it (#doc-html) read by Quill as its blots, which
  // is much faster than building a long document from the Delta; the Delta stays the truth: when the
  // editor's contents are not equal to it, it is set from the Delta instead.
  const delta = JSON.parse(document.getElementById("doc-delta").textContent);
  const drawn = document.getElementById("doc-html");
  const Delta = Quill.import("delta");
  const canonical = (ops) => JSON.stringify(new Delta().compose(new Delta(ops)).ops.map((op) => [op.insert, Object.entries(op.attributes || {}).sort()]));
  let from = "delta";
  if (drawn) {
    quill.root.replaceChildren(drawn.content);
    // Quill's blots read from the new children at once (its update() would replay them as mutations,
    // twice as slow), and the editor's own copy of the contents taken from them.
    const scroll = quill.scroll;
    if (scroll.observer && scroll.build && quill.editor && quill.editor.getDelta) {
      scroll.observer.takeRecords(); scroll.build(); scroll.optimize();
      quill.editor.delta = quill.editor.getDelta();
    } else quill.update("silent");
    if (canonical(quill.getContents().ops) === canonical(delta.ops)) from = "server";
  }
  if (from !== "server") quill.setContents(delta, "silent");
  el.dataset.drawn = from;
  quill.history.clear();
  const state = document.getElementById("save-state");
  let dirty = false, lastRange = null;
  quill.on("text-change", () => { dirty = true; state.textContent = "Unsaved changes"; });
  const layoutBtn = document.getElementById("table-layout");
  quill.on("selection-change", (range) => {
    if (!range) return;
    lastRange = range;
    if (layoutBtn) layoutBtn.disabled = !quill.getFormat(range.index, 0).table;
  });
  // Tables: Insert > Table (a grid of columns x rows, or Insert Table... with the numbers) and the
  // Table Layout menu on the cell with the cursor (rows and columns above/below/left/right, delete).
  const tables = quill.getModule("table");
  const closeMenu = (node) => {
    const wrap = node.closest(".menu-wrap");
    wrap.querySelector(".menu").hidden = true;
    wrap.querySelector("[data-menu]").setAttribute("aria-expanded", "false");
  };
  // the cursor before the toolbar took the focus (Quill keeps it as the saved range)
  const cursor = () => quill.selection.savedRange || lastRange;
  const atCursor = () => { const r = cursor(); quill.setSelection(r ? r.index : quill.getLength() - 1, 0, "silent"); };
  function insertTable(rows, cols) {
    atCursor();
    if (quill.getFormat().table) { state.textContent = "Tables can't be put inside a table. Move the cursor out of the table first."; return; }
    // On a paragraph with text, the table goes below it (as Word splits there, the paragraph stays whole);
    // on an empty one, the table takes its place above it.
    const sel = quill.getSelection();
    const [line] = quill.getLine(sel.index);
    if (line && line.length() > 1) {
      const at = line.offset(quill.scroll) + line.length();
      if (at >= quill.getLength()) {  // the last paragraph: a new empty one below it to hold the table
        quill.insertText(quill.getLength() - 1, "\n", "user");
        quill.formatLine(at, 1, { header: false, list: false }, "user");
      }
      quill.setSelection(at, 0, "silent");
    }
    tables.insertTable(rows, cols);
    const r = quill.getSelection();
    if (r) { lastRange = r; if (layoutBtn) layoutBtn.disabled = false; }
  }
  const picker = document.querySelector(".table-picker");
  if (picker && !readOnly) {
    const label = document.getElementById("table-picker-label");
    const cells = Array.from(picker.querySelectorAll(".table-grid button"));
    const light = (rows, cols) => {
      cells.forEach((b) => b.classList.toggle("on", +b.dataset.rows <= rows && +b.dataset.cols <= cols));
      label.textContent = rows ? `${cols}x${rows} Table` : "Insert Table";
    };
    cells.forEach((b) => {
      b.addEventListener("mouseenter", () => light(+b.dataset.rows, +b.dataset.cols));
      b.addEventListener("focus", () => light(+b.dataset.rows, +b.dataset.cols));
      b.addEventListener("click", () => { closeMenu(b); light(0, 0); insertTable(+b.dataset.rows, +b.dataset.cols); });
    });
    picker.addEventListener("mouseleave", () => light(0, 0));
    const form = document.getElementById("insert-table-form");
    form.addEventListener("submit", (ev) => {
      const err = document.getElementById("insert-table-error");
      const cols = document.getElementById("table-cols").value.trim(), rows = document.getElementById("table-rows").value.trim();
      const bad = (v, max) => !/^\d+$/.test(v) || +v < 1 || +v > max;
      if (bad(cols, 20)) { ev.preventDefault(); err.textContent = "The number of columns must be between 1 and 20."; document.getElementById("table-cols").focus(); return; }
      if (bad(rows, 500)) { ev.preventDefault(); err.textContent = "The number of rows must be between 1 and 500."; document.getElementById("table-rows").focus(); return; }
      err.textContent = "";
      insertTable(+rows, +cols);
      placeCursor = true;
    });
    // the dialog gives the focus back to its opener when it closes: put the cursor back in the table
    let placeCursor = false;
    document.getElementById("dlg-insert-table").addEventListener("close", () => {
      if (placeCursor && lastRange) quill.setSelection(lastRange.index, 0, "user");
      placeCursor = false;
    });
  }
  document.querySelectorAll("[data-table-op]").forEach((b) => b.addEventListener("click", () => {
    closeMenu(b);
    const at = cursor();
    if (!at) return;
    quill.setSelection(at.index, at.length, "silent");
    if (!quill.getFormat().table) { state.textContent = "Click in a table first."; return; }
    tables[b.dataset.tableOp]();
    const r = quill.getSelection();
    if (r) lastRange = r;
    if (layoutBtn) layoutBtn.disabled = !(r && quill.getFormat(r.index, 0).table);
  }));
  async function save() {
    if (readOnly) return true;
    state.textContent = "Saving...";
    const res = await fetch(`/doc/${el.dataset.item}/save`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ delta: quill.getContents() }) });
    const body = await res.json().catch(() => ({}));
    if (res.ok) { dirty = false; state.textContent = "Saved"; }
    else state.textContent = "Couldn't save: " + (body.detail || res.status);
    return res.ok;
  }
  window.driveSave = save;
  const btn = document.getElementById("doc-save");
  if (btn) btn.addEventListener("click", save);
  document.addEventListener("keydown", (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "s") { ev.preventDefault(); save(); }
  });
  document.getElementById("new-comment").addEventListener("click", () => {
    const range = lastRange;
    document.getElementById("comment-anchor").value = range && range.length ? quill.getText(range.index, range.length).trim() : "";
  });
  // Find and Replace (Ctrl+H, or Ctrl+F to find): matches in the editor's text, case-sensitive or not,
  // whole words or not; a replacement keeps the formatting of the text it replaces.
  const dlg = document.getElementById("dlg-replace");
  if (dlg && !readOnly) {
    const what = document.getElementById("find-what"), repl = document.getElementById("replace-with");
    const matchCase = document.getElementById("match-case"), whole = document.getElementById("whole-words");
    const msg = document.getElementById("replace-status");
    const open = () => {
      const range = lastRange;
      if (range && range.length && !dlg.open) what.value = quill.getText(range.index, range.length).trim();
      if (!dlg.open) dlg.showModal();
      what.focus(); what.select();
    };
    const escape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    function matches() {
      if (!what.value) return [];
      const src = escape(what.value);
      const re = new RegExp(whole.checked ? `(?<![\\p{L}\\p{N}_])${src}(?![\\p{L}\\p{N}_])` : src, "gu" + (matchCase.checked ? "" : "i"));
      const out = []; const text = quill.getText(); let m;
      while ((m = re.exec(text)) !== null) { out.push([m.index, m[0].length]); if (!m[0].length) re.lastIndex++; }
      return out;
    }
    function findNext() {
      const found = matches();
      if (!found.length) { msg.textContent = `We couldn't find “${what.value}”.`; return null; }
      const from = lastRange ? lastRange.index + (lastRange.length || 0) : 0;
      const hit = found.find(([i]) => i >= from) || found[0];
      quill.setSelection(hit[0], hit[1], "silent"); lastRange = { index: hit[0], length: hit[1] };
      msg.textContent = `Match ${found.indexOf(hit) + 1} of ${found.length}.`;
      return hit;
    }
    function replaceAt(index, length) {
      const fmt = quill.getFormat(index, 1);
      const inline = {};
      for (const k of ["bold", "italic", "underline", "link"]) if (fmt[k]) inline[k] = fmt[k];
      quill.deleteText(index, length, "user");
      if (repl.value) quill.insertText(index, repl.value, inline, "user");
    }
    document.getElementById("find-next").addEventListener("click", findNext);
    document.getElementById("replace-one").addEventListener("click", () => {
      const found = matches();
      const sel = lastRange && found.find(([i, n]) => i === lastRange.index && n === lastRange.length);
      if (sel) { replaceAt(sel[0], sel[1]); lastRange = { index: sel[0] + repl.value.length, length: 0 }; }
      if (!findNext() && sel) msg.textContent = "We replaced 1 occurrence. No more matches.";
    });
    document.getElementById("replace-all").addEventListener("click", () => {
      const found = matches();
      if (!found.length) { msg.textContent = `We couldn't find “${what.value}”.`; return; }
      for (const [i, n] of found.slice().reverse()) replaceAt(i, n);
      msg.textContent = `We replaced ${found.length} occurrence${found.length === 1 ? "" : "s"}.`;
    });
    document.getElementById("find-replace").addEventListener("click", open);
    document.addEventListener("keydown", (ev) => {
      if ((ev.ctrlKey || ev.metaKey) && ["h", "f"].includes(ev.key.toLowerCase())) { ev.preventDefault(); open(); }
    });
  }
  // Suggest edit: the selection's paragraph (its number among the lines) and offset in it.
  const sug = document.getElementById("new-suggestion");
  if (sug) sug.addEventListener("click", () => {
    const range = lastRange || { index: 0, length: 0 };
    // the paragraph's number among the saved blocks: a table (all its cells) is one block
    const [here, offset] = quill.getLine(range.index);
    let n = -1, prevTable = null;
    for (const line of quill.getLines()) {
      const table = line.statics.blotName === "table" ? line.parent.parent.parent : null;
      if (!table || table !== prevTable) n += 1;
      prevTable = table;
      if (line === here) break;
    }
    document.getElementById("suggest-block").value = Math.max(n, 0);
    document.getElementById("suggest-offset").value = offset;
    document.getElementById("suggest-anchor").value = range.length ? quill.getText(range.index, range.length) : "";
  });
  // Save as PDF draws the saved document: unsaved edits are saved first, as Word does before exporting.
  const exportForm = document.getElementById("export-pdf-form");
  if (exportForm) exportForm.addEventListener("submit", async (ev) => {
    if (!dirty) return;
    ev.preventDefault();
    const status = document.getElementById("export-pdf-status");
    status.textContent = "Saving your changes...";
    if (await save()) exportForm.submit();
    else status.textContent = "Your changes couldn't be saved, so the PDF wasn't created. " + state.textContent;
  });
  window.addEventListener("beforeunload", (ev) => { if (dirty) { ev.preventDefault(); ev.returnValue = ""; } });
})();
