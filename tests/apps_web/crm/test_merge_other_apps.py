"""A CRM merge re-points the other apps' references, in real Chromium: after merging two accounts, the
mail messages, chat posts and drive files that named the merged-away account name the master, and its
drive record links move to the master (one link per file). Checked in the database."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import write
from .test_duplicates import seeded_pair


def test_account_merge_repoints_mail_chat_and_drive(fresh, live_host) -> None:
    world, page = fresh
    original, dup = seeded_pair(world)
    mail = [r[0] for r in world.query("SELECT id FROM mail_message ORDER BY id LIMIT 2")]
    chat = world.one("SELECT id FROM chat_message ORDER BY id")[0]
    items = [r[0] for r in world.query("SELECT id FROM drive_item WHERE kind != 'folder' ORDER BY id LIMIT 3")]
    untouched = world.one("SELECT id, crm_account_id FROM mail_message WHERE id NOT IN (?, ?) AND crm_account_id IS NOT NULL"
                          " AND crm_account_id NOT IN (?, ?) ORDER BY id", mail[0], mail[1], original[0], dup[0])
    write(world, f"UPDATE mail_message SET crm_account_id = ? WHERE id IN ({mail[0]}, {mail[1]})", dup[0])
    write(world, "UPDATE chat_message SET crm_account_id = ? WHERE id = ?", dup[0], chat)
    write(world, "UPDATE drive_item SET crm_account_id = ? WHERE id = ?", dup[0], items[0])
    for item, record in ((items[1], dup[0]), (items[2], dup[0]), (items[2], original[0])):  # items[2] is linked to both
        write(world, "INSERT INTO drive_record_link (item_id, app, object_type, record_id) VALUES (?, 'crm', 'account', ?)", item, record)
    page.goto(live_host.url("crm", f"/accounts/{dup[0]}/duplicates"))
    page.get_by_role("checkbox", name=f"Select {original[1]}", exact=True).check()
    page.get_by_role("button", name="Next").click()
    page.get_by_role("radio", name=f"Master Record: {original[1]}", exact=True).check()
    page.get_by_role("button", name="Merge").click()
    expect(page.get_by_role("heading", name=original[1], level=1)).to_be_visible()
    assert world.one("SELECT count(*) FROM crm_account WHERE id = ?", dup[0])[0] == 0
    assert world.query(f"SELECT crm_account_id FROM mail_message WHERE id IN ({mail[0]}, {mail[1]})") == [(original[0],)] * 2
    assert world.one("SELECT crm_account_id FROM chat_message WHERE id = ?", chat)[0] == original[0]
    assert world.one("SELECT crm_account_id FROM drive_item WHERE id = ?", items[0])[0] == original[0]
    links = world.query("SELECT item_id, record_id FROM drive_record_link WHERE app = 'crm' AND object_type = 'account'"
                        f" AND item_id IN ({items[1]}, {items[2]}) ORDER BY item_id")
    assert links == [(items[1], original[0]), (items[2], original[0])]  # one link per file, to the master
    for table in ("mail_message", "chat_message", "drive_item"):
        assert world.one(f"SELECT count(*) FROM {table} WHERE crm_account_id = ?", dup[0])[0] == 0
    assert world.one("SELECT count(*) FROM drive_record_link WHERE object_type = 'account' AND record_id = ?", dup[0])[0] == 0
    if untouched:  # other accounts' references stay
        assert world.one("SELECT crm_account_id FROM mail_message WHERE id = ?", untouched[0])[0] == untouched[1]
    # The master's Files related list shows the files linked to the merged-away account.
    page.goto(live_host.url("crm", f"/accounts/{original[0]}?tab=related"))
    names = [r[0] for r in world.query(f"SELECT name FROM drive_item WHERE id IN ({items[1]}, {items[2]})")]
    files = page.get_by_role("article", name=__import__("re").compile("^Files"))
    for name in names:
        expect(files.get_by_text(name, exact=False).first).to_be_visible()
