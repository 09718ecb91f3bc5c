// The merge wizard: choosing a master record selects its value for every field (a field's own radio can then override).
document.querySelectorAll("[data-merge-form] input[name=master]").forEach((radio) => {
  radio.addEventListener("change", () => {
    const col = radio.dataset.col;
    radio.form.querySelectorAll(`input[type=radio][data-col="${col}"]:not([name=master])`).forEach((r) => { r.checked = true; });
  });
});
