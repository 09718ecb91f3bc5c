// Installed by the studio in every page of a recorded episode. It only observes (non-enumerable
// global, no DOM changes): it counts DOM mutations and tells whether hovering revealed something,
// so that a resting pointer becomes a `mouse_move` step only where the hover mattered.
(() => {
  if (window.__sbxStudio) return;
  const s = { mutations: 0, seen: 0, rules: null };
  Object.defineProperty(window, '__sbxStudio', { value: s, enumerable: false });
  const observe = () => new MutationObserver((records) => { s.mutations += records.length; })
    .observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.documentElement) observe(); else document.addEventListener('DOMContentLoaded', observe);
  // Style rules that show or hide things on :hover (menus, pencils), not mere colour changes.
  const REVEAL = /(^|;)\s*(display|visibility|opacity|max-height|height|width|transform|clip|clip-path|overflow)\s*:/;
  const hoverRules = () => {
    if (s.rules) return s.rules;
    const rules = [];
    const walk = (list) => {
      for (const rule of list) {
        if (rule.cssRules && !rule.selectorText) walk(rule.cssRules);  // @media, @supports
        else if (rule.selectorText && rule.selectorText.includes(':hover') && REVEAL.test(rule.style.cssText)) rules.push(rule.selectorText);
      }
    };
    for (const sheet of document.styleSheets) {
      try { walk(sheet.cssRules); } catch (e) { /* a cross-origin sheet */ }
    }
    return (s.rules = rules);
  };
  // Whether the pointer's rest changed the page: DOM mutations since the last mark, or a
  // hover-reveal style rule that now applies.
  s.hoverMatters = () => {
    const mutated = s.mutations !== s.seen;
    s.seen = s.mutations;
    if (mutated) return true;
    for (const sel of hoverRules()) {
      try { if (document.querySelector(sel)) return true; } catch (e) { /* a selector this engine rejects */ }
    }
    return false;
  };
  s.mark = () => { s.seen = s.mutations; };
})();
