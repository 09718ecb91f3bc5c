// Kanban board (opportunities, leads, cases): move cards between the columns of a picklist by mouse/pen drag (pointer events, so
// synthetic mouse input such as Playwright's page.mouse works; HTML5 drag and drop does not), or by
// keyboard (Space to pick up, Left/Right to choose a column, Space/Enter to drop, Escape to cancel).
// A move POSTs the new stage and updates counts and totals in place. No timers, no animations.
(function () {
  "use strict";
  const board = document.getElementById("kanban");
  if (!board) return;
  const live = document.getElementById("kanban-live");
  const DRAG_THRESHOLD = 4; // px of movement before a press becomes a drag (else it is a click)
  const EDGE = 40; // px: dragging this close to the board's edge scrolls it
  const money = (v) => "$" + Math.round(v).toLocaleString("en-US");
  const columns = () => Array.from(board.querySelectorAll(".kanban-col"));
  const cardsOf = (col) => Array.from(col.querySelectorAll(".kanban-card"));
  const stageOf = (col) => col.dataset.value; // the column's value of the grouping field (Kanban Settings' Group By)
  const labelOf = (col) => col.dataset.label;
  const groupField = board.dataset.field || "stage";
  const noun = board.dataset.noun || "stage";
  const nameOf = (card) => card.getAttribute("aria-label");
  const moveBase = board.dataset.moveBase || "/opportunities/board";
  const moveUrl = (card) => `${moveBase}/${card.dataset.id}/move`;
  const readOnly = (card) => card.dataset.readonly === "1"; // the user may only read the record: it doesn't move
  const cardStage = (card) => stageOf(card.closest(".kanban-col"));

  function announce(text) { live.textContent = text; }
  // A move a validation rule refused: the rule's message in an alert above the board (until the next move).
  const refusalBox = document.getElementById("kanban-error");
  function showRefusal(text) {
    if (!refusalBox) return;
    refusalBox.hidden = !text;
    refusalBox.querySelector("[data-message]").textContent = text || "";
  }

  // ---- drop indicator: a placeholder where the card would land (cards keep close-date order) ----
  const indicator = document.createElement("li");
  indicator.className = "drop-indicator";
  indicator.setAttribute("aria-hidden", "true");

  function anchorFor(col, card) {
    const list = col.querySelector(".kanban-cards");
    const after = cardsOf(col).find((c) => c !== card && c.dataset.sort > card.dataset.sort);
    return [list, after || list.querySelector(".kanban-empty")];
  }
  function showTarget(col, card) {
    columns().forEach((c) => c.classList.toggle("drop-target", c === col));
    if (!col) { indicator.remove(); return; }
    const [list, before] = anchorFor(col, card);
    indicator.style.height = card.offsetHeight + "px";
    list.insertBefore(indicator, before);
  }
  function clearTarget() {
    columns().forEach((c) => c.classList.remove("drop-target"));
    indicator.remove();
  }

  function refreshTotals() {
    let count = 0, sum = 0;
    columns().forEach((col) => {
      const cards = cardsOf(col);
      const total = cards.reduce((s, c) => s + parseFloat(c.dataset.amount || "0"), 0);
      const countEl = col.querySelector(".kanban-count");
      countEl.textContent = `(${cards.length})`;
      countEl.dataset.count = String(cards.length);
      const totalEl = col.querySelector(".kanban-total");
      if (totalEl) { totalEl.textContent = money(total); totalEl.dataset.total = total.toFixed(2); }
      col.querySelector(".kanban-empty").hidden = cards.length > 0;
      count += cards.length; sum += total;
    });
    const c = document.querySelector("[data-board-count]"), t = document.querySelector("[data-board-total]");
    if (c) c.textContent = String(count);
    if (t) t.textContent = money(sum);
  }

  function place(card, col) {
    const [list, before] = anchorFor(col, card);
    list.insertBefore(card, before);
  }

  // ---- saving a move: optimistic, reverted if the server refuses ----------------------------
  async function move(card, toCol) {
    const fromCol = card.closest(".kanban-col");
    if (!toCol || toCol === fromCol) { announce(`${nameOf(card)} was not moved.`); return; }
    const hadFocus = document.activeElement === card;
    const stage = stageOf(toCol);
    const label = labelOf(toCol);
    place(card, toCol);
    refreshTotals();
    if (hadFocus) card.focus();
    card.setAttribute("aria-busy", "true");
    let data = null;
    let refusal = null;
    try {
      const res = await fetch(moveUrl(card), {
        method: "POST",
        headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ field: groupField, value: stage }).toString(),
      });
      if (res.ok) data = await res.json();
      else if (res.status === 400 || res.status === 403) refusal = (await res.json()).message || null;
    } catch (_err) { data = null; }
    card.removeAttribute("aria-busy");
    if (!data) {
      place(card, fromCol);
      refreshTotals();
      announce(`${nameOf(card)} could not be moved to ${label}.${refusal ? " " + refusal : ""}`);
      if (refusal) showRefusal(`We hit a snag. ${nameOf(card)} wasn't moved to ${label}. ${refusal}`);
      return;
    }
    showRefusal(null);
    announce(groupField === "stage" && data.stage ? `${nameOf(card)} moved to ${data.stage}. Probability ${data.probability}%.` : `${nameOf(card)} moved to ${label}.`);
  }

  // ---- "Move to" menu: filled from the page's single <template> when a card's menu opens --------
  const menuTemplate = document.getElementById("move-menu");
  board.addEventListener("click", (ev) => {
    const btn = ev.target.closest(".kc-menu-btn");
    if (!btn || !menuTemplate) return;
    const card = btn.closest(".kanban-card");
    const menu = btn.parentElement.querySelector(".menu");
    menu.replaceChildren(menuTemplate.content.cloneNode(true));
    menu.querySelector("form").action = moveUrl(card);
    menu.querySelectorAll("button[name=value]").forEach((b) => {
      if (b.value === cardStage(card)) { b.disabled = true; b.setAttribute("aria-current", "true"); }
    });
  }, true); // capture: runs before the kit's menu toggle, which then shows the filled menu

  // ---- pointer drag and drop ---------------------------------------------------------------
  let drag = null; // {card, pointerId, startX, startY, dx, dy, active, ghost, over}
  let justDragged = false; // swallow the click that follows a drop (the press may be on a link)

  function columnAt(x, y) {
    const el = document.elementFromPoint(x, y);
    return el ? el.closest(".kanban-col") : null;
  }
  function beginPointerDrag(ev) {
    const rect = drag.card.getBoundingClientRect();
    drag.active = true;
    drag.dx = drag.startX - rect.left; drag.dy = drag.startY - rect.top;
    const ghost = drag.card.cloneNode(true);
    ghost.classList.add("drag-ghost");
    ghost.removeAttribute("id"); ghost.removeAttribute("tabindex");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.width = rect.width + "px";
    document.body.appendChild(ghost);
    drag.ghost = ghost;
    drag.card.classList.add("drag-source");
    board.classList.add("dragging");
    if (window.SandboxUI) window.SandboxUI.closeMenus();
    announce(`Dragging ${nameOf(drag.card)}.`);
  }
  function followPointer(x, y) {
    drag.ghost.style.left = x - drag.dx + "px";
    drag.ghost.style.top = y - drag.dy + "px";
    // Near the board's left/right edge, each pointer move scrolls it (event-driven: no timer).
    const r = board.getBoundingClientRect();
    if (x > r.right - EDGE) board.scrollLeft += EDGE;
    else if (x < r.left + EDGE) board.scrollLeft -= EDGE;
    const col = columnAt(x, y);
    if (col !== drag.over) { drag.over = col; showTarget(col, drag.card); }
  }
  function endPointerDrag(commit) {
    const d = drag;
    drag = null;
    if (!d || !d.active) return;
    d.ghost.remove();
    d.card.classList.remove("drag-source");
    board.classList.remove("dragging");
    clearTarget();
    if (commit) move(d.card, d.over);
    else announce(`Move of ${nameOf(d.card)} cancelled.`);
  }

  board.addEventListener("dragstart", (ev) => ev.preventDefault()); // no native HTML5 drag of links/images
  document.addEventListener("pointerdown", () => { justDragged = false; }, true); // a new press: nothing to swallow
  board.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || !ev.isPrimary || keyDrag) return;
    const card = ev.target.closest(".kanban-card");
    if (!card || readOnly(card) || ev.target.closest("button, .menu, input, select, textarea")) return;
    drag = { card, pointerId: ev.pointerId, startX: ev.clientX, startY: ev.clientY, active: false, over: null };
  });
  document.addEventListener("pointermove", (ev) => {
    if (!drag || ev.pointerId !== drag.pointerId) return;
    if (!drag.active) {
      if (Math.abs(ev.clientX - drag.startX) + Math.abs(ev.clientY - drag.startY) < DRAG_THRESHOLD) return;
      beginPointerDrag(ev);
    }
    ev.preventDefault();
    followPointer(ev.clientX, ev.clientY);
  });
  document.addEventListener("pointerup", (ev) => {
    if (!drag || ev.pointerId !== drag.pointerId) return;
    if (drag.active) {
      followPointer(ev.clientX, ev.clientY); // the drop point decides, even without a move before it
      justDragged = true;
      endPointerDrag(true);
    } else {
      drag = null;
    }
  });
  document.addEventListener("pointercancel", () => endPointerDrag(false));
  window.addEventListener("click", (ev) => {
    if (justDragged) { justDragged = false; ev.preventDefault(); ev.stopPropagation(); }
  }, true);

  // ---- keyboard: Space picks up, arrows choose a column, Space/Enter drops, Escape cancels ---------
  let keyDrag = null; // {card, index}
  function targetAt(index) { return columns()[index]; }
  function pickUp(card) {
    const cols = columns();
    keyDrag = { card, index: cols.indexOf(card.closest(".kanban-col")) };
    card.classList.add("grabbed");
    announce(`Picked up ${nameOf(card)} in ${labelOf(cols[keyDrag.index])}. Use Left and Right arrow keys to choose a ${noun}, Space or Enter to drop, Escape to cancel.`);
  }
  function release() {
    const kd = keyDrag;
    keyDrag = null;
    kd.card.classList.remove("grabbed");
    clearTarget();
    return kd;
  }
  function step(delta) {
    const cols = columns();
    keyDrag.index = Math.max(0, Math.min(cols.length - 1, keyDrag.index + delta));
    const col = cols[keyDrag.index];
    const home = col === keyDrag.card.closest(".kanban-col");
    showTarget(home ? null : col, keyDrag.card);
    col.scrollIntoView({ block: "nearest", inline: "nearest" });
    announce(`${labelOf(col)}, ${noun} ${keyDrag.index + 1} of ${cols.length}${home ? ` (current ${noun})` : ""}.`);
  }
  board.addEventListener("keydown", (ev) => {
    const card = ev.target.closest && ev.target.closest(".kanban-card");
    if (!card || ev.target !== card) return; // keys on the card's links and menu behave as usual
    const key = ev.key;
    if (!keyDrag) {
      if (key === " " || key === "Spacebar") {
        ev.preventDefault();
        if (readOnly(card)) announce(`${nameOf(card)} is read only: you can't move it.`);
        else pickUp(card);
      }
      return;
    }
    if (keyDrag.card !== card) return;
    if (key === "ArrowRight" || key === "ArrowDown") { ev.preventDefault(); step(1); }
    else if (key === "ArrowLeft" || key === "ArrowUp") { ev.preventDefault(); step(-1); }
    else if (key === " " || key === "Spacebar" || key === "Enter") {
      ev.preventDefault();
      const kd = release();
      move(kd.card, targetAt(kd.index));
    } else if (key === "Escape") {
      ev.preventDefault();
      release();
      announce(`Move of ${nameOf(card)} cancelled.`);
    }
  });
  board.addEventListener("focusout", (ev) => {
    if (keyDrag && ev.target === keyDrag.card && !keyDrag.card.contains(ev.relatedTarget)) {
      const kd = release();
      announce(`Move of ${nameOf(kd.card)} cancelled.`);
    }
  });
})();
