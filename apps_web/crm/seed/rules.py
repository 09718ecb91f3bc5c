"""The org's validation rules (Setup > Object Manager > Validation Rules), appended to a finished world.

The same rules in every world, as an org's configuration is; the active ones hold for every seeded
record (tests/apps_web/crm/test_validation_rules.py checks it), so they refuse only new mistakes. The
inactive ones are switched on by tasks or by an administrator.
"""

from __future__ import annotations

from datetime import timedelta

from ...world.seeding import SeedContext
from ..models import ValidationRule

# (object, API name, active, description, error condition, error message, error location: a column or None for the top)
RULES = [
    ("opportunity", "Next_Step_Required_Late_Stage", True,
     "Deals in Proposal/Price Quote or Negotiation/Review must say what happens next (forecast calls read it).",
     'AND(OR(ISNEW(), ISCHANGED(StageName)), OR(ISPICKVAL(StageName, "Proposal/Price Quote"), ISPICKVAL(StageName, "Negotiation/Review")),\n'
     '    ISBLANK(NextStep))',
     "Enter a Next Step before you move an opportunity to Proposal/Price Quote or Negotiation/Review.", "next_step"),
    ("opportunity", "Close_Date_Not_Moved_To_Past", True,
     "An open deal's Close Date can't be moved into the past: close the deal instead, or give a future date.",
     'AND(ISCHANGED(CloseDate), CloseDate < TODAY(), NOT(ISPICKVAL(StageName, "Closed Won")), NOT(ISPICKVAL(StageName, "Closed Lost")))',
     "The Close Date of an open opportunity can't be in the past. Choose today or a later date.", "close_date"),
    ("opportunity", "Competitor_Required_When_Lost_To_Competitor", False,
     "Win/loss analysis needs the competitor that won. Switched off until the Q2 enablement is done.",
     'AND(ISPICKVAL(StageName, "Closed Lost"), ISPICKVAL(Loss_Reason__c, "Lost to Competitor"), ISBLANK(Main_Competitors__c))',
     "Name the competitor that won the deal in Main Competitors when the Loss Reason is Lost to Competitor.", "main_competitors"),
    ("opportunity", "Large_Deal_Needs_Description", False,
     "Deals of $500,000 or more need a description for the deal desk review.",
     "AND(Amount >= 500000, ISBLANK(Description))",
     "Opportunities of $500,000 or more need a Description for the deal desk review.", None),
    ("case", "Escalated_Case_Priority", False,
     "An escalated case is worked as High or Critical priority.",
     'AND(ISPICKVAL(Status, "Escalated"), OR(ISPICKVAL(Priority, "Low"), ISPICKVAL(Priority, "Medium")))',
     "Set the Priority to High or Critical before you escalate a case.", "priority"),
    ("case", "Closed_Case_Needs_Reason", False,
     "Closed cases need a Case Reason for the quarterly service review.",
     'AND(ISPICKVAL(Status, "Closed"), ISPICKVAL(Reason, ""))',
     "Select a Case Reason before you close the case.", "reason"),
    ("lead", "Lead_Email_Or_Phone_Required", True,
     "Marketing can't work a lead it can't reach.",
     "AND(ISBLANK(Email), ISBLANK(Phone))",
     "Enter an email address or a phone number so the lead can be contacted.", None),
]


def default_rules(now) -> list[ValidationRule]:  # noqa: ANN001
    out = []
    for i, (obj, name, active, description, condition, message, field) in enumerate(RULES, start=1):
        stamp = now - timedelta(days=300 - 20 * i)
        out.append(ValidationRule(id=i, object_type=obj, name=name, active=active, description=description, error_condition=condition,
                                  error_message=message, error_field=field, created_at=stamp, updated_at=stamp))
    return out


def seed_rules(ctx: SeedContext) -> None:
    ctx.session.add_all(default_rules(ctx.clock.now))
