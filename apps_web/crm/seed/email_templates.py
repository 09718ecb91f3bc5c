"""The org's Lightning email templates (Sales Templates and Service Templates): fixed text with merge
fields, no randomness, so they add no draw to any seeded namespace."""

from __future__ import annotations

from ..models import EmailTemplate

TEMPLATES = (
    ("Proposal Follow-Up", "Sales Templates", "opportunity", "{!Opportunity.Name}: our proposal",
     "<p>Hi {!Contact.FirstName},</p><p>Thank you for your time this week. As discussed, our proposal for "
     "<b>{!Opportunity.Name}</b> comes to <b>{!Opportunity.Amount}</b>, and we are working towards a decision by "
     "{!Opportunity.CloseDate}.</p><p>Please let me know if you have any questions.</p><p>Best regards,<br>{!User.Name}<br>{!User.Title}</p>",
     "After a meeting: the proposal's amount and the target date."),
    ("Quote Sent", "Sales Templates", "opportunity", "Your quote for {!Opportunity.Name}",
     "<p>Hello {!Contact.FirstName},</p><p>Please find our quote for {!Opportunity.Name}: the total is "
     "<b>{!Opportunity.Amount}</b>.</p><p>The quote is valid for 30 days. I am happy to walk you through it.</p>"
     "<p>Kind regards,<br>{!User.Name}</p>",
     "The quote's total for the deal."),
    ("Renewal Reminder", "Sales Templates", "opportunity", "Your renewal with us: {!Opportunity.Name}",
     "<p>Dear {!Contact.FirstName},</p><p>Your renewal ({!Opportunity.Name}) is coming up on {!Opportunity.CloseDate}. "
     "Our next step: {!Opportunity.NextStep}.</p><p>Best,<br>{!User.Name}</p>",
     "Ahead of a renewal's close date."),
    ("Meeting Request", "Sales Templates", "contact", "Time to meet, {!Contact.FirstName}?",
     "<p>Hi {!Contact.FirstName},</p><p>I would like to set up 30 minutes to talk about {!Account.Name}'s plans for the coming "
     "quarter. Would one of the next few days work for you?</p><p>Thanks,<br>{!User.Name}<br>{!User.Phone}</p>",
     "Asks a contact for a meeting."),
    ("Thank You for Your Business", "Sales Templates", "account", "Thank you, {!Account.Name}",
     "<p>Dear {!Contact.FirstName},</p><p>On behalf of our whole team, thank you for choosing us. We look forward to a long "
     "partnership with {!Account.Name}.</p><p>Warm regards,<br>{!User.Name}</p>",
     "After a deal is won."),
    ("Lead Introduction", "Sales Templates", "lead", "Introduction: {!User.Name}",
     "<p>Hi {!Lead.FirstName},</p><p>I am {!User.Name}, {!User.Title}. I noticed {!Lead.Company} has been looking at solutions "
     "like ours and would love to learn more about your priorities.</p><p>Best,<br>{!User.Name}</p>",
     "The first email to a new lead."),
    ("Case Status Update", "Service Templates", "case", "Case {!Case.CaseNumber}: {!Case.Subject}",
     "<p>Hello {!Contact.FirstName},</p><p>An update on your case {!Case.CaseNumber} ({!Case.Subject}): its status is now "
     "<b>{!Case.Status}</b>.</p><p>Reply to this email if anything changes on your side.</p><p>Regards,<br>{!User.Name}<br>Customer Support</p>",
     "Tells the customer where their case stands."),
)


def email_templates() -> list[EmailTemplate]:
    return [EmailTemplate(id=i, name=name, folder=folder, related_object=obj, subject=subject, html_body=body, description=desc)
            for i, (name, folder, obj, subject, body, desc) in enumerate(TEMPLATES, start=1)]
