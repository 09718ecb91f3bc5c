// Grading mode: the grader's verdict, score and comment on an episode page (keys p, f, n, N), and the
// ranking of a task's episodes by dragging. Every change is saved at once to the run's labels.jsonl.
(() => {
  async function post(url, body) {
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.detail || `${r.status} ${r.statusText}`);
    return data;
  }
  const typing = (el) => /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName);

  function gradePanel(panel) {
    const status = panel.querySelector(".grade-status");
    const score = panel.querySelector("input[name=score]");
    const comment = panel.querySelector("textarea[name=comment]");
    const choices = [...panel.querySelectorAll("[data-passed]")];
    let autoScore = score.value === "";  // a score the grader did not type follows pass (1) / fail (0)
    let pending = Promise.resolve();

    function save(fields) {
      status.textContent = "saving…";
      status.classList.remove("error");
      pending = pending.then(() => post("/api/label", { run: panel.dataset.run, episode: panel.dataset.episode, ...fields }))
        .then((label) => {
          status.textContent = `saved ${label.time.slice(11, 19)} UTC${label.rank ? ` · rank ${label.rank}` : ""}`;
          panel.dataset.saves = +(panel.dataset.saves || 0) + 1;  // lets a test wait for the write
        })
        .catch((err) => { status.textContent = `not saved: ${err.message}`; status.classList.add("error"); });
      return pending;
    }
    function verdict(passed) {
      choices.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.passed === String(passed))));
      if (autoScore) score.value = passed ? "1" : "0";
      return save({ passed, score: score.value === "" ? null : +score.value });
    }
    choices.forEach((b) => b.addEventListener("click", () => verdict(b.dataset.passed === "true")));
    score.addEventListener("change", () => {
      autoScore = score.value === "";
      const v = score.value === "" ? null : +score.value;
      if (v !== null && !(v >= 0 && v <= 1)) { status.textContent = "the score must be between 0 and 1"; status.classList.add("error"); return; }
      save({ score: v });
    });
    comment.addEventListener("change", () => save({ comment: comment.value.trim() || null }));
    for (const field of [score, comment]) {
      field.addEventListener("keydown", (e) => {
        if (e.key === "Escape" || (e.key === "Enter" && (e.ctrlKey || e.metaKey || field === score))) { e.preventDefault(); e.stopPropagation(); field.blur(); }
      });
    }
    async function go(url) {
      if (!url) return;
      await pending;
      location.href = url;
    }
    document.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
      const keys = { p: () => verdict(true), f: () => verdict(false), n: () => go(panel.dataset.next), N: () => go(panel.dataset.prev) };
      const fn = keys[e.key];
      if (fn) { e.preventDefault(); fn(); }
    });
  }

  function ranking(list) {
    const status = document.querySelector(".rank-status");
    let dragged = null;
    let saved = order().join("\n");
    function order() { return [...list.querySelectorAll("li[data-key]")].map((li) => li.dataset.key); }
    function renumber() { list.querySelectorAll("li[data-key]").forEach((li, i) => { li.querySelector(".rank-no").textContent = i + 1; }); }
    async function save() {
      renumber();
      const now = order();
      if (now.join("\n") === saved) return;
      saved = now.join("\n");
      status.textContent = "saving…";
      status.classList.remove("error");
      try {
        const r = await post("/api/rank", { task: list.dataset.task, order: now });
        status.textContent = `ranking of ${r.ranked} episodes saved`;
        list.dataset.saves = +(list.dataset.saves || 0) + 1;
      } catch (err) { status.textContent = `not saved: ${err.message}`; status.classList.add("error"); saved = ""; }
    }
    function move(li, delta) {
      const sibling = delta < 0 ? li.previousElementSibling : li.nextElementSibling;
      if (!sibling) return;
      if (delta < 0) list.insertBefore(li, sibling); else list.insertBefore(sibling, li);
      li.focus();
      save();
    }
    list.addEventListener("dragstart", (e) => {
      dragged = e.target.closest("li[data-key]");
      if (!dragged) return;
      dragged.classList.add("dragging");
      e.dataTransfer.effectAllowed = "move";
      e.dataTransfer.setData("text/plain", dragged.dataset.key);
    });
    list.addEventListener("dragover", (e) => {
      if (!dragged) return;
      e.preventDefault();
      const over = e.target.closest("li[data-key]");
      if (!over || over === dragged) return;
      const box = over.getBoundingClientRect();
      list.insertBefore(dragged, e.clientY < box.top + box.height / 2 ? over : over.nextElementSibling);
    });
    list.addEventListener("drop", (e) => { e.preventDefault(); });
    list.addEventListener("dragend", () => { if (dragged) dragged.classList.remove("dragging"); dragged = null; save(); });
    list.querySelectorAll("li[data-key]").forEach((li) => {
      li.querySelector(".up").addEventListener("click", () => move(li, -1));
      li.querySelector(".down").addEventListener("click", () => move(li, +1));
      li.addEventListener("keydown", (e) => {
        if (e.target !== li) return;
        if (e.altKey && e.key === "ArrowUp") { e.preventDefault(); move(li, -1); }
        if (e.altKey && e.key === "ArrowDown") { e.preventDefault(); move(li, +1); }
      });
    });
    document.querySelector(".save-order")?.addEventListener("click", () => { saved = ""; save(); });
  }

  const panel = document.querySelector("section.grade");
  if (panel) gradePanel(panel);
  const list = document.querySelector("ol.ranking");
  if (list) ranking(list);
})();
