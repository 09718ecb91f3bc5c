// The merge wizard: choosing a master record selects its value for every field (a field's own radio can then override).
// Delegated from the document and loaded before the form, so a choice made while the page is still loading counts.
document.addEventListener("change", (event) => {
  const radio = event.target;
  if (!radio.matches || !radio.matches("[data-merge-form] input[name=master]")) return;
  radio.form.querySelectorAll(`input[type=radio][data-col="${radio.dataset.col}"]:not([name=master])`).forEach((r) => { r.checked = true; });
});
