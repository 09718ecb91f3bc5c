// Record page behaviours: the path, tasks completed from the timeline, the Convert Lead dialog.
// No timers: every change follows a user action.
(function () {
  "use strict";
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  // ---- path: selecting a step changes what the path's button does -----------------------------
  document.addEventListener("click", (ev) => {
    const step = ev.target.closest("[data-path] [data-step]");
    if (!step) return;
    const path = step.closest("[data-path]");
    $$("[data-step]", path).forEach((s) => {
      const on = s === step;
      s.setAttribute("aria-pressed", String(on));
      s.closest("li").classList.toggle("selected", on);
    });
    const btn = $("[data-path-action]", path);
    if (!btn) return;
    const label = step.dataset.actionLabel, dialog = step.dataset.actionDialog;
    $("span", btn).textContent = label;
    btn.hidden = !label;
    $("input[name=value]", path).value = step.dataset.actionValue || "";
    if (dialog) { btn.dataset.dialogOpen = dialog; btn.type = "button"; }
    else { delete btn.dataset.dialogOpen; btn.type = "submit"; }
  });

  // ---- double-clicking a field's value edits it in place, like its pencil --------------------------
  document.addEventListener("dblclick", (ev) => {
    const value = ev.target.closest(".detail .detail-value");
    const btn = value && value.closest(".detail").querySelector(".edit-btn");
    if (btn && !btn.hidden) btn.click();
  });

  // Cancel restores a lookup editor too: form.reset() leaves hidden inputs and the pill as chosen.
  const lookupState = new Map();
  $$(".detail form [data-lookup-url]").forEach((box) => {
    const pill = $(".selected-pill", box);
    lookupState.set(box, { value: $("input[type=hidden]", box).value, label: $(".pill-label", pill).textContent, chosen: !pill.hidden });
  });
  document.addEventListener("click", (ev) => {
    const cancel = ev.target.closest(".detail [data-inline-cancel]");
    if (!cancel) return;
    $$("[data-lookup-url]", cancel.closest("form")).forEach((box) => {
      const st = lookupState.get(box);
      if (!st) return;
      const pill = $(".selected-pill", box);
      $("input[type=hidden]", box).value = st.value;
      $(".pill-label", pill).textContent = st.label;
      pill.hidden = !st.chosen;
      $("input[role=combobox]", box).hidden = st.chosen;
    });
  });

  // Escape in an inline editor cancels it (a lookup's open list closes first).
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape") return;
    const form = ev.target.closest && ev.target.closest(".detail form");
    const list = form && form.querySelector(".listbox:not([hidden])");
    if (form && !list) { const cancel = form.querySelector("[data-inline-cancel]"); if (cancel) { cancel.click(); form.closest(".detail").querySelector(".edit-btn").focus(); } }
  });

  // ---- a checkbox that submits its form (complete a task from the timeline) ------------------------
  document.addEventListener("change", (ev) => {
    const box = ev.target.closest("input[data-autosubmit]");
    if (box && box.form) box.form.requestSubmit();
  });

  // ---- Convert Lead: working in a column chooses it; the contact search follows the account ---------
  function convertForm(el) { return el.closest && el.closest("form[data-convert]"); }
  function chooseColumn(col) {
    const radio = $("input[type=radio][name$='_mode']", col);
    if (radio && !radio.checked) radio.checked = true;
  }
  function setContactAccount(form, accountId) {
    const box = $("#cv-contact-box", form);
    if (box) box.dataset.lookupUrl = form.dataset.contactsUrl + (accountId ? "?account_id=" + encodeURIComponent(accountId) : "");
  }
  document.addEventListener("focusin", (ev) => {
    const form = convertForm(ev.target);
    if (!form || ev.target.matches("input[type=radio][name$='_mode']")) return;
    const col = ev.target.closest("[data-convert-col]");
    if (col) chooseColumn(col);
  });
  document.addEventListener("change", (ev) => {
    const form = convertForm(ev.target);
    if (!form) return;
    const t = ev.target;
    const col = t.closest("[data-convert-col]");
    if (col && !t.matches("input[type=radio][name$='_mode']")) chooseColumn(col);
    if (t.matches("[data-account-match]")) {  // a suggested account replaces a searched one
      const box = $("#cv-account-box", form);
      const clear = box && $(".selected-pill .clear", box);
      if (clear && !$(".selected-pill", box).hidden) { $("input[type=hidden]", box).value = ""; $(".selected-pill", box).hidden = true; $("input[role=combobox]", box).hidden = false; }
      setContactAccount(form, t.value);
    } else if (t.matches("#cv-account-box input[type=hidden]")) {  // a searched account replaces a suggestion
      $$("[data-account-match]", form).forEach((r) => { r.checked = false; });
      setContactAccount(form, t.value);
    } else if (t.matches("[data-contact-match]")) {
      const box = $("#cv-contact-box", form);
      if (box && !$(".selected-pill", box).hidden) { $("input[type=hidden]", box).value = ""; $(".selected-pill", box).hidden = true; $("input[role=combobox]", box).hidden = false; }
    } else if (t.matches("#cv-contact-box input[type=hidden]")) {
      $$("[data-contact-match]", form).forEach((r) => { r.checked = false; });
    } else if (t.matches("[data-no-opportunity]")) {
      const name = $("#cv-opportunity-name", form);
      if (name) name.disabled = t.checked;
    }
  });
  $$("[data-no-opportunity]").forEach((box) => {
    const name = $("#cv-opportunity-name", box.form);
    if (name) name.disabled = box.checked;
  });
})();
