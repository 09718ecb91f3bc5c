"""Email from a record: templates with merge fields, the composer's recipients, and sending through
the mail app's own delivery (the sender's Sent Items, colleagues' inboxes) with the CRM's
EmailMessage linked to the record as Salesforce relates it (WhoId, WhatId, the account)."""
