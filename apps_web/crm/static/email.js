// The record page's Email composer: recipient type-ahead (contacts, leads, users), Cc and Bcc shown
// on demand, the formatting toolbar, templates inserted with their merge fields already filled in,
// and the timeline's Expand All. No timers: every change follows a user action.
(function () {
  "use strict";
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  // ---- the timeline: Expand All / Collapse All -------------------------------------------------------
  $$("[data-expand-all]").forEach((btn) => {
    btn.addEventListener("click", () => {
      const open = btn.getAttribute("aria-pressed") !== "true";
      $$(".timeline details.tl-expand").forEach((d) => { d.open = open; });
      btn.setAttribute("aria-pressed", String(open));
      btn.textContent = open ? "Collapse All" : "Expand All";
    });
  });

  const form = $("form[data-email-form]");
  if (!form) return;

  // ---- recipients: type-ahead on the last address of To, Cc, Bcc -------------------------------------
  function setupRecipients(box) {
    const input = $("input[role=combobox]", box);
    const list = $(".listbox", box);
    let seq = 0, active = -1;
    const options = () => $$(".option[data-address]", list);
    const lastToken = () => input.value.split(/[;,]/).pop().trim();
    function close() { list.hidden = true; input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant"); }
    function choose(opt) {
      seq++;
      const parts = input.value.split(/[;,]/).map((s) => s.trim()).filter(Boolean);
      parts.pop();
      parts.push(opt.dataset.label);
      input.value = parts.join("; ") + "; ";
      close();
      input.focus();
    }
    function highlight(i) {
      const opts = options();
      active = Math.max(-1, Math.min(i, opts.length - 1));
      opts.forEach((o, k) => o.setAttribute("aria-selected", String(k === active)));
      if (active >= 0) input.setAttribute("aria-activedescendant", opts[active].id); else input.removeAttribute("aria-activedescendant");
    }
    async function search() {
      const q = lastToken();
      const my = ++seq;
      if (q.length < 2) { close(); return; }
      const res = await fetch("/emails/people?q=" + encodeURIComponent(q), { headers: { Accept: "application/json" } });
      if (my !== seq || !res.ok) return;
      const items = await res.json();
      list.innerHTML = "";
      items.forEach((it, k) => {
        const li = document.createElement("li");
        li.className = "option"; li.setAttribute("role", "option"); li.id = `${list.id}-${k}`;
        li.dataset.address = it.address; li.dataset.label = it.label;
        li.textContent = it.label;
        if (it.sublabel) { const s = document.createElement("small"); s.textContent = it.sublabel; li.appendChild(s); }
        li.addEventListener("mousedown", (e) => { e.preventDefault(); choose(li); });
        list.appendChild(li);
      });
      if (!items.length) {
        const li = document.createElement("li"); li.className = "option"; li.setAttribute("aria-disabled", "true");
        li.textContent = `No results for "${q}"`; list.appendChild(li);
      }
      list.hidden = false; input.setAttribute("aria-expanded", "true"); active = -1;
    }
    // Typing always continues after the addresses already there.
    const toEnd = () => { const n = input.value.length; input.setSelectionRange(n, n); };
    input.addEventListener("click", () => { if (input.selectionStart === input.selectionEnd) toEnd(); });
    input.addEventListener("input", search);
    input.addEventListener("blur", () => { seq++; close(); });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowDown") { highlight(active + 1); ev.preventDefault(); }
      else if (ev.key === "ArrowUp") { highlight(active - 1); ev.preventDefault(); }
      else if (ev.key === "Enter" && !list.hidden && active >= 0) { choose(options()[active]); ev.preventDefault(); }
      else if (ev.key === "Enter") { ev.preventDefault(); }  // Enter in a recipient field never sends
      else if (ev.key === "Escape") { close(); }
    });
  }
  $$("[data-email-recipients]", form).forEach(setupRecipients);

  $$("[data-show-field]", form).forEach((btn) => {
    btn.addEventListener("click", () => {
      const row = $(`[data-email-recipients][data-field="${btn.dataset.showField}"]`, form);
      row.hidden = false;
      btn.hidden = true;
      $("input", row).focus();
    });
  });

  // ---- the editor ---------------------------------------------------------------------------------------
  const editor = $("[data-email-editor]", form);
  $$(".editor-toolbar [data-cmd]", form).forEach((btn) => {
    btn.addEventListener("mousedown", (e) => e.preventDefault());  // keep the editor's selection
    btn.addEventListener("click", () => { editor.focus(); document.execCommand(btn.dataset.cmd, false, null); });
  });

  // ---- templates: merged on the server for the record and the first To recipient; the merged subject
  // and body replace what is there (the form is busy until they arrive) --------------------------------
  const pick = $("[data-email-template]", form);
  let picked = 0;
  pick.addEventListener("change", async () => {
    if (!pick.value) return;
    const my = ++picked;
    form.setAttribute("aria-busy", "true");
    const q = new URLSearchParams({ related_type: form.elements.related_type.value, related_id: form.elements.related_id.value, to: form.elements.to.value });
    try {
      const res = await fetch(`/emails/templates/${pick.value}?${q}`, { headers: { Accept: "application/json" } });
      if (my !== picked || !res.ok) return;
      const t = await res.json();
      form.elements.subject.value = t.subject;
      editor.innerHTML = t.body;
    } finally {
      if (my === picked) form.setAttribute("aria-busy", "false");
    }
  });

  form.addEventListener("submit", () => { form.elements.body.value = editor.innerHTML; });
})();
