// Mail behaviours: message rows open on click, the rich-text editor's commands, and drafts saved
// on change (never on a timer) before leaving. Recipient wells are the UI kit's (ui.js).
(function () {
  "use strict";
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  // ---- message list: a click anywhere on a row opens it ----------------------------------------------
  document.addEventListener("click", (ev) => {
    const row = ev.target.closest(".msg-row[data-href]");
    if (!row || ev.target.closest("input, a, button, label")) return;
    const link = $("a.msg-subject", row);
    if (link) link.click();
  });

  // Recipient wells (To, Cc, Bcc, attendees) are the UI kit's: ui.js gives them their type-ahead.

  // Calendar: the day and week grids open at 8 AM, as Outlook's do.
  $$("[data-scroll-hour]").forEach((el) => { el.scrollTop = Number(el.dataset.scrollHour); });

  // New event: Outlook's button reads Send once there is someone to invite, Save otherwise.
  const eventForm = $("form[data-event-form]");
  if (eventForm) {
    const label = () => {
      const invited = ["required", "optional"].some((n) => eventForm.elements[n].value.trim());
      $("[data-event-submit]", eventForm).textContent = invited ? "Send" : "Save";
    };
    eventForm.addEventListener("input", label);
    eventForm.addEventListener("recipients-change", label);
  }

  // Settings forms with a rich-text editor (signatures): the editor's HTML goes in the hidden body.
  $$("form[data-rich]").forEach((f) => f.addEventListener("submit", () => { f.elements.body.value = $("[data-editor]", f).innerHTML; }));

  const form = $("form[data-compose]");
  if (!form) return;

  // A recipient typed or picked in a well makes the draft dirty (it is saved when the field changes).
  form.addEventListener("input", (ev) => { if (ev.target.closest("[data-recipient-well]")) markDirty(); });
  form.addEventListener("recipients-change", () => markDirty());

  // ---- the editor -----------------------------------------------------------------------------------------
  const editor = $("[data-editor]", form);
  const linkDialog = $("#link-dialog");
  let savedRange = null;
  $$(".editor-toolbar [data-cmd]", form).forEach((btn) => {
    btn.addEventListener("mousedown", (e) => e.preventDefault());  // keep the editor's selection
    btn.addEventListener("click", () => {
      const cmd = btn.dataset.cmd;
      if (cmd === "createLink") {
        const sel = window.getSelection();
        savedRange = sel.rangeCount && editor.contains(sel.anchorNode) ? sel.getRangeAt(0).cloneRange() : null;
        $("input", linkDialog).value = "https://";
        linkDialog.showModal();
        $("input", linkDialog).focus();
        return;
      }
      editor.focus();
      document.execCommand(cmd, false, null);
      markDirty();
    });
  });
  if (linkDialog) {
    $("[data-insert-link]", linkDialog).addEventListener("click", () => {
      const url = $("input", linkDialog).value.trim();
      linkDialog.close();
      editor.focus();
      const sel = window.getSelection();
      if (savedRange) { sel.removeAllRanges(); sel.addRange(savedRange); }
      if (!/^(https?:|mailto:)/i.test(url)) return;
      if (sel.isCollapsed) document.execCommand("insertHTML", false, `<a href="${url.replace(/"/g, "&quot;")}">${url.replace(/</g, "&lt;")}</a>`);
      else document.execCommand("createLink", false, url);
      markDirty();
    });
  }
  editor.addEventListener("input", markDirty);

  // ---- drafts: saved when a field changes, before leaving the page, and before sending ---------------------
  let dirty = false, pending = null;
  const state = $("[data-save-state]", form);
  function markDirty() { dirty = true; if (state) state.textContent = ""; }
  function syncBody() { form.elements.body.value = editor.innerHTML; }
  function save() {
    if (!dirty) return pending || Promise.resolve();
    dirty = false;
    syncBody();
    const data = new FormData(form);
    data.delete("upload");  // a file is sent only by Attach
    const prev = pending || Promise.resolve();
    pending = prev.then(() => {
      data.set("draft_id", form.elements.draft_id.value);
      return fetch("/mail/compose/save", { method: "POST", body: data, headers: { Accept: "application/json" }, keepalive: true });
    }).then(async (res) => {
      if (!res.ok) return;
      const out = await res.json();
      form.elements.draft_id.value = out.draft_id;
      if (state) state.textContent = "Draft saved";
    });
    return pending;
  }
  form.addEventListener("change", (ev) => { if (ev.target.matches("input[type=text], select")) { markDirty(); save(); } });

  // From: "Other email address" shows a box to type the address in.
  const from = $("[data-from]", form), fromOther = $("[data-from-other]", form);
  if (from && fromOther) from.addEventListener("change", () => { fromOther.hidden = from.value !== "other"; if (!fromOther.hidden) fromOther.focus(); });

  // Attach file: the chosen file uploads at once (the draft is saved with it).
  const upload = $("[data-upload]", form);
  if (upload) upload.addEventListener("change", () => { if (upload.files.length) form.requestSubmit($("[data-attach]", form)); });

  // Signature menu: inserts the chosen signature where the cursor is (else at the end).
  $$("[data-signature]", form).forEach((item) => {
    item.addEventListener("mousedown", (e) => e.preventDefault());
    item.addEventListener("click", () => {
      const html = '<div class="signature">' + document.getElementById(item.dataset.signature).innerHTML + "</div>";
      const sel = window.getSelection();
      if (!(sel.rangeCount && editor.contains(sel.anchorNode))) {
        editor.focus();
        const r = document.createRange(); r.selectNodeContents(editor); r.collapse(false); sel.removeAllRanges(); sel.addRange(r);
      }
      document.execCommand("insertHTML", false, html);
      item.closest(".menu").hidden = true;
      markDirty(); save();
    });
  });
  editor.addEventListener("blur", () => { if (dirty) save(); });

  document.addEventListener("click", (ev) => {
    const link = ev.target.closest("a[href]");
    if (!link || !dirty && !pending || link.target || ev.defaultPrevented) return;
    ev.preventDefault();
    save().finally(() => { location.href = link.href; });
  }, true);

  $$("[data-remove-attachment]", form).forEach((b) => b.addEventListener("click", () => { b.closest("li").remove(); markDirty(); save(); }));

  const dialog = $("#no-subject-dialog");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const button = ev.submitter;
    const sending = button && button.hasAttribute("data-send");
    if (sending && !form.elements.subject.value.trim() && form.elements.confirm_no_subject.value !== "1") {
      dialog.showModal();
      return;
    }
    finish(button);
  });
  function finish(button) {
    syncBody();
    (pending || Promise.resolve()).finally(() => {
      // A new task: a submission started inside the submit event's dispatch (where a resolved
      // promise's callback still runs) is silently dropped by the browser.
      setTimeout(() => {
        syncBody();
        if (button && button.hasAttribute("formaction")) form.action = button.formAction;
        form.submit();
      }, 0);
    });
  }
  if (dialog) $("[data-send-anyway]", dialog).addEventListener("click", () => {
    form.elements.confirm_no_subject.value = "1";
    dialog.close();
    finish($("[data-send]", form));
  });
})();
