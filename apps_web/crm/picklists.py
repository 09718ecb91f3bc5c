"""Picklist values of the CRM, in the order the UI shows them (Salesforce-like defaults)."""

from __future__ import annotations

ACCOUNT_TYPES = ["Prospect", "Customer - Direct", "Customer - Channel", "Channel Partner / Reseller", "Installation Partner", "Technology Partner", "Other"]
INDUSTRIES = [
    "Agriculture", "Apparel", "Banking", "Biotechnology", "Chemicals", "Communications", "Construction",
    "Consulting", "Education", "Electronics", "Energy", "Engineering", "Entertainment", "Environmental",
    "Finance", "Food & Beverage", "Government", "Healthcare", "Hospitality", "Insurance", "Machinery",
    "Manufacturing", "Media", "Not For Profit", "Recreation", "Retail", "Shipping", "Technology",
    "Telecommunications", "Transportation", "Utilities", "Other",
]
RATINGS = ["Hot", "Warm", "Cold"]
SALUTATIONS = ["Mr.", "Ms.", "Mrs.", "Dr.", "Prof."]
LEAD_SOURCES = ["Web", "Phone Inquiry", "Partner Referral", "Purchased List", "Trade Show", "Word of mouth", "Advertisement", "Other"]
LEAD_STATUSES = ["Open - Not Contacted", "Working - Contacted", "Closed - Converted", "Closed - Not Converted"]
LEAD_OPEN_STATUSES = ["Open - Not Contacted", "Working - Contacted"]
LEAD_CONVERTED = "Closed - Converted"

# Stage -> default probability (%) and forecast category.
STAGES: list[tuple[str, int, str]] = [
    ("Prospecting", 10, "Pipeline"),
    ("Qualification", 10, "Pipeline"),
    ("Needs Analysis", 20, "Pipeline"),
    ("Value Proposition", 50, "Pipeline"),
    ("Id. Decision Makers", 60, "Pipeline"),
    ("Perception Analysis", 70, "Pipeline"),
    ("Proposal/Price Quote", 75, "Best Case"),
    ("Negotiation/Review", 90, "Commit"),
    ("Closed Won", 100, "Closed"),
    ("Closed Lost", 0, "Omitted"),
]
STAGE_NAMES = [s[0] for s in STAGES]
STAGE_PROBABILITY = {s[0]: s[1] for s in STAGES}
STAGE_FORECAST = {s[0]: s[2] for s in STAGES}
OPEN_STAGES = STAGE_NAMES[:-2]
CLOSED_STAGES = ["Closed Won", "Closed Lost"]
OPPORTUNITY_TYPES = ["New Business", "Existing Business - Upgrade", "Existing Business - Replacement", "Existing Business - Downgrade"]
CONTACT_ROLES = ["Decision Maker", "Economic Buyer", "Technical Buyer", "Executive Sponsor", "Influencer", "Evaluator", "Business User", "Other"]

CASE_STATUSES = ["New", "Working", "Escalated", "On Hold", "Closed"]
CASE_OPEN_STATUSES = ["New", "Working", "Escalated", "On Hold"]
CASE_PRIORITIES = ["Low", "Medium", "High", "Critical"]
CASE_ORIGINS = ["Phone", "Email", "Web", "Chat"]
CASE_TYPES = ["Question", "Problem", "Feature Request", "Billing", "Other"]
CASE_REASONS = ["Installation", "Performance", "Breakdown", "Equipment Design", "Feedback", "User Training", "Complex Functionality", "Existing Problem",
                "Invoice Dispute", "Duplicate Charge", "Refund Request", "Payment Method", "Tax Form", "Billing Contact Change", "Data Migration",
                "Account Setup", "Other"]  # each case record type offers its own subset (recordtypes.py)

ACTIVITY_KINDS = ["task", "call", "meeting"]
TASK_STATUSES = ["Not Started", "In Progress", "Completed", "Waiting on someone else", "Deferred"]
TASK_PRIORITIES = ["High", "Normal", "Low"]
CALL_RESULTS = ["Connected", "Left Voicemail", "No Answer", "Wrong Number", "Scheduled Follow-up"]
# Objects an activity or a note can be related to.
RELATED_TYPES = ["account", "contact", "lead", "opportunity", "case"]

COUNTRIES = ["United States", "Canada", "United Kingdom", "Germany", "France", "Australia", "Japan", "Brazil", "India", "Netherlands"]

# Products, quotes and the sales process's extra fields.
PRODUCT_FAMILIES = ["Software", "Hardware", "Services", "Support"]
QUOTE_STATUSES = ["Draft", "Needs Review", "In Review", "Approved", "Rejected", "Presented", "Accepted", "Denied"]
LOSS_REASONS = ["Price", "Lost to Competitor", "No Budget / Lost Funding", "No Decision / Non-Responsive", "Product Fit", "Timing", "Other"]
TERRITORIES = ["AMER-East", "AMER-West", "LATAM", "EMEA", "APAC"]
# A quote line discount above this percent needs the owner's manager's approval before the quote is presented.
APPROVAL_DISCOUNT_THRESHOLD = 20.0
