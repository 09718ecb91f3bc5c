// Chat behaviours: Enter sends (Shift+Enter is a new line), @mention type-ahead over the
// conversation's members, threads that open on Reply, inline edit, the new chat's people picker,
// and the conversation scrolled to the newest message (or to the linked one).
(() => {
  const $ = (s, r = document) => r.querySelector(s);
  const $$ = (s, r = document) => Array.from(r.querySelectorAll(s));

  async function people(q, conversation) {
    const url = new URL("/api/people", location.href);
    url.searchParams.set("q", q);
    if (conversation) url.searchParams.set("conversation", conversation);
    const res = await fetch(url, { headers: { Accept: "application/json" } });
    return res.ok ? res.json() : [];
  }

  // A listbox of people under/over an input; returns helpers to fill it and move in it.
  function listbox(list, onChoose) {
    let items = [], active = -1;
    const opts = () => $$(".option", list);
    function highlight(i) {
      const o = opts();
      active = Math.max(-1, Math.min(i, o.length - 1));
      o.forEach((el, k) => el.setAttribute("aria-selected", String(k === active)));
    }
    return {
      get open() { return !list.hidden && items.length > 0; },
      fill(rows) {
        items = rows; list.innerHTML = "";
        rows.forEach((p, k) => {
          const li = document.createElement("li");
          li.className = "option"; li.setAttribute("role", "option"); li.id = `${list.id || "pl"}-${k}`;
          li.setAttribute("aria-selected", "false");
          li.textContent = p.name;
          const s = document.createElement("small"); s.textContent = [p.sublabel, p.presence].filter(Boolean).join(" \u00b7 "); li.appendChild(s);
          li.setAttribute("aria-label", p.name);
          li.addEventListener("mousedown", (e) => { e.preventDefault(); onChoose(p); });
          list.appendChild(li);
        });
        list.hidden = rows.length === 0; active = rows.length ? 0 : -1; highlight(active);
      },
      close() { list.hidden = true; items = []; },
      key(ev) {
        if (list.hidden || !items.length) return false;
        if (ev.key === "ArrowDown") { highlight(active + 1); return true; }
        if (ev.key === "ArrowUp") { highlight(active - 1); return true; }
        if ((ev.key === "Enter" || ev.key === "Tab") && active >= 0) { onChoose(items[active]); return true; }
        if (ev.key === "Escape") { list.hidden = true; return true; }
        return false;
      },
    };
  }

  // ---- compose boxes: Enter sends, @mentions --------------------------------------------------------
  function setupComposer(form) {
    const ta = $("textarea[data-enter-sends]", form);
    if (!ta) return;
    const hidden = $("input[name=mentions]", form);
    const list = $(".mention-list", form);
    let seq = 0, at = -1;
    const box = list && ta.hasAttribute("data-mentions") ? listbox(list, (p) => {
      const before = ta.value.slice(0, at), after = ta.value.slice(ta.selectionStart);
      const insert = `@${p.name} `;
      ta.value = before + insert + after;
      const caret = before.length + insert.length;
      ta.setSelectionRange(caret, caret);
      const ids = hidden.value.split(",").filter(Boolean);
      if (!ids.includes(String(p.id))) ids.push(String(p.id));
      hidden.value = ids.join(",");
      box.close(); at = -1; ta.focus();
    }) : null;
    async function lookup() {
      if (!box) return;
      const upto = ta.value.slice(0, ta.selectionStart);
      const m = upto.match(/(^|\s)@([^\s@]{0,20}(?: [^\s@]{0,20})?)$/);
      if (!m) { box.close(); at = -1; return; }
      at = upto.length - m[2].length - 1;
      const my = ++seq;
      const rows = await people(m[2], form.dataset.conversation);
      if (my === seq) { box.fill(rows); form.dataset.suggested = String(my); }
    }
    ta.addEventListener("input", lookup);
    ta.addEventListener("blur", () => { if (box) setTimeout(() => box.close(), 0); });
    ta.addEventListener("keydown", (ev) => {
      if (box && box.key(ev)) { ev.preventDefault(); return; }
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        if (!form.dataset.sending) { form.dataset.sending = "1"; form.requestSubmit(); }
      } else if (ev.key === "Escape" && form.classList.contains("edit-form")) {
        closeEdit(form);
      }
    });
    form.addEventListener("submit", () => { form.dataset.sending = "1"; });
  }

  // ---- threads: Reply opens the thread and its reply box; "N replies" toggles it ----------------------
  document.addEventListener("click", (ev) => {
    const nav = ev.target.closest("[data-href]");
    if (nav) { location.href = nav.dataset.href; return; }
    const reply = ev.target.closest("[data-reply]");
    if (reply) {
      const thread = document.getElementById(reply.getAttribute("aria-controls"));
      thread.hidden = false;
      const toggle = thread.parentElement.querySelector(".replies-toggle");
      if (toggle) toggle.setAttribute("aria-expanded", "true");
      $("textarea", thread).focus();
      return;
    }
    const edit = ev.target.closest("[data-edit]");
    if (edit) {
      const card = edit.closest(".msg-card");
      if (!$(".edit-form", card)) card.appendChild(editForm(edit));
      $(".edit-form", card).hidden = false;
      $("[data-text]", card).hidden = true;
      const ta = $(".edit-form textarea", card);
      ta.focus(); ta.setSelectionRange(ta.value.length, ta.value.length);
      return;
    }
    const cancel = ev.target.closest("[data-edit-cancel]");
    if (cancel) closeEdit(cancel.closest(".edit-form"));
  });

  // The page has one edit form (a <template>): a copy is filled with the message's text, its
  // mentions and subject (carried by its Edit button) and put in the message when Edit is pressed.
  function editForm(btn) {
    const form = $("#edit-form").content.firstElementChild.cloneNode(true);
    form.action = `/messages/${btn.dataset.edit}/edit`;
    $("textarea", form).value = btn.dataset.editText || "";
    $("input[name=mentions]", form).value = btn.dataset.editMentions || "";
    if (btn.hasAttribute("data-edit-subject")) {
      const subject = document.createElement("input");
      subject.type = "hidden"; subject.name = "subject"; subject.value = btn.dataset.editSubject;
      form.prepend(subject);
    }
    setupComposer(form);
    return form;
  }

  // The page has one React menu: pressing a message's React button moves it into that message
  // (before the UI kit's menu toggle runs) and points it at the message.
  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest && ev.target.closest("[data-react-to] > [data-menu]");
    const menu = $("#react-menu");
    if (!btn || !menu) return;
    const wrap = btn.parentElement;
    if (menu.parentElement !== wrap) {
      menu.hidden = true;
      $$("[data-react-to] > [data-menu][aria-expanded='true']").forEach((b) => b.setAttribute("aria-expanded", "false"));
      wrap.appendChild(menu);
    }
    menu.action = `/messages/${wrap.dataset.reactTo}/react`;
  }, true);

  function closeEdit(form) {
    form.hidden = true;
    $("[data-text]", form.closest(".msg-card")).hidden = false;
  }

  // ---- new chat: the To field picks people from the directory ----------------------------------------
  function setupPicker(picker) {
    const input = $("input[role=combobox]", picker);
    const hidden = $("input[name=people]", picker);
    const pills = $(".pills", picker);
    const list = $(".listbox", picker);
    let seq = 0;
    const ids = () => hidden.value.split(",").filter(Boolean);
    const box = listbox(list, (p) => {
      if (!ids().includes(String(p.id))) {
        hidden.value = [...ids(), String(p.id)].join(",");
        const pill = document.createElement("span");
        pill.className = "pill"; pill.dataset.id = p.id; pill.textContent = p.name + " ";
        const x = document.createElement("button");
        x.type = "button"; x.className = "pill-x"; x.setAttribute("aria-label", `Remove ${p.name}`); x.textContent = "\u00d7";
        pill.appendChild(x); pills.appendChild(pill);
      }
      input.value = ""; box.close(); input.setAttribute("aria-expanded", "false"); input.focus();
    });
    input.addEventListener("input", async () => {
      const my = ++seq;
      if (!input.value.trim()) { box.close(); return; }
      const rows = (await people(input.value)).filter((p) => !ids().includes(String(p.id)) && String(p.id) !== document.body.dataset.me);
      if (my === seq) { box.fill(rows); input.setAttribute("aria-expanded", String(rows.length > 0)); picker.dataset.suggested = String(my); }
    });
    input.addEventListener("keydown", (ev) => {
      if (box.key(ev)) { ev.preventDefault(); return; }
      if (ev.key === "Enter") ev.preventDefault();  // Enter in To never sends
      if (ev.key === "Backspace" && !input.value && ids().length) {
        hidden.value = ids().slice(0, -1).join(","); pills.lastElementChild.remove();
      }
    });
    input.addEventListener("blur", () => setTimeout(() => box.close(), 0));
    pills.addEventListener("click", (ev) => {
      const x = ev.target.closest(".pill-x");
      if (!x) return;
      const pill = x.closest(".pill");
      hidden.value = ids().filter((i) => i !== pill.dataset.id).join(",");
      pill.remove(); input.focus();
    });
  }

  $$("form[data-composer]").forEach(setupComposer);
  $$("[data-people-picker]").forEach(setupPicker);

  // ---- scroll: to the linked message, else to the newest -------------------------------------------
  const scroller = $("[data-scroll-bottom]");
  if (scroller) {
    const target = location.hash && document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView({ block: "center" });
    else scroller.scrollTop = scroller.scrollHeight;
    // Reply on a closed thread opens it (a new page): its reply box takes the focus.
    if (location.hash.startsWith("#post-") && target) { const box = $(".thread textarea", target); if (box) box.focus(); }
  }
  const failed = $(".composer .form-errors");
  if (failed) $("textarea", failed.closest("form")).focus();
})();
