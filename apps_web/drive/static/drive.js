// The drive's behaviours: the item dialogs (rename, move, copy, delete, share) filled from the row's
// menu, the upload input submitting on choice, and the share dialog's people picker.
(function () {
  "use strict";
  const $ = (s, r = document) => r.querySelector(s);
  const $$ = (s, r = document) => Array.from(r.querySelectorAll(s));

  document.addEventListener("click", (ev) => {
    // A chosen menu item closes its menu (a download link leaves the page where it is).
    if (ev.target.closest("a[role=menuitem][download]") && window.SandboxUI) window.SandboxUI.closeMenus();
    const btn = ev.target.closest("[data-act]");
    if (!btn) return;
    ev.preventDefault();
    const dlg = document.getElementById("dlg-" + btn.dataset.act);
    if (!dlg) return;
    const form = $("form", dlg);
    form.action = form.dataset.action.replace("{id}", btn.dataset.id);
    $$("[data-name]", dlg).forEach((el) => { el.textContent = btn.dataset.name; });
    const title = $(".modal-header h2", dlg);
    if (title && (btn.dataset.act === "move" || btn.dataset.act === "copy")) title.textContent = `${btn.dataset.act === "move" ? "Move" : "Copy"} “${btn.dataset.name}” to`;
    const name = $("input[name=name]", dlg);
    if (name) name.value = btn.dataset.name;
    $$(".pills", dlg).forEach((p) => { p.innerHTML = ""; });
    if (window.SandboxUI) window.SandboxUI.closeMenus();
    dlg.showModal();
    const first = $("[autofocus]", dlg) || $("input[type=search], select, input:not([type=hidden])", dlg);
    if (first) { first.focus(); if (first.select) first.select(); }
  });

  document.addEventListener("change", (ev) => {
    const input = ev.target.closest("input[data-autosubmit]");
    if (input && input.files && input.files.length) input.form.submit();
  });

  // The share dialog: type a name or a group, pick it; each pick becomes a pill with a hidden input.
  $$(".people-picker").forEach((box) => {
    const input = $("input[role=combobox]", box);
    const list = $(".listbox", box);
    const pills = $(".pills", box);
    let seq = 0;
    function add(id, label) {
      const [kind, value] = id.split(/:(.*)/s);
      if ($(`input[value="${CSS.escape(value)}"][name="${kind === "g" ? "group" : "user_id"}"]`, pills)) return;
      const pill = document.createElement("span");
      pill.className = "pill";
      pill.innerHTML = `<input type="hidden" name="${kind === "g" ? "group" : "user_id"}"><span></span><button type="button" class="btn icon-only small" aria-label="Remove ${label.replace(/"/g, "")}">×</button>`;
      $("input", pill).value = value;
      $("span", pill).textContent = label;
      $("button", pill).addEventListener("click", () => pill.remove());
      pills.appendChild(pill);
    }
    async function search() {
      const my = ++seq;
      const url = new URL(box.dataset.peopleUrl, location.href);
      url.searchParams.set("q", input.value);
      const res = await fetch(url, { headers: { Accept: "application/json" } });
      if (my !== seq || !res.ok) return;
      const items = await res.json();
      if (my !== seq) return;  // a name was picked while the answer was read: the list stays closed
      list.innerHTML = "";
      items.forEach((it, k) => {
        const li = document.createElement("li");
        li.className = "option"; li.setAttribute("role", "option"); li.id = `share-opt-${k}`;
        li.textContent = it.label;
        const small = document.createElement("small"); small.textContent = it.sublabel; li.appendChild(small);
        li.addEventListener("mousedown", (e) => { e.preventDefault(); add(it.id, it.label); input.value = ""; list.hidden = true; input.setAttribute("aria-expanded", "false"); });
        list.appendChild(li);
      });
      if (!items.length) { const li = document.createElement("li"); li.className = "option"; li.setAttribute("aria-disabled", "true"); li.textContent = `No results for "${input.value}"`; list.appendChild(li); }
      list.hidden = false; input.setAttribute("aria-expanded", "true");
      box.dataset.loaded = String(my);
    }
    input.addEventListener("input", search);
    input.addEventListener("blur", () => { seq++; list.hidden = true; input.setAttribute("aria-expanded", "false"); });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") { ev.preventDefault(); const first = $(".option:not([aria-disabled])", list); if (first && !list.hidden) first.dispatchEvent(new MouseEvent("mousedown")); }
    });
  });
})();
