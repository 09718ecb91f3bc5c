// The desk's behaviours: the navigator filter, the list condition builder, and the incident form's
// client rules (dependent subcategories, priority from impact x urgency, mandatory fields by state).
(function () {
  "use strict";
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const el = (tag, attrs = {}, text) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // ---- application navigator: the filter box hides modules that don't match ------------------------
  document.addEventListener("input", (ev) => {
    const box = ev.target.closest("[data-nav-filter]");
    if (!box) return;
    const q = box.value.trim().toLowerCase();
    let any = false;
    $$("[data-nav-app]").forEach((app) => {
      const appMatch = $(".nav-app-title", app).textContent.toLowerCase().includes(q);
      let shown = 0;
      $$("[data-nav-module]", app).forEach((li) => {
        const hit = !q || appMatch || li.textContent.toLowerCase().includes(q);
        li.hidden = !hit; if (hit) shown++;
      });
      app.hidden = shown === 0; if (shown) any = true;
    });
    $("[data-nav-empty]").hidden = any;
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || !ev.target.closest("[data-nav-filter]")) return;
    const first = $$("[data-nav-module]").find((li) => !li.hidden && !li.closest("[data-nav-app]").hidden);
    if (first) { ev.preventDefault(); $("a", first).click(); }  // Enter opens the first module shown
  });
  document.addEventListener("click", (ev) => {
    const all = ev.target.closest(".all-btn");
    if (all && all.getAttribute("aria-expanded") === "true") { const f = $("[data-nav-filter]"); if (f) f.focus(); }
  });

  // ---- condition builder ------------------------------------------------------------------------------
  function setupBuilder(root) {
    const fields = JSON.parse(root.dataset.fields);
    const ops = JSON.parse(root.dataset.ops);
    const order = JSON.parse(root.dataset.order);
    const list = $("[data-conds]", root);
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    const toggle = $("[data-toggle-builder]");

    function valueControl(field, op, value) {
      if (op === "ISEMPTY" || op === "ISNOTEMPTY") return el("span", { "data-value": "", "aria-hidden": "true" });
      let input;
      if (field.choices.length && op !== "IN") {
        input = el("select", { "aria-label": "Value", "data-value": "" });
        input.appendChild(el("option", { value: "" }, "-- None --"));
        field.choices.forEach(([v, l]) => { const o = el("option", { value: String(v) }, l); if (String(v) === String(value)) o.selected = true; input.appendChild(o); });
      } else {
        const type = field.type === "datetime" || field.type === "date" ? "date" : field.type === "number" ? "number" : "text";
        input = el("input", { type, "aria-label": "Value", "data-value": "" });
        input.value = value || "";
      }
      return input;
    }

    function fillOps(sel, field, chosen) {
      sel.innerHTML = "";
      ops[field.type].forEach(([o, l]) => { const opt = el("option", { value: o }, l); if (o === chosen) opt.selected = true; sel.appendChild(opt); });
    }

    function row(cond) {
      const r = el("div", { class: "cond", role: "group", "data-cond": "" });
      r.dataset.join = cond.join || "AND";
      r.appendChild(el("span", { class: "join", "data-join-label": "" }));
      const fsel = el("select", { "aria-label": "Field", "data-field": "" });
      fsel.appendChild(el("option", { value: "" }, "-- choose field --"));
      fields.forEach((f) => { const o = el("option", { value: f.name }, f.label); if (f.name === cond.field) o.selected = true; fsel.appendChild(o); });
      const osel = el("select", { "aria-label": "Operator", "data-op": "" });
      r.append(fsel, osel);
      const field = byName[cond.field];
      if (field) { fillOps(osel, field, cond.op); r.appendChild(valueControl(field, osel.value, cond.value)); }
      else { osel.disabled = true; r.appendChild(el("input", { type: "text", "aria-label": "Value", "data-value": "", disabled: "" })); }
      const and = el("button", { type: "button", class: "btn sn", "data-add": "AND" }, "AND");
      const or = el("button", { type: "button", class: "btn sn", "data-add": "OR" }, "OR");
      const rm = el("button", { type: "button", class: "btn sn", "data-remove": "", "aria-label": "Remove condition" }, "\u00d7");
      r.append(and, or, rm);
      return r;
    }

    function renumber() {
      $$("[data-cond]", list).forEach((r, k) => {
        r.setAttribute("aria-label", `Condition ${k + 1}`);
        $("[data-join-label]", r).textContent = k === 0 ? "" : r.dataset.join.toLowerCase();
        r.classList.toggle("or-row", k > 0 && r.dataset.join === "OR");
      });
    }

    function add(cond, after) {
      const r = row(cond);
      if (after) after.after(r); else list.appendChild(r);
      renumber();
      $("[data-field]", r).focus();
      return r;
    }

    const initial = JSON.parse(root.dataset.conditions);
    initial.forEach((c) => list.appendChild(row(c)));
    if (!initial.length) list.appendChild(row({ join: "AND" }));
    renumber();

    root.addEventListener("change", (ev) => {
      const r = ev.target.closest("[data-cond]");
      if (!r) return;
      if (ev.target.matches("[data-field]")) {
        const field = byName[ev.target.value];
        const osel = $("[data-op]", r);
        if (!field) { osel.innerHTML = ""; osel.disabled = true; return; }
        osel.disabled = false; fillOps(osel, field, null);
        $("[data-value]", r).replaceWith(valueControl(field, osel.value, ""));
      } else if (ev.target.matches("[data-op]")) {
        const field = byName[$("[data-field]", r).value];
        const old = $("[data-value]", r);
        const keep = old.value || "";
        old.replaceWith(valueControl(field, ev.target.value, keep));
      }
    });
    root.addEventListener("click", (ev) => {
      const addBtn = ev.target.closest("[data-add]");
      if (addBtn) {
        const r = addBtn.closest("[data-cond]");
        let after = r;
        if (addBtn.dataset.add === "AND") { // after the last OR-row of this group
          while (after.nextElementSibling && after.nextElementSibling.dataset.join === "OR") after = after.nextElementSibling;
        }
        add({ join: addBtn.dataset.add }, after);
        return;
      }
      const newBtn = ev.target.closest("[data-new-cond]");
      if (newBtn) { add({ join: newBtn.dataset.newCond }); return; }
      const rm = ev.target.closest("[data-remove]");
      if (rm) { rm.closest("[data-cond]").remove(); if (!$("[data-cond]", list)) list.appendChild(row({ join: "AND" })); renumber(); return; }
      if (ev.target.closest("[data-clear]")) { list.innerHTML = ""; list.appendChild(row({ join: "AND" })); renumber(); return; }
      if (ev.target.closest("[data-run]")) run();
    });
    root.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && ev.target.matches("input[data-value]")) { ev.preventDefault(); run(); }
    });

    function run() {
      const parts = [];
      const err = $("[data-builder-error]", root);
      for (const r of $$("[data-cond]", list)) {
        const name = $("[data-field]", r).value;
        if (!name) continue;
        const op = $("[data-op]", r).value;
        const vEl = $("[data-value]", r);
        const value = vEl && "value" in vEl ? vEl.value : "";
        if (!(op === "ISEMPTY" || op === "ISNOTEMPTY") && value === "") {
          err.textContent = `Enter a value for ${byName[name].label}, or remove that condition.`;
          $("[data-value]", r).focus();
          return;
        }
        const join = parts.length && r.dataset.join === "OR" ? "OR" : "";
        parts.push(join + name + op + (op === "ISEMPTY" || op === "ISNOTEMPTY" ? "" : value.replace(/\^/g, " ")));
      }
      order.forEach(([f, desc]) => parts.push((desc ? "ORDERBYDESC" : "ORDERBY") + f));
      const url = new URL(root.dataset.listUrl, location.href);
      if (parts.length) url.searchParams.set("sysparm_query", parts.join("^"));
      location.href = url.pathname + url.search;
    }

    if (toggle) toggle.addEventListener("click", () => {
      const open = root.hidden;
      root.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      if (open) { const f = $("[data-field]", root); if (f) f.focus(); }
    });
  }

  // ---- incident form -----------------------------------------------------------------------------------
  function setupForm(form) {
    const subs = JSON.parse(form.dataset.subcategories || "{}");
    const cat = $("[name=category]", form), sub = $("[name=subcategory]", form);
    function fillSubcategories() {
      const keep = sub.value;
      sub.innerHTML = "";
      sub.appendChild(el("option", { value: "" }, "-- None --"));
      (subs[cat.value] || []).forEach((s) => { const o = el("option", { value: s }, s); if (s === keep) o.selected = true; sub.appendChild(o); });
    }
    if (cat && sub) {
      cat.addEventListener("change", fillSubcategories);
      // filled once now too: a category picked before this script ran (an agent acting on first
      // paint) left the list the server drew for the category it knew
      fillSubcategories();
    }
    const impact = $("[name=impact]", form), urgency = $("[name=urgency]", form), pri = $("[data-priority]", form);
    const labels = JSON.parse(form.dataset.priorities || "{}");
    function priority() { if (impact && urgency && pri) pri.value = labels[String(Number(impact.value) + Number(urgency.value) - 1)] || ""; }
    [impact, urgency].forEach((s) => s && s.addEventListener("change", priority));
    // Mandatory markers follow the state (ServiceNow's UI policies); the server enforces the same rules.
    const rules = JSON.parse(form.dataset.mandatory || "{}");
    const state = $("[name=state]", form);
    function mandatory() {
      const need = new Set(rules[state ? state.value : "New"] || []);
      $$("[data-frow]", form).forEach((rowEl) => {
        const name = rowEl.dataset.frow;
        const on = need.has(name);
        const input = $(`[name=${name}]`, rowEl);
        const mark = $(".mand", rowEl);
        const filled = input && input.value.trim() !== "";
        if (mark) { mark.textContent = on ? "*" : ""; mark.classList.toggle("filled", on && filled); mark.title = on ? "Mandatory field" : ""; }
        const visible = $(`[name=${name}]:not([type=hidden])`, rowEl) || $("input[role=combobox]", rowEl);
        if (visible) { if (on) visible.setAttribute("aria-required", "true"); else visible.removeAttribute("aria-required"); }
        if (rowEl.dataset.showWhen) rowEl.hidden = !rowEl.dataset.showWhen.split("|").includes(state.value);
      });
    }
    if (state) { state.addEventListener("change", mandatory); form.addEventListener("input", mandatory); form.addEventListener("change", mandatory); mandatory(); }
    // Assigned to: the type-ahead offers the members of the chosen assignment group.
    const group = $("[data-frow=assignment_group] input[type=hidden]", form);
    const assignee = $("[data-frow=assigned_to] [data-lookup-url]", form);
    function scope() { if (group && assignee) assignee.dataset.lookupUrl = "/api/desk/lookup/sys_user" + (group.value ? `?group=${group.value}` : ""); }
    if (group) { group.addEventListener("change", scope); scope(); }
  }

  // ---- lists: group by, expanding a group, and a cell's Show Matching / Filter Out menu ---------------
  document.addEventListener("change", (ev) => {
    const sel = ev.target.closest("[data-group-by]");
    if (sel && sel.value) location.href = sel.value;
  });
  document.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("[data-group-toggle]");
    if (!btn) return;
    const body = btn.closest("tbody");
    const open = btn.getAttribute("aria-expanded") !== "true";
    btn.setAttribute("aria-expanded", String(open));
    if (open && !body.dataset.loaded) {
      body.dataset.loaded = "loading";
      const res = await fetch(btn.dataset.rowsHref);
      const tmp = document.createElement("tbody");
      tmp.innerHTML = await res.text();
      Array.from(tmp.children).forEach((tr) => { tr.dataset.groupRow = ""; body.appendChild(tr); });
      body.dataset.loaded = "yes";
    }
    $$("tr[data-group-row]", body).forEach((tr) => { tr.hidden = !open; });
  });
  function negate(cond) {
    const m = cond.match(/^([a-z_]+)(ISEMPTY|ISNOTEMPTY|ON|=)(.*)$/);
    if (!m) return null;
    if (m[2] === "ISEMPTY") return m[1] + "ISNOTEMPTY";
    if (m[2] === "=") return m[1] + "!=" + m[3];
    return null;  // a date: no single opposite condition
  }
  const cellMenu = () => $("[data-cell-menu]");
  document.addEventListener("contextmenu", (ev) => {
    const td = ev.target.closest("table.sn-list[data-list-url] td[data-cond]");
    const menu = cellMenu();
    if (!td || !menu || ev.target.closest("form.cell-editor")) return;
    ev.preventDefault();
    const table = td.closest("table");
    const base = table.dataset.query;
    const href = (cond) => { const u = new URL(table.dataset.listUrl, location.href); u.searchParams.set("sysparm_query", base ? `${base}^${cond}` : cond); return u.pathname + u.search; };
    const out = negate(td.dataset.cond);
    $("[data-cell-action=match]", menu).href = href(td.dataset.cond);
    const outLink = $("[data-cell-action=out]", menu);
    outLink.hidden = !out;
    if (out) outLink.href = href(out);
    menu.hidden = false;
    menu.style.left = `${ev.clientX}px`; menu.style.top = `${ev.clientY}px`;
    $("a", menu).focus();
  });
  document.addEventListener("click", (ev) => { const m = cellMenu(); if (m && !m.hidden && !ev.target.closest("[data-cell-menu]")) m.hidden = true; });
  document.addEventListener("keydown", (ev) => { const m = cellMenu(); if (ev.key === "Escape" && m && !m.hidden) m.hidden = true; });

  function init() {
    $$(".filter-builder").forEach(setupBuilder);
    $$("form[data-record-form]").forEach(setupForm);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
