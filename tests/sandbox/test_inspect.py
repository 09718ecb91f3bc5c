"""`sandbox inspect`: the targets an oracle step can use on a page, read from its ARIA snapshot."""

from __future__ import annotations

import pytest

from sandbox.inspect_page import split_url, targets
from sandbox.loop import background_loop

SNAPSHOT = '''
- banner:
  - searchbox "Search"
- main:
  - group "List actions":
    - button "New"
    - button "Delete"
  - table "All Opportunities":
    - rowgroup:
      - row "Acme - Renewal Acme":
        - link "Acme - Renewal"
        - link "Acme"
      - row "Acme - Upgrade Acme":
        - link "Acme - Upgrade"
        - link "Acme"
- dialog "New Opportunity":
  - textbox "Opportunity Name"
  - combobox "Stage"
  - button "Save"
'''


def test_targets_with_containers_and_steps() -> None:
    found = {(t.role, t.name, t.within): t for t in targets(SNAPSHOT)}
    new = found[("button", "New", ("group", "List actions"))]
    assert new.step() == "click: {role: button, name: New, within: {role: group, name: List actions}}"
    acme = found[("link", "Acme", ("table", "All Opportunities"))]
    assert acme.count == 2  # the author must add nth or a narrower within
    name = found[("textbox", "Opportunity Name", ("dialog", "New Opportunity"))]
    assert name.step().startswith("fill: {label: Opportunity Name, within: {role: dialog, name: New Opportunity}}")
    assert found[("combobox", "Stage", ("dialog", "New Opportunity"))].step().startswith("select: {label: Stage")
    assert found[("searchbox", "Search", None)].step().startswith("click: {role: searchbox, name: Search}")


def test_split_url() -> None:
    assert split_url("http://crm.localhost:8765/leads?q=a", ["crm"]) == ("crm", "/leads?q=a")
    assert split_url("crm.localhost/leads", ["crm"]) == ("crm", "/leads")
    assert split_url("crm:/opportunities/3", ["crm"]) == ("crm", "/opportunities/3")
    with pytest.raises(ValueError, match="on no app"):
        split_url("http://example.com/", ["crm"])


@pytest.mark.browser
def test_inspect_a_real_page() -> None:
    from sandbox.inspect_page import inspect

    app, title, found = background_loop().run(inspect("crm:/opportunities", seed=0))
    assert app == "crm" and "Opportunities" in title
    steps = [t.step() for t in found]
    assert "click: {role: button, name: New, within: {role: group, name: List actions}}" in steps
    assert any(t.role == "link" and t.within == ("table", "All Opportunities") for t in found)
