"""Word banks for the CRM generator: invented brands, real cities, products, titles, support issues.

Everything here is plain data; the generator modules pick from it with the world's seeded RNGs.
"""

from __future__ import annotations

# -- company names -------------------------------------------------------------------------------------
# Invented brand words; combined with an industry word they read like real mid-market companies.
BRANDS = [
    "Acme", "Globex", "Initech", "Northwind", "Pinnacle", "Bluestone", "Summit", "Ironwood", "Cedarline", "Vertex",
    "Harborview", "Redline", "Silverline", "Brightpath", "Keystone", "Lumen", "Meridian", "Oakridge", "Crestview",
    "Evergreen", "Falcon", "Granite", "Horizon", "Juniper", "Kestrel", "Lakeshore", "Maple Leaf", "Nimbus", "Orion",
    "Pioneer", "Quantum", "Riverbend", "Sterling", "Trident", "Unity", "Vanguard", "Westbrook", "Zenith", "Atlas",
    "Beacon", "Cobalt", "Delta Ridge", "Eastgate", "Frontier", "Golden Gate", "Highland", "Insight", "Jetstream",
    "Kingsley", "Liberty", "Magnolia", "Northstar", "Oceanic", "Paragon", "Quarry", "Redwood", "Sapphire", "Titan",
    "Upland", "Valiant", "Windward", "Yellowstone", "Apex", "Bayside", "Canyon", "Dynamo", "Echo", "Fairview",
    "Greenfield", "Hawthorne", "Ivory", "Jade", "Kinetic", "Landmark", "Monarch", "Nova", "Olympus", "Prairie",
    "Radiant", "Sequoia", "Tandem", "Ultra", "Vista", "Wavecrest", "Alder", "Birchwood", "Copperleaf", "Driftwood",
    "Elmstead", "Foxglove", "Gallant", "Halcyon", "Ironclad", "Larkspur", "Mosaic", "Noble", "Outpost", "Pacific Rim",
    "Quest", "Rockport", "Stonebridge", "Tidewater", "Umbra", "Verity", "Wildflower", "Axiom", "Bright Harbor",
    "Clearwater", "Danforth", "Emberly", "Fulcrum", "Glenwood", "Hartwell", "Inland", "Kepler", "Lodestar", "Mariner",
    "Norwood", "Overland", "Petra", "Ridgeline", "Solstice", "Tamarack", "Union Square", "Vireo", "Whitfield",
    "Aurora", "Blue Heron", "Cascade", "Drummond", "Everest", "Fernhill", "Gladstone", "Hollis", "Ingram", "Jasper",
    "Kingfisher", "Linden", "Millbrook", "Newport", "Orchard", "Prescott", "Rainier", "Sable", "Thornbury", "Vantage",
]

# Industry -> words that make a believable company name in it.
INDUSTRY_WORDS = {
    "Agriculture": ["Farms", "Agri", "Growers", "Harvest Co."],
    "Apparel": ["Apparel", "Outfitters", "Textiles", "Clothing Co."],
    "Banking": ["Bank", "Bancorp", "Savings Bank", "Trust"],
    "Biotechnology": ["Biosciences", "Therapeutics", "Genomics", "Bio"],
    "Chemicals": ["Chemicals", "Polymers", "Coatings"],
    "Communications": ["Communications", "Media Networks", "Broadcasting"],
    "Construction": ["Construction", "Builders", "Contracting"],
    "Consulting": ["Consulting", "Advisors", "Partners", "Consulting Group"],
    "Education": ["Academy", "Learning", "University", "Education"],
    "Electronics": ["Electronics", "Devices", "Semiconductor", "Circuits"],
    "Energy": ["Energy", "Power", "Solar", "Oil & Gas"],
    "Engineering": ["Engineering", "Design Works", "Technical Services"],
    "Entertainment": ["Studios", "Entertainment", "Pictures"],
    "Environmental": ["Environmental", "Water Services", "Recycling"],
    "Finance": ["Capital", "Financial", "Investments", "Wealth Management"],
    "Food & Beverage": ["Foods", "Beverages", "Brewing Co.", "Provisions"],
    "Government": ["County Services", "Municipal Authority", "Transit Authority"],
    "Healthcare": ["Health", "Medical Center", "Health Partners", "Clinics"],
    "Hospitality": ["Hotels", "Resorts", "Hospitality Group"],
    "Insurance": ["Insurance", "Mutual", "Assurance", "Underwriters"],
    "Machinery": ["Machinery", "Equipment", "Industrial"],
    "Manufacturing": ["Manufacturing", "Industries", "Fabrication", "Components"],
    "Media": ["Media", "Publishing", "Press"],
    "Not For Profit": ["Foundation", "Alliance", "Trust Fund"],
    "Recreation": ["Outdoors", "Sports", "Fitness"],
    "Retail": ["Retail", "Stores", "Market", "Supply"],
    "Shipping": ["Shipping", "Freight", "Logistics", "Lines"],
    "Technology": ["Systems", "Software", "Technologies", "Labs", "Data", "Cloud"],
    "Telecommunications": ["Telecom", "Wireless", "Networks"],
    "Transportation": ["Transport", "Logistics", "Transit", "Airways"],
    "Utilities": ["Utilities", "Electric", "Gas & Electric", "Water"],
    "Other": ["Group", "Holdings", "Enterprises"],
}
LEGAL_SUFFIXES = ["", "", "", "Inc.", "Inc.", "LLC", "Corp.", "Ltd.", "Group"]
SUBSIDIARY_REGIONS = ["Europe", "Asia Pacific", "Canada", "UK", "Latin America", "West", "East", "Services"]

# Industry -> (min, max) annual revenue per employee, in dollars.
REVENUE_PER_EMPLOYEE = {
    "Banking": (300_000, 700_000), "Finance": (300_000, 800_000), "Insurance": (250_000, 600_000),
    "Energy": (400_000, 1_200_000), "Utilities": (350_000, 900_000), "Technology": (180_000, 450_000),
    "Biotechnology": (200_000, 500_000), "Retail": (120_000, 300_000), "Hospitality": (60_000, 140_000),
    "Education": (80_000, 160_000), "Not For Profit": (50_000, 120_000), "Government": (90_000, 180_000),
    "Healthcare": (100_000, 250_000), "Consulting": (150_000, 300_000),
}
DEFAULT_REVENUE_PER_EMPLOYEE = (120_000, 320_000)

# -- places (real cities: (city, state or region, postal code, phone area code)) -----------------------------
US_CITIES = [
    ("San Francisco", "CA", "94105", "415"), ("Los Angeles", "CA", "90017", "213"), ("San Diego", "CA", "92101", "619"),
    ("San Jose", "CA", "95113", "408"), ("Seattle", "WA", "98101", "206"), ("Portland", "OR", "97204", "503"),
    ("Denver", "CO", "80202", "303"), ("Phoenix", "AZ", "85004", "602"), ("Austin", "TX", "78701", "512"),
    ("Dallas", "TX", "75201", "214"), ("Houston", "TX", "77002", "713"), ("Chicago", "IL", "60601", "312"),
    ("Minneapolis", "MN", "55402", "612"), ("Detroit", "MI", "48226", "313"), ("Columbus", "OH", "43215", "614"),
    ("Indianapolis", "IN", "46204", "317"), ("Nashville", "TN", "37203", "615"), ("Atlanta", "GA", "30303", "404"),
    ("Miami", "FL", "33131", "305"), ("Tampa", "FL", "33602", "813"), ("Charlotte", "NC", "28202", "704"),
    ("Raleigh", "NC", "27601", "919"), ("Washington", "DC", "20005", "202"), ("Baltimore", "MD", "21202", "410"),
    ("Philadelphia", "PA", "19103", "215"), ("Pittsburgh", "PA", "15222", "412"), ("New York", "NY", "10017", "212"),
    ("Boston", "MA", "02110", "617"), ("Hartford", "CT", "06103", "860"), ("Salt Lake City", "UT", "84111", "801"),
    ("Kansas City", "MO", "64105", "816"), ("St. Louis", "MO", "63101", "314"), ("Milwaukee", "WI", "53202", "414"),
    ("Omaha", "NE", "68102", "402"), ("Boise", "ID", "83702", "208"), ("Albuquerque", "NM", "87102", "505"),
    ("New Orleans", "LA", "70112", "504"), ("Cincinnati", "OH", "45202", "513"), ("Sacramento", "CA", "95814", "916"),
    ("Las Vegas", "NV", "89101", "702"),
]
INTL_CITIES = {
    "Canada": [("Toronto", "ON", "M5H 2N2", "+1 416"), ("Vancouver", "BC", "V6C 1T2", "+1 604"), ("Montreal", "QC", "H3B 4W8", "+1 514")],
    "United Kingdom": [("London", "", "EC2V 7HH", "+44 20"), ("Manchester", "", "M2 3AW", "+44 161"), ("Edinburgh", "", "EH2 2AD", "+44 131")],
    "Germany": [("Berlin", "", "10117", "+49 30"), ("Munich", "", "80331", "+49 89"), ("Hamburg", "", "20095", "+49 40")],
    "France": [("Paris", "", "75008", "+33 1"), ("Lyon", "", "69002", "+33 4")],
    "Australia": [("Sydney", "NSW", "2000", "+61 2"), ("Melbourne", "VIC", "3000", "+61 3")],
    "Netherlands": [("Amsterdam", "", "1012 JS", "+31 20"), ("Rotterdam", "", "3011 AD", "+31 10")],
    "Japan": [("Tokyo", "", "100-0005", "+81 3"), ("Osaka", "", "530-0001", "+81 6")],
    "Brazil": [("Sao Paulo", "SP", "01310-100", "+55 11")],
    "India": [("Bangalore", "KA", "560001", "+91 80"), ("Mumbai", "MH", "400001", "+91 22")],
}
STREET_NAMES = [
    "Main", "Market", "Oak", "Pine", "Maple", "Cedar", "Elm", "Lake", "Park", "Washington", "Jefferson", "Madison",
    "Franklin", "Mission", "Harbor", "Commerce", "Industrial", "Technology", "Innovation", "Corporate", "Center",
    "Broadway", "Front", "Water", "Spring", "Hill", "River", "Summit", "Union", "Liberty", "Grand", "Bay",
]
STREET_TYPES = ["St", "Ave", "Blvd", "Rd", "Dr", "Way", "Pkwy", "Plaza"]

# -- people --------------------------------------------------------------------------------------------
# (title, department, level): level 0 reports to nobody; others report to someone of a lower level.
CONTACT_TITLES = [
    ("CEO", "Executive", 0), ("President", "Executive", 0), ("CFO", "Finance", 0), ("CTO", "Engineering", 0),
    ("COO", "Operations", 0), ("Chief Information Officer", "IT", 0),
    ("VP of Operations", "Operations", 1), ("VP of Finance", "Finance", 1), ("VP of Engineering", "Engineering", 1),
    ("VP of Sales", "Sales", 1), ("VP of Marketing", "Marketing", 1), ("VP of Information Technology", "IT", 1),
    ("Director of IT", "IT", 2), ("Director of Procurement", "Procurement", 2), ("Director of Operations", "Operations", 2),
    ("Finance Director", "Finance", 2), ("Director of Customer Experience", "Customer Service", 2),
    ("IT Manager", "IT", 3), ("Procurement Manager", "Procurement", 3), ("Operations Manager", "Operations", 3),
    ("Purchasing Manager", "Procurement", 3), ("Project Manager", "Operations", 3), ("Office Manager", "Administration", 3),
    ("Senior Systems Analyst", "IT", 3), ("Controller", "Finance", 3), ("Buyer", "Procurement", 3),
]

# -- what the world's company sells (opportunity names, case subjects) -------------------------------------
# (product, unit, unit price range): "Acme - 250 Platform Licenses".
PRODUCTS = [
    ("Platform Licenses", "seats", 120, 480),
    ("Analytics Add-on", "seats", 40, 150),
    ("Premium Support", "years", 12_000, 60_000),
    ("Implementation Services", "days", 1_400, 2_200),
    ("Training Package", "sessions", 1_500, 4_000),
    ("Data Migration", "projects", 15_000, 80_000),
    ("Field Units", "units", 350, 1_200),
    ("Sensor Kits", "units", 90, 400),
    ("Edge Gateways", "units", 800, 2_500),
    ("Cloud Storage", "TB", 200, 900),
]
OPPORTUNITY_PATTERNS = [
    "{account} - {qty} {product}",
    "{account} - {qty} {product}",
    "{account} - {product} Renewal",
    "{account} - {product} Expansion",
    "{account} - {product} Pilot",
]
NEXT_STEPS = [
    "Send revised proposal", "Schedule demo with IT team", "Confirm budget with CFO", "Security review call",
    "Legal redlines on MSA", "Pricing approval from VP", "Technical deep dive", "Collect requirements",
    "Procurement paperwork", "Reference call with existing customer", "Executive sponsor meeting", "Pilot kickoff",
]
LOSS_REASONS = ["Lost to competitor on price.", "Budget frozen for the fiscal year.", "No decision: project postponed.", "Chose an in-house solution."]

SUPPORT_PRODUCTS = ["the Platform", "the Analytics Add-on", "Edge Gateways", "Sensor Kits", "the mobile app", "Cloud Storage", "the admin console", "the API"]
# case type -> (reason, subject templates); "{product}" is filled from SUPPORT_PRODUCTS.
CASE_SUBJECTS: dict[str, list[tuple[str, str]]] = {
    "Problem": [
        ("Breakdown", "Edge Gateway offline after firmware update"),
        ("Breakdown", "{product} returns error 500 on login"),
        ("Performance", "Dashboards in {product} load very slowly"),
        ("Performance", "Nightly sync with {product} takes over 6 hours"),
        ("Existing Problem", "Sensor readings missing since last Tuesday"),
        ("Existing Problem", "Duplicate records created by {product} import"),
        ("Installation", "Installer fails on Windows Server 2022"),
        ("Installation", "Cannot activate license keys for new seats"),
        ("Equipment Design", "Field Unit battery drains within 4 hours"),
        ("Complex Functionality", "SSO login loop after identity provider change"),
        ("Complex Functionality", "Webhook deliveries from {product} failing intermittently"),
        ("Breakdown", "Users locked out after password reset"),
    ],
    "Question": [
        ("User Training", "How do I export reports from {product}?"),
        ("User Training", "Need help setting up user roles in {product}"),
        ("Complex Functionality", "Question about API rate limits"),
        ("Other", "Where can I find the latest release notes?"),
        ("User Training", "Request for admin training session"),
        ("Installation", "Recommended hardware for on-premise install"),
    ],
    "Feature Request": [
        ("Feedback", "Request: bulk edit in {product}"),
        ("Feedback", "Add dark mode to the mobile app"),
        ("Feedback", "Allow custom fields on exports"),
        ("Equipment Design", "Request longer cable option for Sensor Kits"),
    ],
    "Billing": [
        ("Other", "Invoice shows wrong number of seats"),
        ("Other", "Duplicate charge on latest invoice"),
        ("Other", "Update billing contact and address"),
        ("Other", "Request W-9 and updated tax form"),
        ("Other", "Credit note for cancelled training session"),
    ],
    "Other": [
        ("Other", "Change of primary admin for our account"),
        ("Feedback", "Feedback on recent support experience"),
        ("Other", "Request to close unused user accounts"),
    ],
}
CASE_DETAILS = [
    "Customer reports the issue affects {n} users across two sites.",
    "Started after the maintenance window on {day}.",
    "Screenshots attached to the original email.",
    "Customer has already restarted the service and cleared the cache.",
    "Workaround offered: use the web console until a fix is available.",
    "Customer asked for an update by end of week.",
    "Reproduced in our staging environment.",
    "Logs requested from the customer's IT team.",
]
CASE_RESOLUTIONS = [
    "Resolved by applying patch 4.2.1.", "Configuration corrected; customer confirmed.", "Answered with knowledge article.",
    "Replacement unit shipped.", "Credit issued on next invoice.", "Closed after no response from customer for 14 days.",
]

# -- activities and notes ------------------------------------------------------------------------------------
TASK_SUBJECTS = {
    "account": ["Quarterly business review prep", "Update account plan", "Renewal check-in", "Send welcome pack", "Verify billing address"],
    "contact": ["Follow up with {contact}", "Send product brochure to {contact}", "Introduce {contact} to solutions engineer", "Thank-you email to {contact}"],
    "opportunity": ["Send proposal for {opportunity}", "Prepare pricing for {opportunity}", "Get legal review on {opportunity}", "Update close plan", "Send contract for signature"],
    "case": ["Escalate to engineering", "Send status update to customer", "Verify fix with customer", "Collect logs from customer"],
    "lead": ["Qualify {lead}", "Send intro email to {lead}", "Research {company}", "Follow up after webinar"],
}
CALL_SUBJECTS = {
    "account": ["Call: account review", "Call: renewal discussion"],
    "contact": ["Call with {contact}", "Check-in call with {contact}"],
    "opportunity": ["Discovery call", "Pricing call", "Negotiation call", "Technical Q&A call"],
    "case": ["Troubleshooting call", "Callback about case", "Escalation call"],
    "lead": ["Intro call with {lead}", "Qualification call", "Cold call"],
}
MEETING_SUBJECTS = {
    "account": ["Quarterly business review", "Executive briefing", "Annual planning session"],
    "contact": ["Lunch with {contact}", "Meeting with {contact}"],
    "opportunity": ["Product demo", "Solution workshop", "Contract negotiation meeting", "Onsite visit"],
    "case": ["Onsite troubleshooting", "Root cause review"],
    "lead": ["Intro meeting with {company}", "Discovery meeting"],
}
MEETING_LOCATIONS = ["Zoom", "Microsoft Teams", "Customer office", "Conference Room A", "Conference Room B", "Google Meet", "Phone bridge"]
NOTE_TITLES = {
    "account": ["Account background", "Org chart notes", "Renewal risks", "Key priorities for this year"],
    "contact": ["Personal notes", "Communication preferences", "Call summary"],
    "opportunity": ["Competitive situation", "Decision criteria", "Budget notes", "Meeting recap"],
    "case": ["Troubleshooting log", "Escalation notes", "Customer environment"],
    "lead": ["Qualification notes", "Trade show conversation"],
}
NOTE_BODIES = [
    "Prefers email over phone; best reached in the morning.",
    "Budget approved for Q{q}; procurement needs three quotes.",
    "Currently evaluating two competitors; our integrations are the differentiator.",
    "New CIO started last month and is reviewing all vendor contracts.",
    "Main concern is implementation time; wants go-live before the summer.",
    "Asked for references in the same industry.",
    "Their fiscal year ends in {month}.",
    "Legal team is slow; plan two extra weeks for contract review.",
    "Had issues with the previous vendor's support response times.",
    "Interested in the analytics add-on for the finance team.",
]
LEAD_NOTES = [
    "Visited our booth at the trade show; interested in a pilot.",
    "Downloaded the pricing whitepaper twice.",
    "Asked for a callback after the webinar.",
    "Referred by an existing customer.",
    "Currently using a competitor; contract ends this year.",
]
