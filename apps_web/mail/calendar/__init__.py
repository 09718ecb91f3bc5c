"""The calendar of the mail app (Outlook's Calendar module): events with attendees and rooms,
recurrence, free/busy, invitations delivered as mail messages, and the responses to them."""
