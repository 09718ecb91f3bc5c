"""Problems (PRB0040001...): recurring incidents on the same configuration item or subcategory become a
problem with a statement, a workaround and, as the analysis goes on, cause and fix notes. A few are
closed as duplicates of another. The incidents they explain are linked to them (``problem_id``)."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from sqlalchemy import bindparam, update

from ...world.seeding import SeedContext
from ..choices import priority_of
from ..models import Incident, Journal, Problem
from .base import fill, insert
from .people import Staff

FIRST_NUMBER = 40001

# Per category: (statement, description, cause, workaround, fix); {ci}, {n}, {sub}, {vendor}, {ver} are filled in.
TEXTS: dict[str, list[tuple[str, str, str, str, str]]] = {
    "Network": [
        ("Intermittent packet loss on {ci} during business hours",
         "{n} incidents in three weeks report dropped calls and slow file shares behind {ci}. Loss peaks between 10:00 and 11:30.",
         "The uplink port runs at 100 Mb/s after an auto-negotiation mismatch; its error counters climb with traffic.",
         "Move heavy users to the secondary access switch; ask callers to retry uploads outside 10:00-11:30.",
         "Hard-set speed and duplex on both ends of the uplink and replace the patch lead."),
        ("VPN sessions drop every 60 minutes for remote staff",
         "Remote users lose their VPN tunnel on the hour and must sign in again. {n} incidents so far, mostly from home workers.",
         "The IKE rekey lifetime on the concentrator differs from the client profile pushed in the last policy update.",
         "Reconnect with the 'Full tunnel (legacy)' profile, which keeps the old lifetime.",
         "Align the rekey lifetime in the client profile with the concentrator ({ver}) and push the profile."),
        ("DHCP scope exhaustion on the {sub} segment",
         "Laptops get a 169.254 address on Monday mornings. {n} related incidents; the scope shows 100% leased.",
         "Lease time of 8 days on a guest-sized scope; visitors' devices keep their leases long after they leave.",
         "Release stale leases by hand from the DHCP console when the scope passes 95%.",
         "Split the scope, shorten leases to 8 hours and add monitoring of scope usage."),
        ("DNS lookups for internal names time out from {ci}",
         "Internal names fail to resolve for a few seconds at a time; external names work. Seen in {n} incidents.",
         "One of the two forwarders was decommissioned but is still listed first on the resolver.",
         "Use the fully qualified name with the second resolver, or flush the cache and retry.",
         "Remove the retired forwarder from the resolver configuration and the DHCP options."),
    ],
    "Database": [
        ("{ci} runs out of sessions at month-end close",
         "Finance reports fail with connection errors during the close. {n} incidents in the last two closes.",
         "The reporting pool opens a new session per query and never returns it; the limit of 300 sessions is hit.",
         "Restart the reporting service during the close when active sessions pass 280.",
         "Patch the reporting service to reuse pooled connections and raise the limit to 450."),
        ("Nightly backup of {ci} overruns into business hours",
         "The backup window ends after 08:00 and slows queries for the first hour of the day. {n} incidents raised.",
         "Table growth of 40% since spring; the full backup still runs every night instead of incrementals.",
         "Start heavy reports after 09:00 until the backup finishes.",
         "Switch to weekly full and nightly incremental backups, and move the job to the dedicated backup network."),
        ("Slow queries on {ci} after the statistics job was disabled",
         "Screens that list orders take 20-40 seconds. {n} incidents from sales and finance.",
         "The automatic statistics job was disabled during a maintenance in {month} and never re-enabled.",
         "Run a manual statistics refresh on the order tables when complaints start.",
         "Re-enable the statistics job and alert when it has not run for 24 hours."),
        ("Replication lag on {ci} causes stale data in reports",
         "Reports show yesterday's figures until late morning. {n} incidents; lag reaches 3 hours.",
         "The replica's disk is on a slower storage tier after a migration.",
         "Read critical figures from the primary through the finance read-only role.",
         "Move the replica back to the fast storage tier."),
    ],
    "Hardware": [
        ("{model} laptops lose Wi-Fi after resuming from sleep",
         "{n} incidents from people with {model} laptops: after sleep, Wi-Fi shows 'No networks' until a restart.",
         "The wireless driver version shipped with the last image does not handle the power-saving state change.",
         "Turn Wi-Fi off and on, or disable 'Allow the computer to turn off this device' in Device Manager.",
         "Deploy the vendor's updated wireless driver through the software center to every {model}."),
        ("Docking stations drop external monitors on {model}",
         "External monitors go black several times a day for {model} users on the USB-C docks. {n} incidents.",
         "Dock firmware older than the version required by the laptop's BIOS.",
         "Unplug and re-plug the USB-C cable; use the HDMI port directly for presentations.",
         "Update dock firmware and laptop BIOS together with the vendor's bundle."),
        ("Batteries of {model} swell after two years",
         "Touchpads lift and lids no longer close on older {model} laptops. {n} incidents; a safety risk.",
         "A battery batch known to the vendor ({vendor}) with a cell defect.",
         "Stop using the laptop on battery; swap it for a loaner from stock.",
         "Replace the batteries of the affected serial range under the vendor's recall."),
    ],
    "Software": [
        ("{ci} crashes when exporting large reports",
         "Exports of more than 50,000 rows close {ci} without an error. {n} incidents across departments.",
         "The 32-bit export module runs out of memory above about 1.8 GB.",
         "Export in smaller date ranges, or use the CSV export which streams rows.",
         "Move users to the 64-bit client and retire the 32-bit export module."),
        ("Single sign-on to {ci} fails after the certificate rotation",
         "Users get 'SAML response signature invalid' when opening {ci}. {n} incidents since the rotation.",
         "The new signing certificate was uploaded to the identity provider but not to {ci}.",
         "Sign in with the local account the application owner gives out for urgent work.",
         "Upload the new signing certificate to {ci} and add the rotation to the certificate calendar."),
        ("{ci} is slow every Monday morning",
         "Pages take 15-30 seconds to load between 08:30 and 10:00 on Mondays. {n} incidents.",
         "A weekly re-index job scheduled for Sunday night runs into Monday because of data growth.",
         "Avoid bulk imports before 10:00 on Mondays.",
         "Move the re-index to Saturday and run it incrementally."),
        ("Outlook search returns no results for mail older than 30 days",
         "Users cannot find older mail with search; the messages are there when scrolling. {n} incidents.",
         "The cached-mode setting pushed by policy limits the local cache to 30 days and search does not fall back to the server.",
         "Use the 'All mailboxes' search scope, which searches on the server.",
         "Change the policy to 12 months of cached mail and rebuild the search index."),
    ],
    "Inquiry / Help": [
        ("Password resets do not reach {ci}",
         "After a self-service password reset, {ci} keeps the old password for hours. {n} incidents.",
         "The directory sync for {ci} runs every 6 hours instead of every 15 minutes since the connector upgrade.",
         "Service Desk triggers a manual sync after a reset.",
         "Restore the 15-minute schedule on the connector and monitor sync delays."),
        ("New starters cannot open {ci} on their first day",
         "{n} onboarding incidents: accounts exist but the application shows 'No licence assigned'.",
         "The licence group is assigned by a script that runs after the start date instead of before.",
         "Assign the licence by hand in the admin console when the ticket arrives.",
         "Run the licence script two working days before the start date."),
    ],
}
VERSIONS = ["4.1.2", "4.2.0", "9.16", "17.3", "2.8.5", "11.0.4"]
VENDORS = ["Dell", "Lenovo", "HP", "Cisco", "Oracle", "Microsoft"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
APP_CATEGORIES = ("Software", "Inquiry / Help")
STATE_WEIGHTS = {"New": 8, "Assess": 10, "Root Cause Analysis": 14, "Fix in Progress": 10, "Resolved": 14, "Closed": 44}


def number(n: int) -> str:
    return f"PRB{FIRST_NUMBER + n - 1:07d}"


def seed_problems(ctx: SeedContext, staff: Staff, incidents: list[dict], cis_by_id: dict[int, dict]) -> None:
    rng = ctx.random("desk.problems")
    now = ctx.clock.now
    # Clusters of incidents with the same CI (or subcategory when there is none).
    clusters: dict[tuple, list[dict]] = defaultdict(list)
    for inc in incidents:
        if inc["state"] == "Canceled":
            continue
        key = (inc["category"], inc["ci_id"] or inc["subcategory"])
        clusters[key].append(inc)
    def fits(key: tuple) -> bool:  # software problems are about an application, not a laptop
        ci = cis_by_id.get(key[1]) if isinstance(key[1], int) else None
        return key[0] in TEXTS and (key[0] not in APP_CATEGORIES or (ci is not None and ci["ci_class"] == "Application"))

    keys = sorted((k for k, v in clusters.items() if len(v) >= 2 and fits(k)), key=lambda k: (-len(clusters[k]), str(k)))
    rng.shuffle(keys)
    # numbered in the order they were opened (after their first incident), like incidents
    keys = sorted(keys[: 60 * ctx.scale], key=lambda k: sorted(i["opened_at"] for i in clusters[k])[1])
    problems, links, notes = [], [], []
    for k, key in enumerate(keys, start=1):
        category, _ = key
        members = sorted(clusters[key], key=lambda i: i["opened_at"])
        linked = members[: rng.randint(2, min(6, len(members)))]
        first = linked[0]
        ci = cis_by_id.get(first["ci_id"]) if first["ci_id"] else None
        vals = {"ci": ci["name"] if ci else first["subcategory"], "n": str(len(linked)), "sub": first["subcategory"],
                "model": (ci.get("model") if ci and ci.get("model") else "Latitude 5440"), "vendor": rng.choice(VENDORS),
                "ver": rng.choice(VERSIONS), "month": rng.choice(MONTHS)}
        statement, description, cause, workaround, fix = (fill(rng, t, vals) for t in rng.choice(TEXTS[category]))
        opened = linked[1]["opened_at"] + timedelta(hours=rng.randint(1, 48))
        opened = min(opened, now - timedelta(hours=1))
        state = rng.choices(list(STATE_WEIGHTS), list(STATE_WEIGHTS.values()))[0]
        group = first["assignment_group_id"] or staff.groups["Service Desk"]
        impact, urgency = rng.choice([1, 2, 2, 3]), rng.choice([1, 2, 2, 3])
        row = {
            "id": k, "number": number(k), "state": state, "category": category, "ci_id": first["ci_id"], "impact": impact, "urgency": urgency,
            "priority": priority_of(impact, urgency), "assignment_group_id": group, "assigned_to_id": None, "opened_by_id": rng.choice(staff.members[group]),
            "opened_at": opened, "first_reported_by_id": first["id"], "short_description": statement[:160],
            "description": f"{description}\n\nFirst reported in {first['number']}.", "workaround": "", "cause_notes": "", "fix_notes": "",
            "resolution_code": None, "duplicate_of_id": None, "resolved_at": None, "closed_at": None, "created_at": opened,
        }
        if state != "New":
            row["assigned_to_id"] = rng.choice(staff.members[group])
            row["workaround"] = workaround
        if state in ("Root Cause Analysis", "Fix in Progress", "Resolved", "Closed"):
            row["cause_notes"] = cause if state != "Root Cause Analysis" else f"Under investigation. Suspected: {cause[0].lower()}{cause[1:]}"
        if state in ("Resolved", "Closed"):
            row["fix_notes"] = fix
            row["resolution_code"] = rng.choices(["Fix Applied", "Risk Accepted"], [85, 15])[0]
            row["resolved_at"] = min(opened + timedelta(days=rng.randint(3, 40)), now - timedelta(hours=2))
            if state == "Closed":
                row["closed_at"] = min(row["resolved_at"] + timedelta(days=rng.randint(1, 10)), now - timedelta(hours=1))
        row["updated_at"] = row["closed_at"] or row["resolved_at"] or min(opened + timedelta(days=rng.randint(0, 10)), now)
        problems.append(row)
        links += [{"b_id": i["id"], "b_problem": k} for i in linked]
        if row["assigned_to_id"]:
            notes.append({"table_name": "problem", "record_id": k, "kind": "work_notes", "author_id": row["assigned_to_id"],
                          "created_at": min(opened + timedelta(hours=rng.randint(1, 30)), now), "body": f"Linked {', '.join(i['number'] for i in linked)}. Workaround published to the Service Desk: {workaround}"})
    # A few problems were raised twice: the later one is closed as a duplicate of the earlier one.
    by_ci: dict[int, list[dict]] = defaultdict(list)
    for p in problems:
        if p["ci_id"]:
            by_ci[p["ci_id"]].append(p)
    candidates = [p for p in problems if p["state"] in ("New", "Assess")]
    for dup in rng.sample(candidates, min(len(candidates), 3 * ctx.scale)):
        originals = [p for p in problems if p["id"] < dup["id"] and p["category"] == dup["category"] and p["resolution_code"] != "Duplicate"]
        if not originals:
            continue
        original = rng.choice(originals)
        dup.update(state="Closed", resolution_code="Duplicate", duplicate_of_id=original["id"], resolved_at=dup["updated_at"], closed_at=dup["updated_at"],
                   assigned_to_id=dup["assigned_to_id"] or rng.choice(staff.members[dup["assignment_group_id"]]), cause_notes="", fix_notes="")
        notes.append({"table_name": "problem", "record_id": dup["id"], "kind": "work_notes", "author_id": dup["assigned_to_id"],
                      "created_at": dup["updated_at"], "body": f"Closed as a duplicate of {original['number']}."})
    insert(ctx, Problem, problems)
    if links:
        ctx.session.execute(update(Incident.__table__).where(Incident.__table__.c.id == bindparam("b_id")).values(problem_id=bindparam("b_problem")), links)
    insert(ctx, Journal, notes)
