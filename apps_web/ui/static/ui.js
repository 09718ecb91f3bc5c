// CUA Sandbox UI kit behaviours. No timers: every visible change follows a user action, so two
// runs of the same actions give the same screens.
(function () {
  "use strict";
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  // ---- menus: a button[data-menu] toggles the .menu that follows it -----------------------------
  // The menu is the .menu of the button's .menu-wrap (the button may sit in a heading inside it).
  const menuOf = (btn) => (btn.closest(".menu-wrap") || btn.parentElement).querySelector(".menu");
  function closeMenus(except) {
    $$("[data-menu][aria-expanded='true']").forEach((btn) => {
      if (btn === except) return;
      btn.setAttribute("aria-expanded", "false");
      const menu = menuOf(btn);
      if (menu) menu.hidden = true;
    });
  }
  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest("[data-menu]");
    if (btn) {
      ev.preventDefault();
      const menu = menuOf(btn);
      const open = btn.getAttribute("aria-expanded") !== "true";
      closeMenus(btn);
      btn.setAttribute("aria-expanded", String(open));
      if (menu) {
        menu.hidden = !open;
        if (open) { const first = menu.querySelector("a,button"); if (first && ev.detail === 0) first.focus(); }
      }
      return;
    }
    if (!ev.target.closest(".menu")) closeMenus();
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") closeMenus();
  });

  // ---- dialogs: [data-dialog-open=id] opens <dialog id=id>; [data-dialog-close] closes --------------
  document.addEventListener("click", (ev) => {
    const opener = ev.target.closest("[data-dialog-open]");
    if (opener) {
      const dlg = document.getElementById(opener.dataset.dialogOpen);
      if (dlg && !dlg.open) { ev.preventDefault(); closeMenus(); dlg.showModal(); focusFirst(dlg); }
      return;
    }
    const closer = ev.target.closest("[data-dialog-close]");
    if (closer) { const dlg = closer.closest("dialog"); if (dlg) { ev.preventDefault(); dlg.close(); } }
  });
  function focusFirst(dlg) {
    // An explicit autofocus wins, then the first field in error, then the first visible field.
    const typed = "input:not([type=hidden]):not([hidden]), select, textarea";
    const el = dlg.querySelector("[autofocus]") || dlg.querySelector(typed.split(", ").map((s) => ".has-error " + s).join(", ")) || dlg.querySelector(typed);
    if (el) el.focus();
  }

  // ---- tabs -------------------------------------------------------------------------------------
  function selectTab(tab) {
    const list = tab.closest("[role=tablist]");
    $$("[role=tab]", list).forEach((t) => {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      const panel = document.getElementById(t.getAttribute("aria-controls"));
      if (panel) panel.hidden = !on;
    });
    if (tab.dataset.tabParam) {
      const url = new URL(location.href);
      url.searchParams.set("tab", tab.dataset.tabParam);
      history.replaceState(null, "", url);
    }
  }
  document.addEventListener("click", (ev) => {
    const tab = ev.target.closest("[role=tab]");
    if (tab) { ev.preventDefault(); selectTab(tab); }
  });
  document.addEventListener("keydown", (ev) => {
    const tab = ev.target.closest && ev.target.closest("[role=tab]");
    if (!tab || !["ArrowLeft", "ArrowRight"].includes(ev.key)) return;
    const tabs = $$("[role=tab]", tab.closest("[role=tablist]"));
    const next = tabs[(tabs.indexOf(tab) + (ev.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    selectTab(next); next.focus(); ev.preventDefault();
  });

  // ---- toasts -----------------------------------------------------------------------------------
  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest(".toast .close");
    if (btn) btn.closest(".toast").remove();
  });

  // ---- inline edit: .detail[data-inline] swaps its value for a small form ----------------------------
  document.addEventListener("click", (ev) => {
    const edit = ev.target.closest(".detail .edit-btn");
    if (edit) {
      const detail = edit.closest(".detail");
      $(".detail-value", detail).hidden = true;
      const form = $("form", detail);
      form.hidden = false;
      edit.hidden = true;
      const input = form.querySelector("input:not([type=hidden]), select, textarea");
      if (input) { input.focus(); if (input.select) input.select(); }
      return;
    }
    const cancel = ev.target.closest(".detail [data-inline-cancel]");
    if (cancel) {
      ev.preventDefault();
      const detail = cancel.closest(".detail");
      const form = $("form", detail);
      form.reset(); form.hidden = true;
      $(".detail-value", detail).hidden = false;
      $(".edit-btn", detail).hidden = false;
    }
  });

  // ---- chart tooltips: [data-tip] (bars, slices) shows its label and value on hover or focus ---------
  let tipEl = null;
  function showTip(target, x, y) {
    if (!tipEl) { tipEl = document.createElement("div"); tipEl.className = "chart-tip"; tipEl.setAttribute("role", "tooltip"); tipEl.id = "chart-tip"; document.body.appendChild(tipEl); }
    tipEl.textContent = target.dataset.tip;
    tipEl.hidden = false;
    tipEl.style.left = `${Math.min(x + 12, window.innerWidth - tipEl.offsetWidth - 8)}px`;
    tipEl.style.top = `${Math.max(y - tipEl.offsetHeight - 10, 4)}px`;
  }
  const hideTip = () => { if (tipEl) tipEl.hidden = true; };
  document.addEventListener("mouseover", (ev) => {
    const t = ev.target.closest && ev.target.closest("svg.chart [data-tip]");
    if (t) showTip(t, ev.clientX, ev.clientY); else hideTip();
  });
  document.addEventListener("focusin", (ev) => {
    const t = ev.target.closest && ev.target.closest("svg.chart a") && ev.target.querySelector("[data-tip]");
    if (t) { const r = t.getBoundingClientRect(); showTip(t, r.left + r.width / 2, r.top); } else hideTip();
  });

  // ---- list cell inline edit: double-click a td[data-inline] of a table[data-inline-url] --------------
  // The editor posts {field, value} to <data-inline-url>/<row id>; the server runs the form's own
  // validation and answers {text, value} (saved) or {error} (nothing saved: the editor stays open).
  function openCellEditor(td) {
    if (td.querySelector("form.cell-editor")) return;
    const table = td.closest("table[data-inline-url]");
    const field = td.dataset.field;
    const label = table.querySelector(`th[data-col="${field}"]`)?.textContent.trim() || field;
    const row = td.closest("tr");
    const record = row.querySelector("td a")?.textContent.trim() || row.dataset.id;
    const options = JSON.parse(table.dataset.inlineOptions || "{}")[field] || [];
    const form = document.createElement("form");
    form.className = "cell-editor";
    form.setAttribute("aria-label", `Edit ${label} of ${record}`);
    let input;
    if (options.length) {
      input = document.createElement("select");
      options.forEach(([v, l]) => { const o = new Option(l, String(v)); if (String(v) === td.dataset.value) o.selected = true; input.add(o); });
    } else {
      input = document.createElement("input"); input.type = "text"; input.value = td.dataset.value || "";
    }
    input.setAttribute("aria-label", label);
    const save = Object.assign(document.createElement("button"), { type: "submit", className: "btn sn small primary", textContent: "Save" });
    save.setAttribute("aria-label", `Save ${label}`);
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "btn sn small", textContent: "Cancel" });
    cancel.setAttribute("aria-label", `Cancel editing ${label}`);
    const err = document.createElement("div"); err.className = "cell-error"; err.setAttribute("role", "alert");
    form.append(input, save, cancel, err);
    const shown = Array.from(td.childNodes);
    shown.forEach((n) => { if (n.nodeType === 1) n.hidden = true; else n.remove(); });
    td.appendChild(form);
    td.classList.add("editing");
    const close = () => { form.remove(); td.classList.remove("editing"); shown.forEach((n) => { if (n.nodeType === 1) { n.hidden = false; if (!n.parentNode) td.appendChild(n); } }); };
    cancel.addEventListener("click", close);
    form.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.preventDefault(); close(); td.focus(); } });
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      save.disabled = true; err.textContent = "";
      try {
        const res = await fetch(`${table.dataset.inlineUrl}/${row.dataset.id}`, {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ field, value: input.value }),
        });
        const data = await res.json();
        if (!res.ok) { err.textContent = data.error || "Not saved."; save.disabled = false; input.focus(); return; }
        td.dataset.value = data.value === null ? "" : String(data.value);
        td.title = data.text;
        const text = td.querySelector(".cell-text");
        if (text) text.textContent = data.text;
        close();
        td.classList.add("saved");
      } catch (e) { err.textContent = "Not saved: the server did not answer. Try again."; save.disabled = false; }
    });
    input.focus();
    if (input.select) input.select();
  }
  document.addEventListener("dblclick", (ev) => {
    const td = ev.target.closest("table[data-inline-url] td[data-inline]");
    if (td && !ev.target.closest("form.cell-editor")) { ev.preventDefault(); openCellEditor(td); }
  });

  // The JSON of a search's answer, or null when another search (or a choice) has come since: checked again
  // after the body is read, so an answer that arrives while a name is being picked cannot reopen its list.
  async function latestJson(url, current) {
    const res = await fetch(url, { headers: { Accept: "application/json" } });
    if (!current() || !res.ok) return null;
    const data = await res.json();
    return current() ? { data, res } : null;
  }

  // ---- suggestion lists: the listbox under a lookup or a recipient well -------------------------------
  // Fills the list from a search's results (each {label, sublabel?}), moves the highlight with the
  // arrow keys and picks with Enter or a click; the same results as shown keep the options in place,
  // so a click aimed at one never lands on a node that was just replaced.
  function suggestions(input, list, { optionId, optionData, emptyText, onChoose }) {
    let active = -1, shown = "";
    const options = () => $$(".option[role=option]", list);
    function highlight(i) {
      const opts = options();
      active = Math.max(-1, Math.min(i, opts.length - 1));
      opts.forEach((o, k) => o.setAttribute("aria-selected", String(k === active)));
      if (active >= 0) input.setAttribute("aria-activedescendant", opts[active].id); else input.removeAttribute("aria-activedescendant");
    }
    function close() { list.hidden = true; shown = ""; input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant"); }
    function fill(items, query) {
      const key = JSON.stringify(items);
      if (key === shown && !list.hidden) return;
      shown = key;
      list.innerHTML = "";
      items.forEach((it, k) => {
        const li = document.createElement("li");
        li.className = "option"; li.setAttribute("role", "option"); li.id = optionId(k);
        Object.assign(li.dataset, optionData(it));
        li.textContent = it.label;
        if (it.sublabel) { const s = document.createElement("small"); s.textContent = it.sublabel; li.appendChild(s); }
        li.addEventListener("mousedown", (e) => { e.preventDefault(); onChoose(it, li); });
        list.appendChild(li);
      });
      if (!items.length) {
        const li = document.createElement("li"); li.className = "option"; li.setAttribute("aria-disabled", "true");
        li.textContent = `${emptyText} "${query}"`; list.appendChild(li);
      }
      list.hidden = false; input.setAttribute("aria-expanded", "true"); active = -1;
    }
    // Arrow keys, Enter and Escape in the input; true when the key was the list's.
    function key(ev) {
      if (ev.key === "ArrowDown") { highlight(active + 1); return true; }
      if (ev.key === "ArrowUp") { highlight(active - 1); return true; }
      if (ev.key === "Enter" && active >= 0 && !list.hidden) { const li = options()[active]; onChoose(JSON.parse(li.dataset.item), li); return true; }
      if (ev.key === "Escape") { close(); return false; }
      return false;
    }
    return { fill, close, key };
  }

  // ---- lookups: type-ahead search for a related record ---------------------------------------------
  function setupLookup(box) {
    const input = $("input[type=search], input[role=combobox]", box);
    const hidden = $("input[type=hidden]", box);
    const list = $(".listbox", box);
    const pill = $(".selected-pill", box);
    let seq = 0;
    const sl = suggestions(input, list, {
      optionId: (k) => `${box.id || "lk"}-opt-${k}`,
      optionData: (it) => ({ value: it.id, label: it.label, item: JSON.stringify(it) }),
      emptyText: "No results for",
      onChoose: (it) => onChosen(it),
    });
    async function search() {
      const my = ++seq;
      const url = new URL(box.dataset.lookupUrl, location.href);
      url.searchParams.set("q", input.value);
      const got = await latestJson(url, () => my === seq);
      if (!got) return;
      sl.fill(got.data, input.value);
      box.dataset.loaded = String(my);
    }
    input.addEventListener("input", search);
    input.addEventListener("focus", search);
    input.addEventListener("blur", () => { seq++; sl.close(); });
    input.addEventListener("keydown", (ev) => { if (sl.key(ev)) ev.preventDefault(); });
    const clear = $(".clear", pill);
    if (clear) clear.addEventListener("click", (ev) => {
      ev.preventDefault(); hidden.value = ""; pill.hidden = true; input.hidden = false; input.value = ""; input.focus();
    });
    const opener = $("[data-lookup-popup]", box);
    if (opener) opener.addEventListener("click", (ev) => {
      ev.preventDefault();
      sl.close();
      openLookupPopup(box.dataset.lookupUrl, opener.dataset.lookupPopup, input.hidden ? "" : input.value, (it) => { sl.close(); onChosen(it); });
    });
    function onChosen(it) {
      seq++;  // a search still in flight must not reopen the list over the chosen value
      hidden.value = it.id;
      $(".pill-label", pill).textContent = it.label;
      pill.hidden = false; input.hidden = true; list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      hidden.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }

  // ---- the lookup popup: every record a reference field can take, searched and paged ----------------
  // One dialog per page, built on first use; rows come from the field's lookup URL
  // (?q=&limit=&offset=, the total in X-Total-Count). Choosing a row fills the field and closes it.
  const POPUP_PAGE = 20;
  function openLookupPopup(url, title, query, choose) {
    let dlg = document.getElementById("lookup-popup");
    if (!dlg) {
      dlg = document.createElement("dialog");
      dlg.id = "lookup-popup"; dlg.className = "modal lookup-popup"; dlg.setAttribute("aria-labelledby", "lookup-popup-title");
      dlg.innerHTML = `<div class="modal-header"><h2 id="lookup-popup-title"></h2>
          <button class="btn icon-only close" type="button" data-dialog-close aria-label="Close"><svg class="icon" aria-hidden="true" focusable="false"><use href="#i-close"></use></svg></button></div>
        <div class="modal-body">
          <form class="lookup-search" role="search" aria-label="Search the list"><label for="lookup-popup-q">Search</label>
            <input id="lookup-popup-q" type="search" autocomplete="off"><button class="btn" type="submit">Search</button></form>
          <div class="table-wrap"><table class="data"><thead><tr><th scope="col">Name</th><th scope="col">Details</th></tr></thead><tbody></tbody></table></div>
          <nav class="pagination" aria-label="Pagination"><button class="btn small" type="button" data-prev aria-label="Previous page">Previous</button>
            <span data-range role="status"></span><button class="btn small" type="button" data-next aria-label="Next page">Next</button></nav>
        </div>`;
      document.body.appendChild(dlg);
    }
    const q = $("#lookup-popup-q", dlg), body = $("tbody", dlg), range = $("[data-range]", dlg);
    const prev = $("[data-prev]", dlg), next = $("[data-next]", dlg);
    let offset = 0, seq = 0;
    $("#lookup-popup-title", dlg).textContent = title;
    q.value = query || "";
    async function load() {
      const my = ++seq;
      const u = new URL(url, location.href);
      u.searchParams.set("q", q.value);
      u.searchParams.set("limit", String(POPUP_PAGE));
      u.searchParams.set("offset", String(offset));
      const got = await latestJson(u, () => my === seq);
      if (!got) return;
      const items = got.data;
      const total = Number(got.res.headers.get("X-Total-Count") || items.length);
      body.innerHTML = "";
      items.forEach((it) => {
        const tr = document.createElement("tr");
        const a = document.createElement("a"); a.href = "#"; a.textContent = it.label;
        a.addEventListener("click", (e) => { e.preventDefault(); dlg.close(); choose(it); });
        const td1 = document.createElement("td"); td1.appendChild(a);
        const td2 = document.createElement("td"); td2.textContent = it.sublabel || "";
        tr.append(td1, td2); body.appendChild(tr);
      });
      if (!items.length) { const tr = document.createElement("tr"); const td = document.createElement("td"); td.colSpan = 2; td.textContent = "No records to display"; tr.appendChild(td); body.appendChild(tr); }
      range.textContent = total ? `${offset + 1} to ${offset + items.length} of ${total}` : "0 records";
      prev.disabled = offset === 0; next.disabled = offset + items.length >= total;
      dlg.dataset.loaded = String(my);
    }
    dlg.onsubmit = (e) => { e.preventDefault(); offset = 0; load(); };
    prev.onclick = () => { offset = Math.max(0, offset - POPUP_PAGE); load(); };
    next.onclick = () => { offset += POPUP_PAGE; load(); };
    delete dlg.dataset.loaded;
    if (!dlg.open) dlg.showModal();
    q.focus();
    load();
  }

  // ---- recipient wells: To, Cc, Bcc (and attendees) with type-ahead on the last address -------------
  // A [data-recipient-well] (the kit's recipient_well macro) holds a text input of addresses
  // separated by ";" and its listbox; data-people-url answers ?q= with [{address, label, sublabel}].
  // Picking a person replaces the address being typed with its label and "; ", as Outlook's well
  // does; the well then sends "recipients-change" (bubbling) for forms that keep drafts.
  function setupRecipientWell(box) {
    const input = $("input[role=combobox]", box);
    const list = $(".listbox", box);
    let seq = 0;
    const lastToken = () => input.value.split(/[;,]/).pop().trim();
    const sl = suggestions(input, list, {
      optionId: (k) => `${list.id}-${k}`,
      optionData: (it) => ({ address: it.address, label: it.label, item: JSON.stringify(it) }),
      emptyText: box.dataset.emptyText || "No suggestions for",
      onChoose(it) {
        seq++;
        const parts = input.value.split(/[;,]/).map((s) => s.trim()).filter(Boolean);
        parts.pop();
        parts.push(it.label);
        input.value = parts.join("; ") + "; ";
        sl.close();
        input.focus();
        input.dispatchEvent(new CustomEvent("recipients-change", { bubbles: true }));
      },
    });
    async function search() {
      const q = lastToken();
      const my = ++seq;
      if (q.length < 2) { sl.close(); return; }
      const url = new URL(box.dataset.peopleUrl, location.href);
      url.searchParams.set("q", q);
      const got = await latestJson(url, () => my === seq);
      if (got) sl.fill(got.data, q);
    }
    // Typing always continues after the addresses already there.
    const toEnd = () => { const n = input.value.length; input.setSelectionRange(n, n); };
    input.addEventListener("click", () => { if (input.selectionStart === input.selectionEnd) toEnd(); });
    input.addEventListener("input", search);
    input.addEventListener("blur", () => { seq++; sl.close(); });
    input.addEventListener("keydown", (ev) => {
      if (sl.key(ev)) ev.preventDefault();
      else if (ev.key === "Enter") ev.preventDefault();  // Enter in a recipient field never sends
    });
  }

  // ---- select-all checkboxes and mass-action bars -----------------------------------------------------
  document.addEventListener("change", (ev) => {
    const all = ev.target.closest("[data-select-all]");
    if (all) $$(`input[name='${all.dataset.selectAll}']`).forEach((c) => { c.checked = all.checked; });
    const scope = ev.target.closest("[data-selection]");
    if (scope) {
      const n = $$("input[type=checkbox][name='ids']:checked", scope).length;
      $$("[data-needs-selection]", scope).forEach((b) => { b.disabled = n === 0; });
      const counter = $("[data-selection-count]", scope);
      if (counter) counter.textContent = n ? `${n} selected` : "";
    }
  });

  function init(root) {
    $$("[data-lookup-url]", root).forEach(setupLookup);
    $$("[data-recipient-well]", root).forEach(setupRecipientWell);
    $$("dialog[data-open-on-load]", root).forEach((d) => { if (!d.open) { d.showModal(); focusFirst(d); } });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => init(document));
  else init(document);
  window.SandboxUI = { init, closeMenus, selectTab };
})();
