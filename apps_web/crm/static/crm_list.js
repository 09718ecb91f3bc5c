// CRM list views: the filter panel (toggle, add/remove rows, operators per field type) and the
// mass-action dialogs opened from a row's menu (one record) or the header buttons (the checked rows).
(function () {
  "use strict";
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const meta = () => { const el = $("#filter-fields"); return el ? JSON.parse(el.textContent) : {}; };

  // ---- filter panel ------------------------------------------------------------------------------
  function syncRow(row) {
    const field = meta()[$("[data-filter-field]", row).value];
    if (!field) return;
    const op = $("[data-filter-op]", row);
    $$("option", op).forEach((o) => { const ok = field.operators.includes(o.value); o.hidden = !ok; o.disabled = !ok; });
    if (op.selectedOptions[0] && op.selectedOptions[0].disabled) op.value = field.operators[0];
    const value = $("[data-filter-value]", row);
    value.type = field.kind === "date" || field.kind === "datetime" ? "date" : "text";
    if (field.list) value.setAttribute("list", field.list); else value.removeAttribute("list");
    if (field.numeric) value.setAttribute("inputmode", "decimal"); else value.removeAttribute("inputmode");
  }
  document.addEventListener("click", (ev) => {
    const toggle = ev.target.closest("[data-filter-toggle]");
    if (toggle) {
      const panel = document.getElementById(toggle.getAttribute("aria-controls"));
      panel.hidden = !panel.hidden;
      $$("[data-filter-toggle][aria-expanded]").forEach((b) => b.setAttribute("aria-expanded", String(!panel.hidden)));
      if (!panel.hidden) { const first = $("select, input:not([type=hidden]), button[data-add-filter]", panel); if (first) first.focus(); }
      return;
    }
    const add = ev.target.closest("[data-add-filter]");
    if (add) {
      const form = add.closest("form");
      const rows = $("[data-filter-rows]", form);
      const n = rows.children.length + 1;
      const html = $("#filter-row-template", form).innerHTML.replaceAll("__n__", String(n));
      rows.insertAdjacentHTML("beforeend", html);
      const row = rows.lastElementChild;
      syncRow(row);
      $("[data-filter-field]", row).focus();
      return;
    }
    const remove = ev.target.closest("[data-remove-filter]");
    if (remove) { remove.closest("[data-filter-row]").remove(); return; }

    // Mass-action dialogs: a row's menu acts on that row only; header buttons on the checked rows.
    const opener = ev.target.closest(".list-view [data-dialog-open^='mass-']");
    if (opener) {
      const list = opener.closest(".list-view");
      const dialog = document.getElementById(opener.dataset.dialogOpen);
      const target = $("[data-row-target]", list);
      const rowId = opener.dataset.rowId || "";
      target.value = rowId;
      const count = $$("input[name='ids']:checked", list).length;
      const msg = dialog && $("[data-mass-message]", dialog);
      if (msg) {
        msg.textContent = (rowId ? msg.dataset.one : msg.dataset.many)
          .replace("{name}", opener.dataset.rowName || "")
          .replace("{count}", String(count))
          .replace("{plural}", count === 1 ? list.dataset.singular : list.dataset.plural);
      }
    }
  });
  document.addEventListener("change", (ev) => {
    const field = ev.target.closest("[data-filter-field]");
    if (field) syncRow(field.closest("[data-filter-row]"));
  });
  // A cancelled dialog must not leave a row target behind for the next mass action.
  document.addEventListener("close", (ev) => {
    if (ev.target.matches && ev.target.matches(".list-view dialog")) {
      const t = $("[data-row-target]", ev.target.closest(".list-view"));
      if (t) t.value = "";
    }
  }, true);
})();
