"""The words of the calendar generator: rooms, offices, meeting subjects and agendas."""

from __future__ import annotations

# (name, building, floor, capacity, equipment)
ROOMS = [
    ("Adams", "HQ", 2, 4, "Display"),
    ("Baker", "HQ", 2, 6, "Display, Whiteboard"),
    ("Cascade", "HQ", 2, 8, "Display, Video conferencing"),
    ("Denali", "HQ", 3, 10, "Display, Video conferencing, Whiteboard"),
    ("Everest", "HQ", 3, 12, "Display, Video conferencing"),
    ("Fuji", "HQ", 3, 16, "Dual displays, Video conferencing"),
    ("Glacier", "HQ", 4, 20, "Projector, Video conferencing, Whiteboard"),
    ("Hood", "HQ", 4, 4, "Display"),
    ("Rainier", "HQ", 4, 8, "Display, Whiteboard"),
    ("Shasta", "HQ", 5, 6, "Display"),
    ("Whitney", "HQ", 5, 14, "Display, Video conferencing"),
    ("Olympus", "HQ", 5, 30, "Projector, Video conferencing, Stage microphones"),
]
REMOTE_CITIES = ["Denver", "Austin", "Chicago", "Atlanta", "Boston", "Phoenix", "Seattle", "Raleigh"]

CUSTOMER_SUBJECTS = {
    "early": ["{account}: discovery call", "Intro call - {account} and {company}", "{account} requirements workshop",
              "Discovery: {opp}", "{account} / {company} - scoping session"],
    "mid": ["Demo for {account}: {opp}", "{opp} - solution walkthrough", "{account} technical deep dive", "Proposal review: {opp}",
            "{account} - pricing discussion", "{opp}: security and IT review"],
    "late": ["Negotiation call: {opp}", "{account} contract review", "{opp} - final terms", "Order form walkthrough with {account}",
             "{account} - legal redlines"],
    "closed": ["{account} kickoff", "{account} QBR", "Onboarding check-in: {account}", "{account} - success plan review"],
}
CUSTOMER_AGENDA = [
    "Walk {first} through the revised quote of {amount} and confirm the budget owner.",
    "Agree the timeline to close by {close}; open questions from procurement.",
    "Review the success criteria {first} shared last week and map them to the rollout plan.",
    "Next step from the CRM: {next_step}.",
    "Introduce our solutions engineer and cover the integration questions from the last call.",
    "Confirm who signs on their side and what legal needs before {close}.",
    "Go through the implementation plan and the first 90 days.",
    "Answer the open points on support tiers and the service levels.",
]
INTERNAL_KINDS = [
    ("Deal strategy: {opp}", ["Where we stand on {opp} ({amount}), risks and the plan to close by {close}.",
                              "Pricing guardrails for {account}; do we need a discount approval?"]),
    ("Escalation sync: {account}", ["Case {case} ({subject}) is open at {priority} priority; agree owner and next update to the customer.",
                                    "Review the timeline of case {case} and what we tell {account}."]),
    ("Forecast review - {month}", ["Commit and best case by rep; slipped deals since last week.",
                                   "Walk the {month} forecast, then the deals over $100K."]),
    ("Campaign planning: {campaign}", ["Audience, budget and dates for {campaign}.", "Review the first draft of the {campaign} assets."]),
    ("Interview: {role} candidate", ["Panel interview. Scorecards in the hiring system by end of day.",
                                     "Second round; focus on customer scenarios."]),
    ("Change advisory board", ["Review this week's change requests and the maintenance window.",
                               "Approvals for the network upgrade and the CRM release."]),
    ("Month-end close check-in", ["Open invoices, accruals and the deals booked this month.", "Billing exceptions to resolve before close."]),
    ("Lunch and learn: {topic}", ["Bring your lunch; {topic} in 40 minutes plus questions.", "Recorded for those who cannot join."]),
]
CAMPAIGNS = ["Spring webinar series", "Customer advisory board", "Partner summit", "Q2 product launch", "Regional roadshow", "Analyst briefing"]
TOPICS = ["negotiation basics", "the new CRM dashboards", "writing better proposals", "security questionnaires", "our Q2 roadmap",
          "handling objections", "the support escalation process"]
ROLES = ["Account Executive", "Support Engineer", "Marketing Manager", "Financial Analyst", "Solutions Engineer"]
TEAM_SUBJECTS = {
    "Sales": "{last} team pipeline review",
    "Customer Support": "Support team stand-up ({last})",
    "IT": "IT weekly sync",
    "Marketing": "Marketing weekly",
    "Finance": "Finance weekly",
}
ALL_HANDS = ["{company} all hands - {month}", "{quarter} company meeting"]
