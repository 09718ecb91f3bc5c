// Inline edit in a CRM list view, as in Lightning: the pencil of a cell (or a double-click on it) turns
// the cell into an input, picklist or date field; a changed cell turns yellow and the footer bar counts
// the edited items, with Cancel and Save. Save posts the changed cells (e.<record id>.<field>) with the
// page's inline-form; the server saves every record that passes its checks and shows the others again
// with their edits and a red error icon on the row. Enter ends a cell's edit, Escape undoes it.
(function () {
  "use strict";
  const form = document.getElementById("inline-form");
  const metaEl = document.getElementById("inline-fields");
  if (!form || !metaEl) return;
  const meta = JSON.parse(metaEl.textContent);
  const count = form.querySelector("[data-inline-count]");
  const table = document.querySelector("table.list-table");
  const pencils = new WeakMap(); // cell -> its pencil, while the cell is edited

  function editorFor(cell) {
    const f = meta[cell.dataset.field];
    const row = cell.closest("tr");
    const label = `${f.label}: ${row.dataset.name}`;
    let el;
    if (f.editor === "picklist") {
      el = document.createElement("select");
      const values = f.options.slice();
      if (!f.required) values.unshift("");
      const current = cell.dataset.value;
      if (current && !values.includes(current)) values.unshift(current); // a value no longer offered
      values.forEach((v) => {
        const o = document.createElement("option");
        o.value = v; o.textContent = v || "--None--";
        el.appendChild(o);
      });
    } else {
      el = document.createElement("input");
      el.type = f.editor === "date" ? "date" : "text";
      if (f.editor === "number") el.inputMode = "decimal";
      el.autocomplete = "off";
    }
    el.className = "cell-input";
    el.setAttribute("form", "inline-form");
    el.name = `e.${row.dataset.id}.${cell.dataset.field}`;
    el.setAttribute("aria-label", label);
    if (f.required) el.setAttribute("aria-required", "true");
    if (cell.classList.contains("cell-error")) el.setAttribute("aria-invalid", "true");
    return el;
  }

  function open(cell, value) {
    let input = cell.querySelector(".cell-input");
    if (!input) {
      input = editorFor(cell);
      input.value = value !== undefined ? value : cell.dataset.value;
      cell.querySelector(".cell-text").hidden = true;
      // The pencil leaves the cell while it is edited (a hidden one would still answer to its name).
      pencils.set(cell, cell.querySelector(".cell-edit"));
      cell.querySelector(".cell-edit").remove();
      cell.appendChild(input);
    }
    return input;
  }

  function close(cell) {
    const input = cell.querySelector(".cell-input");
    if (input) input.remove();
    cell.querySelector(".cell-text").hidden = false;
    if (pencils.has(cell)) { cell.appendChild(pencils.get(cell)); pencils.delete(cell); }
    cell.classList.remove("edited");
  }

  function changed(cell) {
    const input = cell.querySelector(".cell-input");
    return !!input && input.value !== cell.dataset.value;
  }

  function refresh() {
    const cells = Array.from(table.querySelectorAll("td.editable, th.editable"));
    let n = 0;
    cells.forEach((cell) => {
      const edited = changed(cell) || cell.hasAttribute("data-pending");
      cell.classList.toggle("edited", edited);
      if (edited) n += 1;
    });
    const errors = form.querySelector(".inline-edit-errors");
    count.textContent = `${n} item${n === 1 ? "" : "s"} edited`;
    form.hidden = n === 0 && !errors;
  }

  // The cell is left: an unchanged editor goes back to the value's text; a changed one stays (yellow).
  function settle(cell) {
    if (!changed(cell) && !cell.hasAttribute("data-pending")) close(cell);
    refresh();
  }

  function start(cell) {
    const input = open(cell);
    input.focus();
    if (input.select && input.type === "text") input.select();
    refresh();
  }

  table.addEventListener("click", (ev) => {
    const pencil = ev.target.closest(".cell-edit");
    if (pencil) { ev.preventDefault(); start(pencil.closest(".editable")); }
  });
  table.addEventListener("dblclick", (ev) => {
    const cell = ev.target.closest(".editable");
    if (cell && !ev.target.closest(".cell-input")) { ev.preventDefault(); start(cell); }
  });
  table.addEventListener("input", (ev) => { if (ev.target.closest(".cell-input")) refresh(); });
  table.addEventListener("change", (ev) => { if (ev.target.closest(".cell-input")) refresh(); });
  table.addEventListener("focusout", (ev) => {
    const input = ev.target.closest(".cell-input");
    if (!input) return;
    const cell = input.closest(".editable");
    if (cell.contains(ev.relatedTarget)) return;
    settle(cell);
  });
  table.addEventListener("keydown", (ev) => {
    const input = ev.target.closest(".cell-input");
    if (!input) return;
    const cell = input.closest(".editable");
    if (ev.key === "Enter") {
      ev.preventDefault(); // ends the cell's edit; only the bar's Save saves
      if (changed(cell) || cell.hasAttribute("data-pending")) { refresh(); form.querySelector("[data-inline-save]").focus(); }
      else { close(cell); refresh(); cell.querySelector(".cell-edit").focus(); }
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      ev.stopPropagation();
      cell.removeAttribute("data-pending");
      close(cell);
      refresh();
      cell.querySelector(".cell-edit").focus();
    }
  });

  form.querySelector("[data-inline-cancel]").addEventListener("click", () => {
    if (form.querySelector(".inline-edit-errors")) {  // after a refused save: back to the list as saved
      window.location.assign(form.querySelector("input[name=return_to]").value);
      return;
    }
    table.querySelectorAll(".editable").forEach((cell) => { cell.removeAttribute("data-pending"); close(cell); });
    refresh();
  });
  form.addEventListener("submit", () => {
    // Only changed cells post (an editor left at its value is not an edit); refused rows post again.
    table.querySelectorAll(".cell-input").forEach((input) => {
      const cell = input.closest(".editable");
      if (!changed(cell) && !cell.hasAttribute("data-pending")) input.removeAttribute("name");
    });
  });

  // A refused save: the rows' edits are back in their cells.
  table.querySelectorAll(".editable[data-pending]").forEach((cell) => open(cell, cell.dataset.pending));
  refresh();
})();
