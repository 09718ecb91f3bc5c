// The document editor: Quill (vendored) on the saved Delta; Save (or Ctrl+S) posts the Delta, which
// the server stores as blocks. New comment quotes the selected text.
(function () {
  "use strict";
  const el = document.getElementById("editor");
  if (!el || !window.Quill) return;
  const readOnly = el.dataset.readonly === "true";
  const quill = new Quill(el, { theme: "snow", readOnly, modules: { toolbar: readOnly ? false : "#toolbar", history: { delay: 0 } } });
  // Quill's style picker replaces the <select>: give its items the names Word shows.
  document.querySelectorAll("#toolbar .ql-header .ql-picker-item").forEach((it) => {
    it.setAttribute("aria-label", it.dataset.value ? `Heading ${it.dataset.value}` : "Normal");
  });
  const label = document.querySelector("#toolbar .ql-header .ql-picker-label");
  if (label) label.setAttribute("aria-label", "Style");
  quill.setContents(JSON.parse(document.getElementById("doc-delta").textContent), "silent");
  quill.history.clear();
  const state = document.getElementById("save-state");
  let dirty = false, lastRange = null;
  quill.on("text-change", () => { dirty = true; state.textContent = "Unsaved changes"; });
  quill.on("selection-change", (range) => { if (range) lastRange = range; });
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
    const before = quill.getText(0, range.index);
    const line = before.split("\n").length - 1;
    document.getElementById("suggest-block").value = line;
    document.getElementById("suggest-offset").value = range.index - (before.lastIndexOf("\n") + 1);
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
