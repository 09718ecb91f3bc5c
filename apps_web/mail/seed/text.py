"""Parts that emails are assembled from: greetings, openings, asks, answers, sign-offs and whole-topic
banks, each filled with the records a message is about. A message picks one variant per slot (and
often skips optional slots), so two messages about similar things rarely read alike.
"""

from __future__ import annotations

import random
from datetime import date, datetime
from html import escape

__all__ = ["escape"]

GREETINGS = ["Hi {first},", "Hello {first},", "Hi {first} -", "{first},", "Good morning {first},", "Hey {first},", "Dear {first},", "Hi {first}, hope your week is going well."]
SIGNOFFS = ["Thanks,", "Best,", "Best regards,", "Kind regards,", "Cheers,", "Thank you,", "Many thanks,", "Regards,", "Talk soon,", "All the best,"]

# -- customer deal threads -----------------------------------------------------------------------------
DEAL_SUBJECTS = [
    "{product} proposal for {account}", "Pricing for {qty_units}", "Question about the {product} {kind}",
    "{short_account} / {company}: next steps", "Timeline for the {product} rollout", "{product} - updated quote",
    "Follow-up from our call on {product}", "{short_account} {product} {kind}: paperwork", "Re-scoping the {product} order",
    "Budget approval for {product}", "{product} order form", "Procurement questions - {product}",
]
CUSTOMER_OPENERS = [
    "Thanks for walking us through {product} last week.", "Following up on our call about the {product} {kind}.",
    "I shared your proposal with {colleague_role} and have a few follow-ups.", "Quick update from our side on {product}.",
    "We finished the internal review of the {product} proposal.", "Apologies for the slow reply, it has been a busy quarter-end here.",
    "I'm picking this up from {colleague_first} while they're out.", "Our steering committee met yesterday and {product} was on the agenda.",
]
CUSTOMER_TIMELINE = [
    "We are still aiming to have everything signed by {close_date}.", "Our target remains {close_date} for signature.",
    "Procurement expects to issue the PO before {close_date}.", "If all goes well, legal can sign off by {close_date}.",
    "{close_date} is still realistic on our side, as long as the security review doesn't slip.",
    "We'd like to close this out by {close_date} so we can start in the new quarter.",
]
CUSTOMER_ASKS = [
    "Could you confirm whether the {qty_units} includes onboarding?", "Can you send over the updated order form?",
    "Is there any flexibility on payment terms (net 60 instead of net 30)?", "Who on your side will lead implementation?",
    "Can you share a customer reference in {industry}?", "Could we get a breakdown of the one-time versus recurring costs?",
    "What does the support SLA look like for priority 1 issues?", "Do you have a SOC 2 report we can share with our security team?",
    "Could we phase the rollout over two quarters?", "Is the pricing valid if we sign a few weeks later than planned?",
    "Can we add two more admin users at no charge?", "Would you be able to join a call with our CFO on {weekday}?",
]
CUSTOMER_CONCERNS = [
    "Our finance team flagged the total as above what they had budgeted.", "{colleague_role} wants to see the data residency terms before we proceed.",
    "We had a similar project stall two years ago, so the team is cautious.", "The renewal of our current vendor contract comes up in the same month.",
    "IT asked whether the integration with our ERP is covered in the scope.", "There is some pressure to consolidate vendors this year.",
]
REP_OPENERS = [
    "Thanks for the quick turnaround, {first}.", "Great to hear from you.", "Thanks for the update on your side.",
    "Appreciate you sharing the feedback from the committee.", "Thanks for getting back to me.", "Good questions - answers below.",
]
REP_FACTS = [
    "The proposal covers {qty_units} at a total of {amount}.", "As discussed, the total for {qty_units} comes to {amount}.",
    "I've attached the revised quote: {amount} for {qty_units}, valid through {close_date}.",
    "Pricing stays at {amount} for the full scope; that includes the first year of standard support.",
]
REP_ANSWERS = [
    "Onboarding is included for the first 30 days, with a named implementation lead.", "I've asked our finance team about net 60; I should have an answer by {weekday}.",
    "{owner_first} from our solutions team will lead implementation, and I'll stay your main contact.", "Our SOC 2 Type II report is available under NDA; I'll send the NDA separately.",
    "A phased rollout works well for us: phase one in the first quarter, the remainder after the pilot review.",
    "Priority 1 issues get a one-hour response, around the clock.", "I can set up a reference call with another customer in {industry}.",
    "Two additional admin users are fine at no extra charge.",
]
REP_NEXT = [
    "Next step on our side: {next_step}.", "Proposed next step: {next_step}.", "To keep us on track for {close_date}, I suggest: {next_step}.",
    "Let me know if {weekday} works for the next call.", "I'll follow up on {weekday} unless I hear from you before.",
]
ASK_AMOUNT = [
    "Before I take this to our CFO: can you remind me what the total for the {product} {kind} came to? I can't find the last quote.",
    "Our finance team needs the final total for {qty_units} for their budget sheet. Could you send me the figure?",
    "Could you confirm the total amount we agreed for the {product} order? I need to enter it into our procurement system today.",
    "I'm preparing the approval request on our side. What is the total value of the {product} deal as it stands?",
]
PUSH_DATE = [
    "Unfortunately our legal review is running late, so we won't be able to sign by {old_date}. The new target is {new_date}.",
    "Heads-up: procurement moved our signing window. Please plan for {new_date} instead of {old_date}.",
    "Our board meeting got rescheduled, so signature for {product} will now be {new_date} rather than {old_date}.",
]

# -- customer service threads --------------------------------------------------------------------------
CASE_OPENERS = [
    "We are seeing a problem and need your help: {subject}.", "I'd like to report an issue: {subject}.",
    "Since this morning we have the following problem: {subject}.", "Following up on case {case_number} ({subject}).",
    "Our users are affected by this: {subject}.", "Could someone look into this urgently? {subject}.",
]
CASE_DETAILS = [
    "It affects about {n} users in our {city} office.", "We first noticed it on {weekday} around {hour}.",
    "Restarting the service did not help.", "Screenshots of the error are attached.", "This is blocking our month-end reporting.",
    "It only happens for users who signed in through SSO.", "We already checked the network on our side.",
    "The problem started right after the latest update.", "We can reproduce it every time with the steps in the attached log.",
]
AGENT_REPLIES = [
    "Thanks for reporting this. I've logged it as case {case_number} and I'm looking into it now.",
    "I've reproduced the issue on our side and escalated it to engineering under case {case_number}.",
    "Could you send us the log files from the affected machines? That will help us narrow it down.",
    "A fix is scheduled for the next maintenance release; in the meantime, the workaround below should help.",
    "We rolled out a configuration change this afternoon. Could you check whether the problem persists?",
    "I'm closing the loop on case {case_number}: the root cause was a certificate that expired on our side.",
]
WORKAROUNDS = [
    "Workaround: clear the local cache and sign in again.", "Workaround: run the sync manually from the admin console.",
    "Workaround: downgrade the gateway firmware to the previous version.", "Workaround: use the web client until the fix ships.",
]

# -- internal pipeline and approvals --------------------------------------------------------------------
PIPELINE_SUBJECTS = [
    "{short_account} - status?", "Forecast: {opp}", "Can we pull {short_account} into this quarter?", "Deal review: {short_account}",
    "{short_account} risk", "Help needed on {short_account}", "Commit call prep - {short_account}",
]
MANAGER_ASKS = [
    "Where are we on {opp}? It's in your commit for this quarter.", "What's the latest on {short_account}? The CRM still shows {stage}.",
    "Is {close_date} still realistic for {short_account}?", "Anything you need from me to get {short_account} over the line?",
    "Please update the next step on {opp} before the forecast call.", "Can you walk me through {short_account} in our 1:1?",
]
REP_STATUS = [
    "Still on track for {close_date}. {contact_first} confirmed the budget is approved.", "Slight risk: legal is reviewing the MSA and it could slip a week.",
    "They asked for a reference in {industry}; once that's done I expect the order form.", "Pricing is the blocker. They're comparing us against a cheaper competitor.",
    "We're at {stage}. Next step is {next_step}.", "I'd keep it at {stage} for now; {contact_first} is on holiday until {weekday}.",
]
DISCOUNT_ASK = [
    "Requesting approval for a {pct}% discount on {opp} (list {amount}). {contact_first} says it's the last thing holding up signature.",
    "Could you approve {pct}% off for {short_account}? The deal is {amount} and they committed to a three-year term if we can do it.",
    "{short_account} is asking for {pct}% off the {amount} quote. I think {half_pct}% would close it - do I have your OK?",
]
DISCOUNT_ANSWER = [
    "Approved at {pct}%. Please note the approval on the opportunity.", "I can approve {half_pct}%, not {pct}%. Anything beyond that goes to finance.",
    "Approved, but only with the three-year term in writing.", "Not yet - let's talk after the forecast call. I want to understand the competition first.",
]

# -- IT, announcements, newsletters ---------------------------------------------------------------------
IT_NOTICES = [
    ("Your password expires in {days} days", "Your network password will expire on {date}. Change it from the self-service portal before then to avoid being locked out."),
    ("Scheduled maintenance: {system} on {date}", "{system} will be unavailable on {date} from {hour} for about {hours} hours while we apply updates. Save your work before the window starts."),
    ("New sign-in to your account", "We noticed a new sign-in to your account from {device} in {city} on {date}. If this was you, no action is needed. If not, reset your password and contact IT."),
    ("Your laptop is due for replacement", "Our records show your laptop (asset {asset}) is over three years old. Book a swap slot on {date} or later from the IT portal."),
    ("Action required: complete security training by {date}", "The annual security awareness course takes about {minutes} minutes. Completion is tracked and reported to managers after {date}."),
    ("Mailbox almost full", "Your mailbox is at {pct}% of its quota. Archive or delete older items to keep receiving mail."),
    ("VPN client update", "A new version of the VPN client ({version}) will be pushed to your device on {date}. Restart when prompted."),
]
SYSTEMS = ["the expense system", "the CRM", "the VPN", "the file server", "the intranet", "email", "the HR portal", "the build servers"]
DEVICES = ["Windows 11 (Edge)", "macOS (Safari)", "iPhone (Outlook)", "Android (Outlook)", "Linux (Firefox)"]
ANNOUNCEMENTS = [
    ("All-hands on {date}", "Join us for the quarterly all-hands on {date} at {hour} in the main auditorium (and online). {exec_first} will cover the results of the quarter and the plan for the next one."),
    ("Office closed on {date}", "The office will be closed on {date} for building maintenance. Please work from home that day."),
    ("Open enrollment for benefits ends {date}", "Review your health, dental and vision choices in the HR portal before {date}. Changes after that need a qualifying life event."),
    ("Welcome our new team members", "Please welcome {names} who joined us this month. Say hello when you see them around."),
    ("Q{q} kickoff agenda", "The kickoff agenda is attached. Highlights: product roadmap, territory changes and the new deal desk process."),
    ("Expense policy update", "From {date}, meals over $75 per person need pre-approval from your manager. The full policy is on the intranet."),
]
NEWSLETTERS = [
    ("SaaS Sales Weekly", "news@saassalesweekly.example.net", ["pipeline hygiene", "discounting discipline", "multi-threading deals", "renewal playbooks", "forecast accuracy", "cold outreach"]),
    ("IndustryWatch", "digest@industrywatch.example.org", ["supply chain", "edge computing", "data privacy rules", "AI in operations", "IoT security", "cloud costs"]),
    ("The Support Desk", "editor@thesupportdesk.example.com", ["first-contact resolution", "SLA design", "knowledge bases", "customer empathy", "escalation paths", "CSAT surveys"]),
    ("Travel Deals Hub", "offers@traveldealshub.example.com", ["weekend getaways", "business class upgrades", "hotel loyalty", "rail passes", "airport lounges"]),
    ("CloudOps Digest", "hello@cloudopsdigest.example.io", ["Kubernetes upgrades", "incident reviews", "observability", "cost allocation", "zero trust"]),
]
NEWS_ANGLES = [
    "Five lessons on {topic} from teams that doubled their numbers", "Why it is time to revisit {topic}", "The {topic} checklist we wish we had",
    "Reader question: how do you handle {topic}?", "{topic}: what the latest survey says", "A practical guide to {topic}",
]
NEWS_LINES = [
    "{pct}% of the teams we surveyed changed their approach to {topic} in the last year.", "Our guest this week explains how a {size}-person team rethought {topic}.",
    "Plus: three tools worth a look and one to avoid.", "The webinar recording is now available to subscribers.",
    "Next week: a deep dive into {topic2}.", "Unsubscribe or manage your preferences at any time.",
]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
COLLEAGUE_ROLES = ["our CFO", "our head of IT", "procurement", "our legal team", "the project sponsor", "our COO", "the security team"]


def fmt_day(d: date | datetime) -> str:
    return f"{d:%B} {d.day}, {d.year}"


def fill(rng: random.Random, options: list[str], **values: object) -> str:
    return rng.choice(options).format(**values)


def paragraphs(parts: list[str]) -> str:
    return "".join(f"<p>{escape(p)}</p>" for p in parts if p)


def signature(name: str, title: str, company: str, phone: str) -> str:
    lines = [escape(name)] + [escape(x) for x in (title and f"{title} | {company}" or company, phone) if x]
    return '<p class="signature">' + "<br>".join(lines) + "</p>"

RECAP_OPENERS = [
    "Thanks for the time today. A short recap of what we discussed:", "Great call earlier - here are my notes so we're aligned:",
    "Summary of today's meeting, for everyone's reference:", "Recap of our session on {product}:",
]
RECAP_POINTS = [
    "Scope: {qty_units}, as in the current proposal.", "Target signature date: {close_date}.", "Decision makers: {contact_name} and {colleague_role}.",
    "Open question: integration with the existing {industry} systems.", "Your team will confirm the number of admin users.",
    "We will share the implementation plan and a draft timeline.", "Budget: {contact_first} confirmed funds are set aside for this year.",
]
HEADSUP = [
    "Heads-up: {account} has a {priority} priority case open with us ({case_number}: {subject}). You may hear about it on your next call.",
    "FYI, {contact_name} from {account} escalated case {case_number} ({subject}) this week. We're on it, but it's worth knowing before you talk pricing.",
    "Just so you know, case {case_number} for {account} is still {status}. The customer is frustrated: {subject}.",
]
HEADSUP_REPLY = [
    "Thanks for the heads-up. Keep me posted - I'm talking to them on {weekday}.", "Appreciate it. Can you let me know once there's a fix?",
    "Good to know. I'll mention we're on it when I see {contact_first}.", "Thanks! Please loop me in if it gets escalated further.",
]
TEAM_UPDATE = [
    "Open pipeline for the team stands at {pipeline} across {n_open} opportunities.", "We closed {won} deals worth {won_amount} so far this quarter.",
    "Biggest deal in play: {big_opp} ({big_amount}), closing {big_close}.", "Reminder: update close dates and next steps before Thursday's forecast call.",
    "Please log every customer call in the CRM; we'll review activity in our 1:1s.", "Welcome back to everyone who was out last week.",
]
INVOICE_LINES = [
    "Invoice {invoice} for {account} ({amount}) was sent on {date}.", "Payment terms are net 30; the due date is {due}.",
    "Their accounts payable team asked for the PO number to be added. Can you confirm it with your contact?",
    "Could you let the customer know the invoice is out?",
]
