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
  // What a press at (x, y) is on, as a person would name it: role and accessible name, its label and
  // named containers (a heuristic: targets.py turns it into an oracle target only once the player's
  // own locator finds exactly that element with it).
  const IMPLICIT = { button: 'button', a: 'link', select: 'combobox', textarea: 'textbox', summary: 'button', option: 'option' };
  const INPUT = { checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', reset: 'button', search: 'searchbox', range: 'slider' };
  const CONTAINER = { dialog: 'dialog', form: 'form', fieldset: 'group', section: 'region', table: 'table', nav: 'navigation' };
  const CONTAINER_ROLES = new Set(['dialog', 'alertdialog', 'form', 'group', 'region', 'table', 'navigation', 'toolbar', 'menu',
    'listbox', 'tablist', 'search', 'complementary']);
  const clean = (text) => (text || '').replace(/\s+/g, ' ').trim();
  const labelledBy = (el) => {
    const ids = el.getAttribute('aria-labelledby');
    return ids ? ids.split(/\s+/).map((id) => document.getElementById(id)?.innerText || '').join(' ') : '';
  };
  // The named containers around an element (nearest first), as candidates for a target's `within`.
  const containers = (el) => {
    const out = [];
    for (let a = el.parentElement; a && out.length < 4; a = a.parentElement) {
      const tag = a.tagName.toLowerCase();
      const role = a.getAttribute('role') || CONTAINER[tag];
      if (!role || !CONTAINER_ROLES.has(role)) continue;
      const name = clean(a.getAttribute('aria-label') || labelledBy(a)
        || (tag === 'fieldset' && a.querySelector(':scope > legend')?.innerText) || (tag === 'table' && a.caption?.innerText));
      if (name) out.push({ role, name: name.slice(0, 80) });
    }
    return out;
  };
  s.target = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    if (!hit) return null;
    const el = hit.closest('button, a[href], input, select, textarea, summary, label, [role], [tabindex]') || hit;
    const tag = el.tagName.toLowerCase();
    const role = el.getAttribute('role') || IMPLICIT[tag] || (tag === 'input' ? (INPUT[el.type] || 'textbox') : null);
    const label = clean((el.labels && el.labels[0] && el.labels[0].innerText) || (tag === 'label' ? el.innerText : ''));
    const name = el.getAttribute('aria-label') || labelledBy(el) || label
      || el.getAttribute('title') || el.getAttribute('placeholder') || (tag === 'input' ? '' : el.innerText) || el.getAttribute('alt') || '';
    return { role, name: clean(name).slice(0, 80), tag, label: label.replace(/\s*\*$/, '').slice(0, 80), containers: containers(el) };
  };
})();
