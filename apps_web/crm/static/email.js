// The record page's Email composer: Cc and Bcc shown on demand (the recipient wells are the UI
// kit's), the formatting toolbar, templates inserted with their merge fields already filled in, and
// the timeline's Expand All. No timers: every change follows a user action.
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

  // ---- recipients: the UI kit's recipient wells (ui.js) give To, Cc and Bcc their type-ahead; Cc and
  // Bcc show on demand ---------------------------------------------------------------------------------
  $$("[data-show-field]", form).forEach((btn) => {
    btn.addEventListener("click", () => {
      const row = $(`[data-recipient-well][data-field="${btn.dataset.showField}"]`, form);
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
