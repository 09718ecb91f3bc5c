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
      const menu = toggle.closest(".menu");
      if (menu) {  // "Edit List Filters" of the list view controls: always opens, and closes its menu
        menu.hidden = true;
        const btn = menu.parentElement.querySelector("[data-menu]");
        if (btn) btn.setAttribute("aria-expanded", "false");
        panel.hidden = false;
      } else {
        panel.hidden = !panel.hidden;
      }
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
  // ---- List View Controls ------------------------------------------------------------------------
  // List API Name follows List Name until the user types in it (Lightning's behaviour).
  const apiName = (name) => {
    let t = name.trim().replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "").replace(/_+/g, "_");
    if (t && !/^[A-Za-z]/.test(t)) t = "X" + t;
    return t.slice(0, 80);
  };
  document.addEventListener("input", (ev) => {
    const name = ev.target.closest("[data-lv-name]");
    if (name) {
      const api = $("[data-lv-api]", name.closest("form"));
      if (api && !api.dataset.touched) api.value = apiName(name.value);
      return;
    }
    const api = ev.target.closest("[data-lv-api]");
    if (api) api.dataset.touched = "1";
  });
  // Dual list box: click selects an option (Ctrl/Cmd adds to the selection), buttons move them.
  document.addEventListener("click", (ev) => {
    const opt = ev.target.closest(".dual-list [role=option]");
    if (opt) {
      const list = opt.parentElement;
      const form = opt.closest("form");
      if (!(ev.ctrlKey || ev.metaKey)) $$("[role=option][aria-selected=true]", form).forEach((o) => o.setAttribute("aria-selected", "false"));
      opt.setAttribute("aria-selected", opt.getAttribute("aria-selected") === "true" && (ev.ctrlKey || ev.metaKey) ? "false" : "true");
      list.focus();
      return;
    }
    const move = ev.target.closest("[data-dual-move]");
    if (move) {
      const form = move.closest("form");
      const source = $("[data-dual-source]", form), target = $("[data-dual-target]", form);
      const dir = move.dataset.dualMove;
      if (dir === "right" || dir === "left") {
        const from = dir === "right" ? source : target, to = dir === "right" ? target : source;
        $$("[role=option][aria-selected=true]", from).forEach((o) => to.appendChild(o));
      } else {
        const chosen = $$("[role=option][aria-selected=true]", target);
        if (dir === "down") chosen.reverse();
        chosen.forEach((o) => {
          const sib = dir === "up" ? o.previousElementSibling : o.nextElementSibling;
          if (sib && sib.getAttribute("aria-selected") !== "true") target.insertBefore(o, dir === "up" ? sib : sib.nextElementSibling);
        });
      }
      return;
    }
    const logic = ev.target.closest("[data-logic-toggle]");
    if (logic) {
      const field = $("[data-logic-field]", logic.closest("form"));
      field.hidden = false; logic.hidden = true;
      $("input", field).focus();
      return;
    }
    const clear = ev.target.closest("[data-remove-all-filters]");
    if (clear) {
      const form = clear.closest("form");
      $("[data-filter-rows]", form).innerHTML = "";
      const lf = $("#filter-logic", form); if (lf) lf.value = "";
    }
  });
  document.addEventListener("change", (ev) => {
    const folder = ev.target.closest("[data-folder-select]");
    if (folder) {
      const box = $("[data-new-folder]", folder.closest("form"));
      box.hidden = folder.value !== "__new__";
      if (!box.hidden) $("input", box).focus();
    }
  });
  document.addEventListener("submit", (ev) => {
    const form = ev.target.closest("[data-dual-listbox]");
    if (!form) return;
    const box = $("[data-dual-inputs]", form);
    box.innerHTML = "";
    $$("[data-dual-target] [role=option]", form).forEach((o) => {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = "col"; input.value = o.dataset.key;
      box.appendChild(input);
    });
  }, true);
})();
