"""Email signatures (Settings > Mail > Compose and reply > Email signature): named signatures of a
mailbox, the default for new messages and the one for replies and forwards, and the block that
compose puts below the typing area (above the quoted message, as Outlook does)."""

from __future__ import annotations

from sqlmodel import Session, func, select

from .delivery import html_to_text
from .html import sanitize
from .models import Mailbox, Signature

MAX_NAME = 120
MAX_BODY = 8000


def signatures_of(session: Session, box: Mailbox) -> list[Signature]:
    return list(session.exec(select(Signature).where(Signature.mailbox_id == box.id).order_by(Signature.position, Signature.id)).all())


def save_signature(session: Session, box: Mailbox, name: str, body: str, sig: Signature | None = None) -> tuple[Signature | None, dict[str, str]]:
    """Create or update a signature; the errors say what to fix (nothing is stored then)."""
    name = " ".join((name or "").split())
    clean = sanitize(body or "")
    errors: dict[str, str] = {}
    if not name:
        errors["name"] = "Enter a name for the signature."
    elif len(name) > MAX_NAME:
        errors["name"] = f"A signature name can be at most {MAX_NAME} characters."
    elif any(s.name.lower() == name.lower() and (sig is None or s.id != sig.id) for s in signatures_of(session, box)):
        errors["name"] = f"A signature named \u201c{name}\u201d already exists. Choose a different name."
    if not html_to_text(clean):
        errors["body"] = "Type the text of the signature."
    elif len(clean) > MAX_BODY:
        errors["body"] = "This signature is too long. Shorten it and save it again."
    if errors:
        return None, errors
    if sig is None:
        top = session.exec(select(func.max(Signature.position)).where(Signature.mailbox_id == box.id)).one() or 0
        sig = Signature(mailbox_id=box.id, name=name, position=top + 1)
    sig.name, sig.body_html = name, clean
    session.add(sig)
    session.flush()
    return sig, {}


def set_defaults(session: Session, box: Mailbox, new_id: int | None, reply_id: int | None) -> dict[str, str]:
    """Choose the signature added to new messages and the one added to replies and forwards (None: no signature)."""
    sigs = {s.id: s for s in signatures_of(session, box)}
    errors = {}
    for key, value in (("default_new", new_id), ("default_reply", reply_id)):
        if value is not None and value not in sigs:
            errors[key] = "Choose one of your signatures, or (no signature)."
    if errors:
        return errors
    for s in sigs.values():
        s.default_new, s.default_reply = s.id == new_id, s.id == reply_id
        session.add(s)
    return {}


def default_signature(session: Session, box: Mailbox, mode: str) -> Signature | None:
    field = Signature.default_new if mode == "new" else Signature.default_reply
    return session.exec(select(Signature).where(Signature.mailbox_id == box.id, field.is_(True))).first()


def signature_block(sig: Signature) -> str:
    """What compose inserts: an empty line to type on, then the signature."""
    return f'<p><br></p><div class="signature">{sig.body_html}</div>'
