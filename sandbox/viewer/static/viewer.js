// Episode page: step through the trajectory with the keyboard or the filmstrip; images load on demand.
(() => {
  const figures = [...document.querySelectorAll(".shot[data-step]")];
  const details = [...document.querySelectorAll(".step-detail[data-step]")];
  const buttons = [...document.querySelectorAll("#filmstrip [data-goto]")];
  const stage = document.getElementById("stage");
  const counter = document.getElementById("step-counter");
  if (!figures.length) return;
  const last = figures.length - 1;
  let current = 0;

  function load(fig) {
    for (const img of fig.querySelectorAll("img[data-src]")) { img.src = img.dataset.src; img.removeAttribute("data-src"); }
  }
  function show(n) {
    n = Math.max(0, Math.min(last, n));
    current = n;
    figures.forEach((f, i) => { f.hidden = i !== n; });
    details.forEach((d, i) => { d.hidden = i !== n; });
    buttons.forEach((b, i) => { if (i === n) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current"); });
    load(figures[n]);
    if (n + 1 <= last) load(figures[n + 1]);  // the next step is probably next: fetch it now
    counter.textContent = n === 0 ? `Start (${last} steps)` : `Step ${n} of ${last}`;
    buttons[n]?.scrollIntoView({ block: "nearest", inline: "center" });
    history.replaceState(null, "", `#step-${n}`);
  }
  function view(v) {
    stage.dataset.view = v;
    const radio = document.querySelector(`input[name=view][value=${v}]`);
    if (radio) radio.checked = true;
  }
  buttons.forEach((b) => b.addEventListener("click", () => show(+b.dataset.goto)));
  document.getElementById("prev-step").addEventListener("click", () => show(current - 1));
  document.getElementById("next-step").addEventListener("click", () => show(current + 1));
  document.querySelectorAll("input[name=view]").forEach((r) => r.addEventListener("change", () => view(r.value)));
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
    const keys = { ArrowRight: () => show(current + 1), j: () => show(current + 1), ArrowLeft: () => show(current - 1), k: () => show(current - 1),
      Home: () => show(0), End: () => show(last), b: () => view("before"), a: () => view("after"), d: () => view("diff"),
      Escape: () => { location.href = document.getElementById("back-link").href; } };
    const fn = keys[e.key];
    if (fn) { e.preventDefault(); fn(); }
  });
  const m = /^#step-(\d+)$/.exec(location.hash);
  show(m ? +m[1] : (last >= 1 ? 1 : 0));
})();
