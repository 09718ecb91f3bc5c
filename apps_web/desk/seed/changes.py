"""Change requests (CHG0030001...): four months of past changes and six weeks of planned ones on the
company's servers, databases, applications and network gear, mostly in the maintenance windows of
the Company Protocols (Tuesday and Thursday, 20:00-23:59), with CAB approvals by the assignment
group's manager. A few planned changes overlap another change on the same CI (conflicts)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from ...world.seeding import SeedContext
from ..models import Approval, ChangeRequest, Journal
from .base import fill, insert
from .people import Staff

FIRST_NUMBER = 30001
WINDOW_DAYS = (1, 3)  # Tuesday, Thursday (Monday = 0)
WINDOW_START, WINDOW_END = 20, 24  # 20:00 to 23:59

# class of CI -> (change category, group)
OWNERS = {"Server": ("Hardware", "Hardware"), "Database": ("Database", "Database"), "Application": ("Software", "Application Support"),
          "Network Gear": ("Network", "Network")}
# category -> (short, description, implementation plan, backout plan, test plan)
TEXTS: dict[str, list[tuple[str, str, str, str, str]]] = {
    "Hardware": [
        ("Replace failed disk in {ci}", "The RAID controller of {ci} reports a predictive failure on disk {n}. Replace it before it fails.",
         "1. Confirm the failed disk's bay from the controller log.\n2. Hot-swap the disk.\n3. Watch the rebuild start.",
         "Re-insert the original disk and leave the array degraded until the vendor sends another part.", "Controller shows the array Optimal after the rebuild; no new alerts in monitoring."),
        ("Firmware update {ver} on {ci}", "The vendor's firmware {ver} fixes the fan-speed bug that raised temperature alerts on {ci}.",
         "1. Drain workloads from {ci}.\n2. Apply firmware {ver} from the management console.\n3. Reboot and return to service.",
         "Roll back to the previous firmware image kept on the management controller.", "Temperatures stay under 70 C for an hour; services respond on {ci}."),
        ("Add 64 GB of memory to {ci}", "Memory use on {ci} stays above {pct}% at peak; add two 32 GB modules.",
         "1. Shut down {ci} cleanly.\n2. Install the modules in the free slots.\n3. Boot and check the POST memory count.",
         "Remove the new modules and boot with the original configuration.", "The OS sees the new memory; the application's health check passes."),
    ],
    "Database": [
        ("Apply quarterly patch set to {ci}", "Security patch set {ver} for {ci}, as required by the quarterly patching calendar.",
         "1. Take a full backup of {ci}.\n2. Stop the listener.\n3. Apply patch set {ver}.\n4. Run the post-install scripts.\n5. Start the listener.",
         "Restore from the backup taken in step 1 and roll back the patch with the vendor's rollback script.", "Connect from the finance and CRM applications; run the smoke queries; check the alert log."),
        ("Increase session limit on {ci}", "Month-end close hits the session limit on {ci}; raise it from 300 to 450.",
         "1. Change the sessions parameter.\n2. Restart the instance in the window.", "Set the parameter back to 300 and restart.",
         "Open 400 test sessions with the load script; reports run during the test."),
        ("Move {ci} backups to the backup network", "Backups of {ci} overrun into business hours; route them over the dedicated backup network.",
         "1. Add the backup interface.\n2. Point the backup job at it.\n3. Run one incremental backup.", "Point the job back at the production interface.",
         "The incremental finishes; production traffic is unaffected during the run."),
    ],
    "Software": [
        ("Upgrade {ci} to version {ver}", "Version {ver} of {ci} brings the fixes for the export crash and the SSO certificate handling.",
         "1. Announce the outage to users.\n2. Stop the application servers.\n3. Deploy {ver}.\n4. Run database migrations.\n5. Start the servers.",
         "Redeploy the previous version and restore the database snapshot taken before the migrations.", "Sign in with SSO; open, edit and export a record; check the error log is clean."),
        ("Rotate the SAML signing certificate of {ci}", "The signing certificate of {ci} expires in {n} days.",
         "1. Upload the new certificate to the identity provider.\n2. Upload it to {ci}.\n3. Switch the active certificate.",
         "Switch the active certificate back to the old one (valid until its expiry).", "Sign in as three test users from different departments."),
        ("Enable the new reporting module in {ci}", "Finance asked for the new reporting module of {ci} before the quarter closes.",
         "1. Enable the module in the admin console.\n2. Grant the Finance Reports role.\n3. Publish the standard reports.",
         "Disable the module; the role has no effect without it.", "A finance user opens the three standard reports; numbers match the old reports."),
    ],
    "Network": [
        ("Replace the uplink of {ci}", "The uplink of {ci} shows CRC errors; replace the optic and the patch lead.",
         "1. Fail traffic over to the secondary link.\n2. Replace the optic and lead.\n3. Fail back.", "Leave traffic on the secondary link and re-open the vendor case.",
         "No CRC errors for 30 minutes; ping loss under 0.1%."),
        ("Upgrade {ci} to {ver}", "Software {ver} on {ci} fixes the memory leak that caused the last two reloads.",
         "1. Save the running configuration.\n2. Load {ver}.\n3. Reload during the window.", "Boot the previous image kept on flash and restore the saved configuration.",
         "Routing neighbours up; VPN and wireless users can connect."),
        ("Add VLAN {n} for the new meeting rooms on {ci}", "Facilities are fitting out new meeting rooms; they need their own VLAN on {ci}.",
         "1. Create VLAN {n}.\n2. Add it to the trunk ports.\n3. Add the DHCP scope.", "Remove the VLAN from the trunks and delete it.",
         "A laptop in a meeting room gets an address in the new scope and reaches the intranet."),
    ],
}
VERSIONS = ["4.2.1", "5.0.3", "19.21", "12.1.4", "2026.1", "8.4.0", "17.6"]


def number(n: int) -> str:
    return f"CHG{FIRST_NUMBER + n - 1:07d}"


def next_window(rng: random.Random, after: datetime) -> tuple[datetime, datetime]:
    """A slot inside the next maintenance window on or after ``after``."""
    day = after.replace(hour=0, minute=0, second=0, microsecond=0)
    while day.weekday() not in WINDOW_DAYS or day + timedelta(hours=WINDOW_START) < after:
        day += timedelta(days=1)
    start = day + timedelta(hours=WINDOW_START, minutes=rng.choice([0, 0, 0, 30, 60]))
    end = start + timedelta(hours=rng.choice([1, 1.5, 2, 2, 3]))
    return start, min(end, day + timedelta(hours=23, minutes=59))


def seed_changes(ctx: SeedContext, staff: Staff, cis_by_class: dict[str, list[dict]]) -> None:
    rng = ctx.random("desk.changes")
    now = ctx.clock.now
    targets = [c for cls in OWNERS for c in cis_by_class.get(cls, []) if c.get("environment") in (None, "Production")]
    targets.sort(key=lambda c: c["id"])
    hot = rng.sample(targets, min(12, len(targets)))  # CIs that change often (and so can conflict)
    n = 150 * ctx.scale
    plans = []
    for _ in range(n):
        start_at = now + timedelta(days=rng.uniform(-115, 42))
        plans.append(start_at)
    plans.sort()
    changes, approvals, notes = [], [], []
    conflicts_left = 5 * ctx.scale
    for k, planned in enumerate(plans, start=1):
        ci = rng.choice(hot) if rng.random() < 0.35 else rng.choice(targets)
        category, group_name = OWNERS[ci["ci_class"]]
        group = staff.groups[group_name]
        manager = staff.members[group][0]
        ctype = rng.choices(["Normal", "Standard", "Emergency"], [70, 22, 8])[0]
        if ctype == "Emergency":
            start = planned.replace(minute=rng.choice([0, 15, 30, 45]), second=0, microsecond=0)
            end = start + timedelta(hours=rng.choice([1, 2, 3]))
        elif rng.random() < 0.9:
            start, end = next_window(rng, planned)
        else:  # outside the windows (the CAB policy rejects these)
            start = planned.replace(hour=rng.choice([9, 11, 14, 16]), minute=0, second=0, microsecond=0)
            end = start + timedelta(hours=rng.choice([1, 2]))
        vals = {"ci": ci["name"], "ver": rng.choice(VERSIONS), "n": str(rng.randint(2, 60) if category != "Network" else rng.randint(110, 390)),
                "pct": str(rng.randint(86, 97))}
        short, description, impl, backout, test = (fill(rng, t, vals) for t in rng.choice(TEXTS[category]))
        opened = min(start - timedelta(days=rng.randint(3, 21), hours=rng.randint(0, 8)), now - timedelta(hours=rng.randint(2, 48)))
        risk = rng.choices(["High", "Moderate", "Low"], [15, 50, 35])[0] if ctype != "Standard" else "Low"
        if end < now - timedelta(days=3):
            state = rng.choices(["Closed", "Canceled", "Review"], [85, 8, 7] if end > now - timedelta(days=14) else [92, 8, 0])[0]
        elif end < now:
            state = rng.choice(["Review", "Closed"])
        elif start <= now:
            state = "Implement"
        else:
            state = rng.choices(["Scheduled", "Authorize", "Assess", "New"], [55, 20, 15, 10])[0]
            if ctype == "Standard" and state in ("Authorize", "Assess"):
                state = "Scheduled"  # pre-approved: no CAB
        approval = "approved" if ctype == "Standard" or state in ("Scheduled", "Implement", "Review", "Closed") else \
            "requested" if state == "Authorize" else "not requested"
        agent = rng.choice(staff.members[group])
        row = {
            "id": k, "number": number(k), "type": ctype, "state": state, "category": category, "ci_id": ci["id"], "risk": risk,
            "impact": {"High": 1, "Moderate": 2, "Low": 3}[risk], "priority": rng.choice([2, 3, 3, 4, 4]) if ctype != "Emergency" else 1,
            "requested_by_id": rng.choice(staff.members[group]), "assignment_group_id": group,
            "assigned_to_id": agent if state not in ("New",) else None, "opened_at": opened, "start_date": start, "end_date": end,
            "short_description": short[:160], "description": description,
            "justification": rng.choice(["Required by the quarterly patching calendar.", "Fixes the recurring incidents linked in the problem record.",
                                         "Vendor end of support is next quarter.", "Requested by the business owner to meet an audit finding.",
                                         "Capacity: the current limits are reached at peak."]) if ctype != "Standard" else "",
            "implementation_plan": impl, "backout_plan": backout if rng.random() < 0.95 or state in ("Scheduled", "Implement", "Review", "Closed") else "",
            "test_plan": test, "approval": approval, "close_code": None, "close_notes": None, "closed_at": None, "created_at": opened,
        }
        if state in ("New", "Assess") and rng.random() < 0.3:
            row["test_plan"] = ""  # still being planned
        if state == "Closed":
            code = rng.choices(["Successful", "Successful with issues", "Unsuccessful"], [82, 13, 5])[0]
            row.update(close_code=code, closed_at=end + timedelta(hours=rng.randint(2, 60)),
                       close_notes={"Successful": "Implemented as planned; tests passed.", "Successful with issues": "Implemented; the test plan found a minor issue, fixed the next day.",
                                    "Unsuccessful": "Tests failed; backed out as planned. A new change will follow."}[code])
        if state == "Canceled":
            row["closed_at"] = min(start, now - timedelta(hours=1))
        row["updated_at"] = min(row["closed_at"] or max(opened, min(start, now)), now)
        changes.append(row)
        if ctype != "Standard" and state not in ("New", "Assess", "Canceled"):
            asked = opened + timedelta(hours=rng.randint(2, 40))
            decided = asked + timedelta(hours=rng.randint(1, 30))
            done = state != "Authorize"
            approvals.append({"approver_id": manager, "req_item_id": None, "change_id": k, "state": "approved" if done else "requested",
                              "comments": rng.choice(["", "", "OK for the window.", "Approved: plans are complete."]) if done else "",
                              "created_at": min(asked, now), "updated_at": min(decided if done else asked, now)})
            if done:
                notes.append({"table_name": "change_request", "record_id": k, "kind": "work_notes", "author_id": manager,
                              "created_at": min(decided, now), "body": "CAB approved."})
    # Planned changes that overlap another on the same CI: the form warns about them.
    future = [c for c in changes if c["start_date"] > now and c["state"] in ("Scheduled", "Authorize", "Assess", "New")]
    rng.shuffle(future)
    for a, b in zip(future[0::2], future[1::2]):
        if conflicts_left <= 0:
            break
        if a["ci_id"] == b["ci_id"]:
            continue
        b["ci_id"] = a["ci_id"]
        b["start_date"] = a["start_date"] + timedelta(minutes=30)
        b["end_date"] = b["start_date"] + timedelta(hours=1)
        conflicts_left -= 1
    insert(ctx, ChangeRequest, changes)
    insert(ctx, Approval, approvals)
    insert(ctx, Journal, notes)
