"""Word material of the desk generator. Ticket text is assembled from many parts tied to the record
(the CI, the caller, error codes, times, what was tried), so two tickets rarely read alike."""

from __future__ import annotations

SITES = ["Boston HQ", "Chicago office", "Denver office", "Austin office", "London office", "Remote"]
FLOORS = ["2nd floor", "3rd floor", "4th floor", "5th floor", "ground floor", "mezzanine"]

# subcategory -> [(short description, symptom sentence)]. Placeholders: {ci} {app} {host} {db} {err}
# {code} {n} {site} {floor} {printer} {ssid} {vpn} {mins} {os}.
ISSUES: dict[str, list[tuple[str, str]]] = {
    "Antivirus": [
        ("Antivirus quarantined {app} installer", "Defender quarantined the {app} installer as Trojan:Win32/Wacatac.B!ml and the install stops at {n}%."),
        ("Antivirus scan slowing laptop to a crawl", "The scheduled full scan starts every day around 10:00 and CPU sits at 100% for {mins} minutes."),
        ("Threat alert popup on {ci}", "A popup says 'Threat detected: PUA:Win32/Presenoker' and asks me to restart; I don't know what I clicked."),
    ],
    "Email": [
        ("Outlook keeps asking for password", "Outlook prompts for my password every few minutes ('Need password') even after I type it correctly."),
        ("Emails stuck in Outbox", "{n} messages are stuck in the Outbox since {time}; Send/Receive shows error 0x800CCC0F."),
        ("Shared mailbox {mailbox} not visible", "The shared mailbox {mailbox} disappeared from Outlook after the weekend, I need it for customer replies."),
        ("Cannot send attachments larger than 10 MB", "Sending a {n} MB PDF bounces with '552 5.3.4 Message size exceeds fixed maximum message size'."),
        ("Calendar invites not arriving", "Meeting invites from external partners don't show up; the sender got NDR 550 5.7.1."),
        ("Mail not syncing on phone", "My iPhone stopped syncing mail on {date}; it says 'Cannot Get Mail - the connection to the server failed'."),
    ],
    "Internal Application": [
        ("{app} shows error 500 on login", "Logging into {app} returns 'HTTP 500 - Internal Server Error' right after the SSO page."),
        ("{app} report export hangs", "Exporting the monthly report from {app} spins forever; it used to take under a minute."),
        ("Cannot see my team's records in {app}", "Since the reorg I can't see my team's records in {app}; the list says 'No records to display'."),
        ("{app} very slow in the afternoon", "{app} pages take {n} seconds to load between 14:00 and 17:00."),
    ],
    "Password Reset": [
        ("Account locked out after password change", "After changing my password this morning my account locks every {mins} minutes."),
        ("Password expired while travelling", "My password expired while I was at a customer site and the reset portal says 'Your organization requires MFA'."),
        ("MFA app lost with old phone", "I replaced my phone and the Authenticator codes no longer work, I can't sign in to anything."),
        ("Cannot reset password from self-service portal", "The self-service reset page rejects my answers with 'Verification failed (code {code})'."),
    ],
    "Operating System": [
        ("Windows update stuck at {n}% on {ci}", "{ci} has been on 'Working on updates {n}%' since yesterday evening."),
        ("Blue screen on {ci} after update", "{ci} crashes with a blue screen, stop code {bsod}, two or three times a day."),
        ("{ci} boots to BitLocker recovery", "{ci} asks for the BitLocker recovery key at every boot since the BIOS update."),
        ("macOS upgrade failed on {ci}", "The macOS upgrade on {ci} failed with 'An error occurred while preparing the installation'."),
    ],
    "Business Application": [
        ("{app} crashes when opening large files", "{app} closes without an error when I open files over {n} MB."),
        ("License error in {app}", "{app} says 'No license available (error {code})' although I had access last week."),
        ("{app} integration sync failing", "The nightly sync between {app} and the data warehouse failed {n} nights in a row (job status FAILED, exit code {code})."),
        ("Wrong totals in {app} dashboard", "The dashboard in {app} shows totals that don't match the export; off by about {n}%."),
    ],
    "Installation": [
        ("Need {app} installed on {ci}", "I need {app} installed on {ci} for a customer project starting next week."),
        ("{app} installer fails with error {code}", "The {app} installer stops with 'Error {code}: installation package could not be opened'."),
        ("Software Center shows install failed", "Software Center shows 'Failed' for {app} with error 0x87D00607."),
    ],
    "CPU": [
        ("{ci} running hot and fans loud", "{ci} fans run at full speed and the CPU is at 95C even when idle."),
        ("{ci} freezes under load", "{ci} freezes whenever I run a build or a large spreadsheet; Task Manager shows CPU at 100%."),
    ],
    "Disk": [
        ("{ci} disk almost full", "{ci} has only {n} MB free on C: and Outlook won't open any more."),
        ("SMART warning on {ci}", "{ci} shows 'SMART hard disk error 301' at startup."),
        ("Disk space alert on {host}", "Monitoring raised a disk alert on {host}: /var at {pct}% used."),
    ],
    "Keyboard": [
        ("Keyboard keys not working on {ci}", "Several keys (E, R and Enter) stopped responding on {ci}'s built-in keyboard."),
        ("Wireless keyboard disconnects", "The wireless keyboard at my desk on the {floor} drops the connection every few minutes."),
    ],
    "Laptop": [
        ("{ci} won't power on", "{ci} doesn't turn on at all, no lights even when plugged in."),
        ("{ci} battery drains in an hour", "{ci}'s battery goes from 100% to 0 in about an hour; battery report shows {pct}% design capacity."),
        ("Cracked screen on {ci}", "I dropped {ci} at the airport and the screen is cracked in the bottom corner."),
        ("{ci} docking station not detected", "{ci} doesn't detect the docking station: no external monitors, no network through the dock."),
    ],
    "Memory": [
        ("{ci} out of memory errors", "{ci} keeps showing 'Your computer is low on memory' with only Chrome and Excel open."),
        ("Memory upgrade request for {ci}", "{ci} has 8 GB RAM and can't cope with the new analytics tools; can we upgrade to 16 GB?"),
    ],
    "Monitor": [
        ("External monitor flickering", "The external monitor at my desk on the {floor} flickers and goes black for a second every minute."),
        ("Second monitor not detected on {ci}", "{ci} no longer detects the second monitor after the driver update."),
    ],
    "Mouse": [
        ("Mouse cursor jumping", "The mouse cursor jumps around the screen on its own; tried another USB port."),
        ("Need a replacement mouse", "My mouse's scroll wheel is broken; need a replacement at the {site}."),
    ],
    "Printer": [
        ("Printer {printer} paper jam error", "{printer} on the {floor} shows 'Paper jam in tray 2' but there is no paper stuck."),
        ("Cannot print to {printer}", "Jobs to {printer} stay in the queue with status 'Error - Printing'."),
        ("{printer} prints blank pages", "{printer} prints blank pages since the toner was replaced."),
        ("Scan to email not working on {printer}", "Scan to email on {printer} fails with 'SMTP authentication error'."),
    ],
    "DHCP": [
        ("No IP address on {floor} network ports", "Wired ports on the {floor} of the {site} give 169.254.x.x addresses; the DHCP scope may be exhausted."),
        ("DHCP scope {pct}% used at {site}", "Monitoring warns that the DHCP scope for the {site} user VLAN is {pct}% used."),
    ],
    "DNS": [
        ("Cannot resolve {fqdn}", "nslookup {fqdn} returns 'Non-existent domain' from the office network, works on mobile data."),
        ("Intranet sites slow to open", "Every internal site takes {n} seconds before it starts loading; DNS lookups seem to time out."),
    ],
    "IP Address": [
        ("IP address conflict on {ci}", "{ci} shows 'Windows has detected an IP address conflict' and loses the network."),
        ("Static IP needed for {host}", "{host} needs a static IP in the server VLAN before go-live on {date}."),
    ],
    "VPN": [
        ("VPN disconnects every {mins} minutes", "GlobalProtect drops every {mins} minutes from home and reconnecting takes a while."),
        ("VPN connects but no internal sites", "VPN shows connected but internal sites and file shares don't load (gateway {vpn})."),
        ("VPN login fails with certificate error", "GlobalProtect says 'Valid client certificate is required' when I try to connect."),
    ],
    "Wireless": [
        ("Wi-Fi drops in meeting rooms", "The {ssid} Wi-Fi drops in the {floor} meeting rooms during video calls."),
        ("Cannot join {ssid} Wi-Fi", "{ci} can't join the {ssid} network: 'Can't connect to this network'."),
        ("Slow Wi-Fi on the {floor}", "Speed test on {ssid} on the {floor} shows {n} Mbps; wired is fine."),
    ],
    "DB2": [
        ("DB2 tablespace full on {db}", "Batch jobs on {db} fail with SQL0289N (unable to allocate new pages in table space)."),
        ("Slow queries on {db}", "Reports against {db} take {mins} minutes instead of seconds since Monday."),
    ],
    "MS SQL Server": [
        ("SQL Server login failures on {db}", "{app} logs 'Login failed for user svc_app (error 18456, state 38)' against {db}."),
        ("{db} transaction log full", "{db} reports error 9002: the transaction log is full due to LOG_BACKUP."),
        ("Deadlocks in {db}", "{app} users get 'Transaction (Process ID {n}) was deadlocked' errors several times an hour."),
    ],
    "Oracle": [
        ("ORA-01653 on {db}", "Inserts into {db} fail with ORA-01653: unable to extend table by 8192 in tablespace USERS."),
        ("{db} listener not responding", "Connections to {db} fail with ORA-12541: TNS:no listener."),
        ("Oracle session limit reached on {db}", "{app} throws ORA-00018: maximum number of sessions exceeded."),
    ],
    "PostgreSQL": [
        ("Replication lag on {db}", "The replica of {db} is {mins} minutes behind the primary; reports show stale data."),
        ("Too many connections on {db}", "{app} fails with 'FATAL: sorry, too many clients already' against {db}."),
        ("Autovacuum not keeping up on {db}", "Table bloat on {db} keeps growing and queries got several times slower."),
    ],
}

OPENINGS = [
    "Hi team,", "Hello,", "Hi,", "Good morning,", "Hi IT,", "", "", "Hello Service Desk,",
]
WHEN = [
    "This started this morning.", "It started after yesterday's update.", "It has happened since {date}.",
    "Happening since I came back from leave.", "First noticed around {time}.", "It's been intermittent for a week.",
    "Colleagues near me have the same problem.", "Only me as far as I know.",
]
TRIED = [
    "I already restarted twice.", "Restarted and logged off/on, no change.", "I haven't tried anything yet.",
    "Tried the self-service fix, it didn't help.", "I followed the KB article but it didn't help.",
]
# What callers say they tried, by category (on top of the generic TRIED).
TRIED_BY: dict[str, list[str]] = {
    "Inquiry / Help": ["Tried the self-service password page first.", "Signed out of every session and back in.", "Tried in a private browser window, same thing."],
    "Software": ["Tried another browser, same result.", "Reinstalled it from Software Center, no change.", "Cleared the app cache and restarted it."],
    "Hardware": ["Unplugged and re-plugged everything.", "Tried another port and another cable.", "Ran the built-in diagnostics; it says nothing is wrong."],
    "Network": ["Switched between Wi-Fi and cable, same on both.", "Rebooted my router at home.", "Colleagues on the same floor see it too."],
    "Database": ["The application team restarted their service, no change.", "Checked the job logs: it fails at the same step every time.", "Reran the job manually and it failed again."],
}
IMPACT = [
    "I have a customer call at {time} and need this working.", "This blocks my month-end work.",
    "Not urgent, I can work around it for now.", "Whole team is affected.",
    "I can't work on anything else until this is fixed.", "Please help when you can.",
    "Quarter close is this week so this is getting urgent.",
]
CUSTOMER = [
    "This affects our work for {account}.", "{account} is waiting on us because of this.",
    "I found this while preparing the {account} renewal.", "Our contact at {account} reported it first.",
]
SIGNOFFS = ["Thanks", "Thank you", "Thanks in advance", "Regards", "Cheers", ""]

# Work notes by kind; placeholders as above plus {group} {agent} {caller}.
TRIAGE_NOTES = [
    "Triaged: {category}/{subcategory}, routing to {group}.",
    "Called {caller} back, reproduced the issue on a screen share.",
    "Checked monitoring for {ci}: {check}.",
    "Confirmed with {caller} by chat; collecting logs.",
    "Related alerts in the last 24h: {n}. Not part of a wider outage.",
    "Asked {caller} for the exact error text and the time it happened.",
]
CHECKS = [
    "no alerts in the last 7 days", "CPU 34%, memory 71%, no errors", "3 warnings in the event log around the time reported",
    "last successful backup last night", "uptime 41 days, pending reboot flag set", "agent last checked in 2 hours ago",
]
PROGRESS_NOTES: dict[str, list[str]] = {
    "Inquiry / Help": ["Reset the user's profile cache and re-signed in.", "Pushed the policy again with gpupdate /force.", "Reviewed the user's group memberships: one access group was missing."],
    "Software": ["Repaired the install from Software Center.", "Collected application logs from %APPDATA%; error repeats at startup.", "Rolled back to the previous build for testing."],
    "Hardware": ["Ran vendor diagnostics: {diag}.", "Booked a desk visit for {day}.", "Swap unit prepared from stock; data backed up to OneDrive."],
    "Network": ["Ran traceroute from the site: packet loss at the distribution switch.", "Checked the switch port: errors on {port}, cleared counters.", "Compared DHCP leases with the switch ARP table."],
    "Database": ["Checked the alert log: {dberr}.", "Added a datafile and watched the job rerun.", "Captured the top SQL by elapsed time for review."],
}
DIAGS = ["memory test passed, disk test failed (error 2000-0142)", "all tests passed", "battery health marked Replace Soon", "fan test failed"]
DBERRS = ["ORA-01653 repeated 14 times overnight", "checkpoint not complete warnings", "no errors in the last 24 hours", "log backups failing since Friday"]
HOLD_NOTES = {
    "Awaiting Caller": "Waiting for {caller} to confirm a time for a remote session.",
    "Awaiting Change": "Fix is scheduled in the next maintenance window with a change request.",
    "Awaiting Problem": "Linked to an open problem investigation; holding until the root cause fix is out.",
    "Awaiting Vendor": "Vendor case opened with {vendor}; waiting for their reply.",
}
VENDORS = ["Dell", "Microsoft", "Oracle", "Cisco", "HP", "Lenovo", "Palo Alto Networks"]
COMMENTS_TO_CALLER = [
    "Hi {caller_first}, we're looking into this and will update you shortly.",
    "Hi {caller_first}, could you send us a screenshot of the error?",
    "Thanks {caller_first}, we have what we need and are working on it.",
    "Hi {caller_first}, can you try again now and let us know if it works?",
    "We've scheduled a technician visit; please keep {ci} with you.",
]
CALLER_REPLIES = [
    "Thanks, that worked.", "Still the same, sorry.", "Screenshot attached to the ticket.", "I'm available after 2 pm today.",
    "Any update on this? It's still happening.",
]
RESOLUTIONS: dict[str, list[str]] = {
    "Solution provided": ["Fixed: {fix}. {caller_first} confirmed it works.", "{fix}; verified with {caller_first}."],
    "Workaround provided": ["Workaround: {fix}. Permanent fix tracked separately.", "Provided a workaround ({fix}); caller is unblocked."],
    "Resolved by caller": ["Caller reports it started working after a restart.", "{caller_first} fixed it themselves by following the KB article."],
    "User error": ["Walked {caller_first} through the right steps; no fault found.", "Setting was changed by the user; reverted and explained."],
    "Duplicate": ["Duplicate of an earlier incident for the same issue; following up there."],
    "Known error": ["Known error; the published workaround was applied."],
    "Resolved by change": ["Fixed by the change deployed in last night's maintenance window."],
    "Resolved by problem": ["Root cause fixed under the related problem; confirmed resolved."],
    "Resolved by request": ["Fulfilled through a catalog request instead."],
    "No resolution provided": ["No response from caller after three attempts; resolving."],
}
FIXES: dict[str, list[str]] = {
    "Inquiry / Help": ["reset the password and re-registered MFA", "cleared cached credentials", "added the missing access group", "re-enabled real-time protection and released the file"],
    "Software": ["repaired the Office install", "reinstalled {app}", "re-assigned the license", "rebuilt the mail profile", "restarted the integration job"],
    "Hardware": ["replaced the battery", "swapped the keyboard", "updated the dock firmware", "replaced the unit from stock", "reseated the RAM"],
    "Network": ["released and renewed the lease after widening the scope", "corrected the DNS record", "moved the port to the right VLAN", "renewed the VPN client certificate", "rebooted the access point"],
    "Database": ["extended the tablespace", "restarted the listener", "raised the session limit and recycled the pool", "fixed log backups and shrank the log", "reindexed the bloated tables"],
}

APP_NAMES = [
    "Workday", "SAP Concur", "ServiceNow Portal", "Salesforce", "Tableau", "Power BI", "Jira", "Confluence", "Slack",
    "Zoom", "Microsoft Teams", "Adobe Acrobat", "DocuSign", "NetSuite", "Coupa", "Okta", "GitHub", "Figma",
    "AutoCAD", "MATLAB", "Visio", "Project Online", "Box", "Zendesk", "HubSpot", "Greenhouse", "Gong", "Outlook",
]
INTERNAL_APPS = ["Order Portal", "Pricing Engine", "Partner Extranet", "Field Service App", "Billing Gateway", "Data Warehouse", "Telemetry Pipeline", "HR Self-Service"]
LAPTOPS = [("Dell", "Latitude 7440"), ("Dell", "Latitude 5540"), ("Lenovo", "ThinkPad T14 Gen 4"), ("Lenovo", "ThinkPad X1 Carbon Gen 11"), ("Apple", "MacBook Pro 14 M3"), ("Apple", "MacBook Air 13 M2"), ("HP", "EliteBook 840 G10")]
SERVERS = [("Dell", "PowerEdge R750"), ("Dell", "PowerEdge R650"), ("HPE", "ProLiant DL380 Gen10"), ("Cisco", "UCS C220 M6"), ("VMware", "Virtual Machine")]
SERVER_OS = ["Red Hat Enterprise Linux 9", "Red Hat Enterprise Linux 8", "Ubuntu 22.04 LTS", "Windows Server 2022", "Windows Server 2019"]
LAPTOP_OS = {"Apple": "macOS Sonoma 14", "Dell": "Windows 11 Enterprise", "Lenovo": "Windows 11 Enterprise", "HP": "Windows 11 Enterprise"}
NETWORK = [("Cisco", "Catalyst 9300", "sw"), ("Cisco", "ISR 4451", "rtr"), ("Aruba", "AP-535", "ap"), ("Palo Alto Networks", "PA-3220", "fw")]
PRINTERS = [("HP", "LaserJet Enterprise M611"), ("Canon", "imageRUNNER ADVANCE C5840i"), ("Xerox", "VersaLink C7025")]
DB_ENGINES = {"Oracle": "ora", "MS SQL Server": "sql", "PostgreSQL": "pg", "DB2": "db2"}
SERVER_ROLES = ["app", "web", "batch", "file", "mq", "etl", "ad", "mail", "proxy", "jump"]
BSODS = ["IRQL_NOT_LESS_OR_EQUAL", "KERNEL_SECURITY_CHECK_FAILURE", "DRIVER_POWER_STATE_FAILURE", "PAGE_FAULT_IN_NONPAGED_AREA"]
SSIDS = ["CORP-SECURE", "CORP-GUEST", "CORP-IOT"]
MAILBOXES = ["support@", "orders@", "billing@", "renewals@", "partners@"]
