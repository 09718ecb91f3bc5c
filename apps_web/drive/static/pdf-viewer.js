// The file page's PDF preview, drawn by pdf.js (vendored: static/vendor/pdfjs, Apache-2.0): the pages
// one under another, each a canvas with its text layer (the text can be selected and searched, and is
// in the page for assistive technology), page navigation (Previous / Next, a page number box) and zoom
// (Zoom out / in, a zoom list: Page width or a percentage). A file pdf.js can't read shows
// "We can't preview this file" with Download, as OneDrive does.
import * as pdfjsLib from "/static/vendor/pdfjs/pdf.min.mjs";

const viewer = document.getElementById("pdf-viewer");
if (viewer) {
  pdfjsLib.GlobalWorkerOptions.workerSrc = "/static/vendor/pdfjs/pdf.worker.min.mjs";
  const pagesBox = viewer.querySelector(".pdf-pages");
  const pageInput = viewer.querySelector("[data-pdf-page]");
  const pageCount = viewer.querySelector("[data-pdf-count]");
  const zoomSelect = viewer.querySelector("[data-pdf-zoom]");
  const STEPS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];
  let pdf = null, scale = 1, generation = 0;
  const fail = () => {
    viewer.querySelector(".pdf-toolbar").hidden = true;
    pagesBox.hidden = true;
    viewer.querySelector(".preview-error").hidden = false;
    viewer.dataset.rendered = "error";
  };
  function fitWidth(page) {
    const box = pagesBox.clientWidth - 32;
    return Math.max(0.25, Math.min(4, box / page.getViewport({ scale: pdfjsLib.PixelsPerInch.PDF_TO_CSS_UNITS }).width));
  }
  async function render() {
    const mine = ++generation;
    viewer.dataset.rendered = "false";
    pagesBox.textContent = "";
    const first = await pdf.getPage(1);
    if (zoomSelect.value === "page-width") scale = fitWidth(first);
    const css = scale * pdfjsLib.PixelsPerInch.PDF_TO_CSS_UNITS;
    const ratio = window.devicePixelRatio || 1;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = n === 1 ? first : await pdf.getPage(n);
      if (mine !== generation) return;
      const viewport = page.getViewport({ scale: css });
      const div = document.createElement("div");
      div.className = "pdf-page";
      div.dataset.page = String(n);
      div.setAttribute("role", "region");
      div.setAttribute("aria-label", `Page ${n}`);
      div.style.setProperty("--scale-factor", css);
      div.style.setProperty("--total-scale-factor", css);
      div.style.setProperty("--user-unit", "1");
      div.style.setProperty("--scale-round-x", "1px");
      div.style.setProperty("--scale-round-y", "1px");
      div.style.width = `${Math.floor(viewport.width)}px`;
      div.style.height = `${Math.floor(viewport.height)}px`;
      const canvas = document.createElement("canvas");
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.style.width = `${Math.floor(viewport.width)}px`;
      canvas.style.height = `${Math.floor(viewport.height)}px`;
      canvas.setAttribute("aria-hidden", "true");
      const text = document.createElement("div");
      text.className = "textLayer";
      div.append(canvas, text);
      pagesBox.append(div);
      await page.render({ canvasContext: canvas.getContext("2d"), viewport, transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : null }).promise;
      await new pdfjsLib.TextLayer({ textContentSource: await page.getTextContent(), container: text, viewport }).render();
      if (mine !== generation) return;
    }
    zoomSelect.querySelector("option[data-current]").textContent = `${Math.round(scale * 100)}%`;
    viewer.dataset.rendered = "true";
  }
  function current() {
    const top = pagesBox.scrollTop + 8;
    let n = 1;
    pagesBox.querySelectorAll(".pdf-page").forEach((p) => { if (p.offsetTop - pagesBox.offsetTop <= top) n = Number(p.dataset.page); });
    return n;
  }
  function go(n) {
    n = Math.max(1, Math.min(pdf.numPages, n));
    const p = pagesBox.querySelector(`.pdf-page[data-page="${n}"]`);
    if (p) pagesBox.scrollTop = p.offsetTop - pagesBox.offsetTop - 8;
    pageInput.value = String(n);
  }
  pagesBox.addEventListener("scroll", () => { if (pdf) pageInput.value = String(current()); });
  viewer.querySelector("[data-pdf-prev]").addEventListener("click", () => go(current() - 1));
  viewer.querySelector("[data-pdf-next]").addEventListener("click", () => go(current() + 1));
  pageInput.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); const n = parseInt(pageInput.value, 10); go(Number.isFinite(n) ? n : current()); } });
  function zoomTo(value) {
    scale = value;
    const custom = zoomSelect.querySelector("option[data-current]");
    custom.value = String(value);
    zoomSelect.value = STEPS.includes(value) ? String(value) : custom.value;
    render();
  }
  viewer.querySelector("[data-pdf-zoom-in]").addEventListener("click", () => zoomTo(STEPS.find((s) => s > scale + 1e-6) || STEPS[STEPS.length - 1]));
  viewer.querySelector("[data-pdf-zoom-out]").addEventListener("click", () => zoomTo([...STEPS].reverse().find((s) => s < scale - 1e-6) || STEPS[0]));
  zoomSelect.addEventListener("change", () => { if (zoomSelect.value === "page-width") render(); else zoomTo(parseFloat(zoomSelect.value)); });
  pdfjsLib.getDocument({ url: viewer.dataset.src, standardFontDataUrl: "/static/vendor/pdfjs/standard_fonts/", isEvalSupported: false, disableFontFace: false })
    .promise.then((doc) => { pdf = doc; pageCount.textContent = String(doc.numPages); pageInput.max = String(doc.numPages); return render(); })
    .catch(fail);
}
