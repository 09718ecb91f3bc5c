// Episode pages: step through each trajectory on the page (one, or two side by side) with the keyboard
// or its filmstrip; images load on demand. Keys move every episode on the page together.
(() => {
  function player(root) {
    const figures = [...root.querySelectorAll(".shot[data-step]")];
    const details = [...root.querySelectorAll(".step-detail[data-step]")];
    const buttons = [...root.querySelectorAll(".filmstrip [data-goto]")];
    const stage = root.querySelector(".stage");
    const counter = root.querySelector(".step-counter");
    if (!figures.length) return null;
    const last = figures.length - 1;
    let current = 0;

    function load(fig) {
      for (const img of fig.querySelectorAll("img[data-src]")) { img.src = img.dataset.src; img.removeAttribute("data-src"); }
    }
    function show(n, remember = true) {
      n = Math.max(0, Math.min(last, n));
      current = n;
      figures.forEach((f, i) => { f.hidden = i !== n; });
      details.forEach((d, i) => { d.hidden = i !== n; });
      buttons.forEach((b, i) => { if (i === n) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current"); });
      load(figures[n]);
      if (n + 1 <= last) load(figures[n + 1]);  // the next step is probably next: fetch it now
      counter.textContent = n === 0 ? `Start (${last} steps)` : `Step ${n} of ${last}`;
      buttons[n]?.scrollIntoView({ block: "nearest", inline: "center" });
      if (remember) history.replaceState(null, "", `#step-${n}`);
    }
    function view(v) {
      stage.dataset.view = v;
      const radio = root.querySelector(`.views input[value=${v}]`);
      if (radio) radio.checked = true;
    }
    buttons.forEach((b) => b.addEventListener("click", () => show(+b.dataset.goto)));
    root.querySelectorAll("[data-show]").forEach((b) => b.addEventListener("click", () => show(+b.dataset.show)));  // milestones
    root.querySelector(".prev-step").addEventListener("click", () => show(current - 1));
    root.querySelector(".next-step").addEventListener("click", () => show(current + 1));
    root.querySelectorAll(".views input").forEach((r) => r.addEventListener("change", () => view(r.value)));
    const m = /^#step-(\d+)$/.exec(location.hash);
    show(m ? +m[1] : (last >= 1 ? 1 : 0), false);
    return { show, view, last, get current() { return current; } };
  }

  const players = [...document.querySelectorAll(".episode")].map(player).filter(Boolean);
  if (!players.length) return;
  const all = (fn) => players.forEach(fn);
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
    const keys = {
      ArrowRight: () => all((p) => p.show(p.current + 1)), j: () => all((p) => p.show(p.current + 1)),
      ArrowLeft: () => all((p) => p.show(p.current - 1)), k: () => all((p) => p.show(p.current - 1)),
      Home: () => all((p) => p.show(0)), End: () => all((p) => p.show(p.last)),
      b: () => all((p) => p.view("before")), a: () => all((p) => p.view("after")), d: () => all((p) => p.view("diff")),
      Escape: () => { const back = document.getElementById("back-link"); if (back) location.href = back.href; },
    };
    const fn = keys[e.key];
    if (fn) { e.preventDefault(); fn(); }
  });
})();
