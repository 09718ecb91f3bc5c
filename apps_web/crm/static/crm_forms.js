// CRM record forms: picking an opportunity stage fills in the stage's default probability, as
// Salesforce does. Loaded once per page even if several forms include it.
(function () {
  "use strict";
  if (window.CRMForms) return;
  window.CRMForms = true;
  document.addEventListener("change", (ev) => {
    const select = ev.target.closest("select[data-stage-select]");
    if (!select) return;
    const dialog = select.closest("dialog") || select.closest("form");
    const data = dialog && dialog.querySelector(".stage-probabilities");
    const input = dialog && dialog.querySelector("input[name=probability]");
    if (!data || !input) return;
    const probability = JSON.parse(data.textContent)[select.value];
    if (probability !== undefined) input.value = String(probability);
  });
})();
