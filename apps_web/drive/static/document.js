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
    if (readOnly) return;
    state.textContent = "Saving...";
    const res = await fetch(`/doc/${el.dataset.item}/save`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ delta: quill.getContents() }) });
    const body = await res.json().catch(() => ({}));
    if (res.ok) { dirty = false; state.textContent = "Saved"; }
    else state.textContent = "Couldn't save: " + (body.detail || res.status);
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
  window.addEventListener("beforeunload", (ev) => { if (dirty) { ev.preventDefault(); ev.returnValue = ""; } });
})();
