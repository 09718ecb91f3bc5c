"""Contracts of a data room, written from clause variants: each contract type has its own articles,
and each key clause (change of control, assignment, governing law, limitation of liability) is drawn
from variants with several wordings, placed in a numbered section whose number depends on the
articles the contract holds. The result records which variant went where (the ground truth)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..documents import block

LAWS = [("Delaware", "the State of Delaware", "the state and federal courts located in Wilmington, Delaware"),
        ("New York", "the State of New York", "the state and federal courts located in the Borough of Manhattan, New York City"),
        ("California", "the State of California", "the state and federal courts located in San Francisco County, California"),
        ("Texas", "the State of Texas", "the state and federal courts located in Travis County, Texas"),
        ("Illinois", "the State of Illinois", "the state and federal courts located in Cook County, Illinois"),
        ("England and Wales", "England and Wales", "the courts of England and Wales")]

ORDINALS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


@dataclass
class Deal:
    target: str  # the company being acquired (the data room's owner)
    target_short: str
    target_state: str
    target_city: str
    buyer: str
    codename: str


@dataclass
class Spec:
    """What a contract must say; the writer fills in ``sections`` as it numbers them."""

    category: str
    kind: str  # nda | msa | supply | reseller | saas | lease | employment | consulting | license_in | license_out | credit | shareholders
    title: str
    counterparty: str
    effective: datetime
    term_months: int
    law: tuple[str, str, str]
    coc: str  # none | notice | consent | termination
    assignment: str  # free | consent | prohibited
    liability: str  # capped | uncapped | none
    cap: str = ""
    annual_value: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)


def _money(v: float) -> str:
    return f"${v:,.0f}"


def _date(d: datetime) -> str:
    return f"{d:%B} {d.day}, {d.year}"


class Writer:
    """Numbers articles and sections as it writes: Article N, sections N.1, N.2..."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.blocks: list[dict[str, Any]] = []
        self.article = 0
        self.section = 0

    def p(self, *runs: Any, style: str = "Normal") -> None:
        self.blocks.append(block(style, *runs))

    def heading(self, text: str) -> None:
        self.article += 1
        self.section = 0
        self.p(f"ARTICLE {self.article}. {text.upper()}", style="Heading 1")

    def sec(self, title: str, text: str) -> str:
        self.section += 1
        num = f"{self.article}.{self.section}"
        self.p({"text": f"{num} {title}. ", "bold": True}, text)
        return num

    def pick(self, options: list[str]) -> str:
        return self.rng.choice(options)


# -- the key clauses -----------------------------------------------------------------------------
def coc_text(w: Writer, s: Spec, us: str, them: str) -> str:
    if s.coc == "termination":
        return w.pick([
            f"If {us} undergoes a Change of Control, {them} may terminate this Agreement upon written notice to {us} given within ninety (90) days after {them} receives notice of, or otherwise becomes aware of, such Change of Control. \u201cChange of Control\u201d means (a) the acquisition by any person or group of beneficial ownership of more than fifty percent (50%) of the voting securities of {us}, (b) a merger or consolidation of {us} in which its shareholders immediately before the transaction hold less than fifty percent (50%) of the voting power of the surviving entity, or (c) the sale of all or substantially all of the assets of {us}.",
            f"{them} shall have the right, exercisable by written notice within sixty (60) days following the consummation of a Change of Control of {us}, to terminate this Agreement with immediate effect and without liability for such termination. For purposes of this Section, a \u201cChange of Control\u201d occurs when any third party acquires, directly or indirectly, control of more than half of the outstanding voting interests of {us} or the power to direct its management and policies.",
            f"Upon a Change of Control of {us}, {them} may, at its sole option, terminate this Agreement by giving not less than thirty (30) days\u2019 written notice, provided that such notice is given within six (6) months of the Change of Control. {us} shall notify {them} in writing of any Change of Control within ten (10) business days after its completion.",
        ])
    if s.coc == "consent":
        return w.pick([
            f"Any Change of Control of {us} shall be deemed an assignment of this Agreement requiring the prior written consent of {them} under the assignment provisions of this Agreement. \u201cChange of Control\u201d means any transaction or series of related transactions by which a person or group acquires more than fifty percent (50%) of the voting power of {us}.",
            f"{us} shall not undergo a Change of Control without first obtaining the written consent of {them}, which consent shall not be unreasonably withheld, conditioned or delayed. A merger, reorganisation or sale of a controlling interest in {us} is a Change of Control for this purpose.",
        ])
    if s.coc == "notice":
        return w.pick([
            f"{us} shall give {them} written notice of any Change of Control within thirty (30) days after its completion. A Change of Control shall not by itself give either party a right to terminate this Agreement or to modify its terms.",
            f"In the event of a merger, acquisition of a majority of the voting securities, or sale of substantially all of the assets of {us}, {us} shall promptly notify {them} in writing, and this Agreement shall continue in full force and effect and bind the successor.",
        ])
    raise ValueError(s.coc)


def assignment_text(w: Writer, s: Spec, us: str, them: str) -> str:
    if s.assignment == "prohibited":
        return w.pick([
            f"Neither party may assign, delegate or otherwise transfer this Agreement or any of its rights or obligations hereunder, whether voluntarily, by operation of law or otherwise, without the prior written consent of the other party, which may be withheld in its sole discretion. Any purported assignment in violation of this Section is null and void.",
            f"{us} shall not assign or transfer this Agreement, in whole or in part, including by merger or operation of law, without the express prior written consent of {them}. Any attempted assignment without such consent shall be void and shall constitute a material breach of this Agreement.",
        ])
    if s.assignment == "consent":
        return w.pick([
            f"Neither party may assign this Agreement without the prior written consent of the other party, such consent not to be unreasonably withheld or delayed; provided that either party may assign this Agreement without consent to an Affiliate that assumes all of the assigning party\u2019s obligations in writing.",
            f"This Agreement may not be assigned by either party without the prior written consent of the other, which consent shall not be unreasonably withheld. Subject to the foregoing, this Agreement binds and benefits the parties and their respective successors and permitted assigns.",
        ])
    return w.pick([
        f"Either party may assign this Agreement, without the consent of the other party, to an Affiliate or to a successor in connection with a merger, acquisition, corporate reorganisation or sale of all or substantially all of its assets or business to which this Agreement relates, upon written notice to the other party.",
        f"{them} may assign this Agreement in whole or in part. {us} may assign this Agreement without consent to any entity that acquires all or substantially all of its business or assets, provided that the assignee agrees in writing to be bound by its terms.",
    ])


def liability_text(w: Writer, s: Spec, us: str, them: str) -> str:
    if s.liability == "uncapped":
        return w.pick([
            f"Nothing in this Agreement shall limit or exclude the liability of either party for any loss or damage arising out of or in connection with this Agreement, and each party shall be liable for the full amount of the damages it causes, whether in contract, tort (including negligence) or otherwise.",
            f"The parties agree that no limitation or cap shall apply to either party\u2019s liability under this Agreement. Each party shall indemnify the other for all losses, damages, costs and expenses arising from its breach of this Agreement, without limit as to amount.",
        ])
    return w.pick([
        f"Except for liability arising from a party\u2019s gross negligence, wilful misconduct, or breach of its confidentiality obligations, each party\u2019s aggregate liability arising out of or related to this Agreement shall not exceed {s.cap}. In no event shall either party be liable for any indirect, incidental, special or consequential damages, or for lost profits or revenues.",
        f"IN NO EVENT SHALL EITHER PARTY\u2019S TOTAL CUMULATIVE LIABILITY UNDER THIS AGREEMENT EXCEED {s.cap.upper()}. NEITHER PARTY SHALL BE LIABLE FOR ANY LOSS OF PROFITS, LOSS OF DATA OR CONSEQUENTIAL LOSS, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGES.",
        f"The total liability of each party for all claims arising under or in connection with this Agreement, whether in contract, tort or otherwise, is limited to {s.cap}. This limitation does not apply to death or personal injury caused by negligence, fraud, or a party\u2019s indemnification obligations.",
    ])


def law_text(w: Writer, s: Spec) -> str:
    _short, law, courts = s.law
    return w.pick([
        f"This Agreement and any dispute arising out of or in connection with it shall be governed by and construed in accordance with the laws of {law}, without regard to its conflict of laws principles. The parties submit to the exclusive jurisdiction of {courts}.",
        f"This Agreement is governed by the laws of {law}. Each party irrevocably submits to the exclusive jurisdiction of {courts} for any action arising out of this Agreement.",
    ])


# -- contract bodies -------------------------------------------------------------------------------
def write_contract(rng: random.Random, deal: Deal, s: Spec) -> list[dict[str, Any]]:
    w = Writer(rng)
    us, them = deal.target_short, s.extra.get("them_short", s.counterparty.split(",")[0].split(" ")[0])
    w.p(s.title.upper(), style="Title")
    parties = (f"This {s.title} (this \u201cAgreement\u201d) is entered into as of {_date(s.effective)} (the \u201cEffective Date\u201d) by and between "
               f"{deal.target}, a {deal.target_state} corporation with its principal place of business in {deal.target_city} (\u201c{us}\u201d), and "
               f"{s.counterparty}{', ' + s.extra['them_desc'] if s.extra.get('them_desc') else ''} (\u201c{them}\u201d).")
    w.p(parties)
    body = BODIES[s.kind]
    body(w, s, deal, us, them)
    w.p("IN WITNESS WHEREOF, the parties have executed this Agreement as of the Effective Date.")
    w.p({"text": f"{deal.target}", "bold": True}, f" \u2014 By: {s.extra.get('our_signatory', 'Authorised Signatory')}")
    w.p({"text": f"{s.counterparty}", "bold": True}, f" \u2014 By: {s.extra.get('their_signatory', 'Authorised Signatory')}")
    return w.blocks


def _term(w: Writer, s: Spec, us: str, them: str, *, renew: bool = True) -> None:
    years = s.term_months // 12
    span = f"{ORDINALS[years - 1]} ({years}) year{'s' if years > 1 else ''}" if s.term_months % 12 == 0 and 1 <= years <= 12 else f"{s.term_months} months"
    text = f"This Agreement commences on the Effective Date and continues for an initial term of {span} (the \u201cInitial Term\u201d)."
    if renew:
        text += w.pick([" Thereafter it renews automatically for successive one (1) year periods unless either party gives notice of non-renewal at least ninety (90) days before the end of the then-current term.",
                        " It may be renewed for further periods by written agreement of the parties.",
                        " Thereafter it renews automatically for successive twelve (12) month periods unless either party gives sixty (60) days\u2019 written notice of non-renewal."])
    w.sec("Term", text)


def _termination(w: Writer, s: Spec, us: str, them: str) -> None:
    w.sec("Termination for Cause", w.pick([
        "Either party may terminate this Agreement upon written notice if the other party materially breaches this Agreement and fails to cure the breach within thirty (30) days after receiving written notice describing it.",
        "Either party may terminate this Agreement immediately by written notice if the other party (a) commits a material breach that is incapable of remedy, or not remedied within forty-five (45) days of notice, or (b) becomes insolvent, makes an assignment for the benefit of creditors, or has a receiver appointed over its assets."]))
    if s.kind in ("msa", "saas", "supply", "reseller") and w.rng.random() < 0.5:
        w.sec("Termination for Convenience", f"{them} may terminate this Agreement for convenience on {w.pick(['ninety (90)', 'one hundred and eighty (180)', 'sixty (60)'])} days\u2019 written notice, subject to payment of all fees accrued up to the date of termination.")
    if s.coc in ("termination", "consent", "notice"):
        s.sections["coc"] = w.sec("Change of Control", coc_text(w, s, us, them))
    w.sec("Effect of Termination", w.pick([
        "Upon termination or expiry, all licences granted hereunder terminate, each party shall return or destroy the other party\u2019s Confidential Information, and any provisions which by their nature should survive shall survive.",
        f"Termination shall not affect any rights or liabilities accrued before termination. Within thirty (30) days of termination {us} shall pay all undisputed amounts then due."]))


def _confidentiality(w: Writer, s: Spec, us: str, them: str) -> None:
    w.sec("Confidential Information", "Each party shall hold the other party\u2019s Confidential Information in strict confidence, use it only to perform this Agreement, and disclose it only to its employees and advisers who need to know it and are bound by obligations of confidentiality no less protective than these.")
    w.sec("Duration", f"The obligations in this Article survive for {w.pick(['three (3)', 'five (5)', 'two (2)'])} years after the termination or expiry of this Agreement.")


def _liability_article(w: Writer, s: Spec, us: str, them: str) -> None:
    w.heading("Limitation of Liability")
    if w.rng.random() < 0.6:
        w.sec("Exclusion of Warranties", "Except as expressly set out in this Agreement, neither party makes any warranty, express or implied, including any implied warranty of merchantability, fitness for a particular purpose or non-infringement.")
    s.sections["liability"] = w.sec("Limitation of Liability" if s.liability == "capped" else "Liability", liability_text(w, s, us, them))


def _general(w: Writer, s: Spec, us: str, them: str) -> None:
    w.heading("General")
    w.sec("Notices", "All notices under this Agreement shall be in writing and delivered by hand, by courier, or by email with confirmation of receipt, to the addresses set out above or as later notified.")
    s.sections["assignment"] = w.sec("Assignment", assignment_text(w, s, us, them))
    if "coc" not in s.sections and s.coc != "none":
        s.sections["coc"] = w.sec("Change of Control", coc_text(w, s, us, them))
    if w.rng.random() < 0.5:
        w.sec("Force Majeure", "Neither party shall be liable for any failure or delay in performance caused by events beyond its reasonable control, including acts of God, war, terrorism, epidemic, governmental action or failure of public utilities.")
    s.sections["law"] = w.sec("Governing Law and Jurisdiction", law_text(w, s))
    w.sec("Entire Agreement", "This Agreement constitutes the entire agreement between the parties relating to its subject matter and supersedes all prior negotiations, representations and agreements, whether written or oral.")
    if w.rng.random() < 0.5:
        w.sec("Counterparts", "This Agreement may be executed in counterparts, each of which is an original and all of which together constitute one instrument. Electronic signatures are binding.")


def body_nda(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    w.heading("Purpose")
    w.sec("Purpose", f"The parties wish to exchange information for the purpose of {s.extra['purpose']} (the \u201cPurpose\u201d).")
    w.heading("Confidentiality")
    w.sec("Definition", "\u201cConfidential Information\u201d means all non-public information disclosed by a party, in any form, that is marked confidential or that a reasonable person would understand to be confidential, including business plans, customer lists, pricing, source code and financial information.")
    w.sec("Obligations", "The receiving party shall use the Confidential Information solely for the Purpose, protect it with at least reasonable care, and not disclose it to any third party except its representatives who need to know it for the Purpose.")
    w.sec("Exclusions", "Confidential Information does not include information that is or becomes public through no fault of the receiving party, was known to it before disclosure, is independently developed, or is rightfully received from a third party without restriction.")
    w.heading("Term and Termination")
    _term(w, s, us, them, renew=False)
    w.sec("Return of Information", "Upon the disclosing party\u2019s request, the receiving party shall promptly return or destroy all Confidential Information and certify its destruction in writing.")
    if s.coc != "none":
        s.sections["coc"] = w.sec("Change of Control", coc_text(w, s, us, them))
    if s.liability != "none":
        _liability_article(w, s, us, them)
    _general(w, s, us, them)


def _fees(w: Writer, s: Spec, us: str, them: str, payer: str) -> None:
    w.heading("Fees and Payment")
    w.sec("Fees", f"{payer} shall pay the fees set out in each Order, which are expected to total approximately {_money(s.annual_value)} per contract year.")
    w.sec("Invoicing", f"Fees are invoiced {w.pick(['annually in advance', 'quarterly in advance', 'monthly in arrears'])} and are payable within {w.pick(['thirty (30)', 'forty-five (45)', 'sixty (60)'])} days of the invoice date.")
    if w.rng.random() < 0.6:
        w.sec("Taxes", "Fees exclude all sales, use, value added and similar taxes, which the paying party shall pay, except taxes on the other party\u2019s net income.")


def body_msa(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    w.heading("Services")
    w.sec("Scope", f"{us} shall provide to {them} the {s.extra['service']} described in one or more statements of work or order forms executed under this Agreement (each, an \u201cOrder\u201d).")
    w.sec("Service Levels", f"{us} shall use commercially reasonable efforts to make the services available {w.pick(['99.5%', '99.9%', '99.0%'])} of the time in each calendar month, excluding scheduled maintenance.")
    if w.rng.random() < 0.5:
        w.sec("Personnel", f"{us} shall assign appropriately qualified personnel and remains responsible for its subcontractors.")
    _fees(w, s, us, them, them)
    w.heading("Term and Termination")
    _term(w, s, us, them)
    _termination(w, s, us, them)
    w.heading("Confidentiality")
    _confidentiality(w, s, us, them)
    if w.rng.random() < 0.7:
        w.heading("Indemnification")
        w.sec("Indemnity by " + us, f"{us} shall defend and indemnify {them} against any third-party claim alleging that the services infringe that party\u2019s intellectual property rights.")
        w.sec("Procedure", "The indemnified party shall give prompt notice of the claim, allow the indemnifying party sole control of its defence, and provide reasonable cooperation at the indemnifying party\u2019s expense.")
    _liability_article(w, s, us, them)
    _general(w, s, us, them)


def body_supply(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    w.heading("Supply")
    w.sec("Products", f"{them} shall supply to {us} the {s.extra['goods']} listed in Schedule 1 in the quantities ordered by {us} from time to time.")
    w.sec("Delivery", f"Delivery is {w.pick(['DAP', 'FCA', 'DDP'])} (Incoterms 2020) to {us}\u2019s facility in {deal.target_city}. Title and risk pass on delivery.")
    w.sec("Forecasts", f"{us} shall provide a rolling {w.pick(['six (6)', 'twelve (12)', 'three (3)'])}-month non-binding forecast on the first business day of each month.")
    _fees(w, s, us, them, us)
    w.heading("Term and Termination")
    _term(w, s, us, them)
    _termination(w, s, us, them)
    w.heading("Warranties")
    w.sec("Product Warranty", f"{them} warrants that the products will conform to their specifications and be free from defects in materials and workmanship for {w.pick(['twelve (12)', 'eighteen (18)', 'twenty-four (24)'])} months from delivery.")
    _liability_article(w, s, us, them)
    _general(w, s, us, them)


def body_lease(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    w.heading("Premises")
    w.sec("Premises", f"Landlord leases to Tenant, and Tenant leases from Landlord, approximately {s.extra['sqft']:,} rentable square feet on the {s.extra['floor']} floor of the building at {s.extra['address']} (the \u201cPremises\u201d).")
    w.sec("Permitted Use", "Tenant shall use the Premises for general office purposes and for no other purpose without Landlord\u2019s prior written consent.")
    w.heading("Term")
    _term(w, s, us, them, renew=False)
    w.sec("Option to Renew", f"Tenant may extend the Term for one further period of {w.pick(['three (3)', 'five (5)'])} years at the then prevailing market rent by giving at least nine (9) months\u2019 notice.")
    w.heading("Rent")
    w.sec("Base Rent", f"Tenant shall pay annual base rent of {_money(s.annual_value)}, payable in equal monthly installments in advance on the first day of each month.")
    w.sec("Escalation", f"Base Rent increases by {w.pick(['2.5%', '3%', '3.5%'])} on each anniversary of the Commencement Date.")
    w.sec("Security Deposit", f"Tenant has deposited {_money(round(s.annual_value / 6, -2))} as security for its obligations under this Lease.")
    w.heading("Maintenance and Repairs")
    w.sec("Landlord Repairs", "Landlord shall maintain the structure, roof and building systems in good repair.")
    w.sec("Tenant Repairs", "Tenant shall keep the interior of the Premises in good condition, reasonable wear and tear excepted.")
    w.heading("Transfers")
    s.sections["assignment"] = w.sec("Assignment and Subletting", assignment_text(w, s, "Tenant", "Landlord"))
    if s.coc != "none":
        s.sections["coc"] = w.sec("Change of Control of Tenant", coc_text(w, s, "Tenant", "Landlord"))
    w.heading("Default")
    w.sec("Events of Default", "Each of the following is an Event of Default: failure to pay rent within ten (10) days after it is due; failure to perform any other obligation within thirty (30) days after notice; or Tenant\u2019s insolvency.")
    w.sec("Remedies", "Upon an Event of Default Landlord may terminate this Lease, re-enter the Premises and recover all damages permitted by law.")
    if s.liability != "none":
        _liability_article(w, s, "Tenant", "Landlord")
    w.heading("Miscellaneous")
    s.sections["law"] = w.sec("Governing Law", law_text(w, s))
    w.sec("Quiet Enjoyment", "So long as Tenant is not in default, Tenant shall peaceably enjoy the Premises without hindrance by Landlord.")


def body_employment(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    e = s.extra
    w.heading("Employment")
    w.sec("Position", f"The Company employs the Executive as {e['role']}, reporting to {e['reports_to']}. The Executive shall devote substantially all of the Executive\u2019s business time to the Company.")
    w.sec("Start Date", f"Employment begins on {_date(s.effective)} and continues until terminated under Article 4 of this Agreement.")
    w.heading("Compensation")
    w.sec("Base Salary", f"The Company shall pay the Executive an annual base salary of {_money(s.annual_value)}, payable in accordance with the Company\u2019s payroll practices.")
    w.sec("Annual Bonus", f"The Executive is eligible for an annual target bonus of {e['bonus']}% of base salary, based on performance objectives set by the Board.")
    w.sec("Equity", f"Subject to Board approval, the Executive shall be granted an option to purchase {e['options']:,} shares of common stock, vesting over four (4) years with a one-year cliff.")
    w.heading("Benefits")
    w.sec("Benefits", "The Executive may participate in the benefit plans the Company offers to its senior employees, on their terms.")
    w.sec("Vacation", f"The Executive is entitled to {w.pick(['twenty (20)', 'twenty-five (25)', 'fifteen (15)'])} days of paid vacation per year.")
    w.heading("Termination")
    w.sec("At-Will Employment", "Either party may terminate the Executive\u2019s employment at any time, with or without Cause, on thirty (30) days\u2019 written notice, except that the Company may terminate for Cause immediately.")
    w.sec("Severance", f"If the Company terminates the Executive without Cause, the Company shall pay severance equal to {e['severance']} months of base salary, subject to a release of claims.")
    if s.coc == "termination":
        s.sections["coc"] = w.sec("Change of Control", f"If a Change of Control of the Company occurs, the Executive may terminate employment for Good Reason within twelve (12) months after it, and shall then receive severance equal to {e['severance'] * 2} months of base salary and full acceleration of all unvested equity awards (a \u201cdouble-trigger\u201d benefit). \u201cChange of Control\u201d means the acquisition by any person of more than fifty percent (50%) of the Company\u2019s voting stock, or a sale of substantially all of its assets.")
    elif s.coc == "notice":
        s.sections["coc"] = w.sec("Change of Control", "Upon a Change of Control of the Company, this Agreement shall be assumed by the successor, and the Executive\u2019s unvested equity awards shall continue to vest on their existing schedule.")
    w.heading("Restrictive Covenants")
    w.sec("Non-Solicitation", f"For {w.pick(['twelve (12)', 'eighteen (18)', 'twenty-four (24)'])} months after employment ends, the Executive shall not solicit any employee or customer of the Company.")
    w.sec("Inventions", "All inventions made by the Executive in the course of employment belong to the Company, and the Executive shall execute any documents needed to perfect the Company\u2019s rights.")
    w.heading("General")
    s.sections["assignment"] = w.sec("Assignment", "This Agreement is personal to the Executive and may not be assigned by the Executive. The Company may assign this Agreement to any successor to all or substantially all of its business." if s.assignment == "free" else assignment_text(w, s, "the Executive", "the Company"))
    s.sections["law"] = w.sec("Governing Law", law_text(w, s))


def body_license(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    licensor, licensee = (them, us) if s.kind == "license_in" else (us, them)
    w.heading("Definitions")
    w.sec("Licensed Technology", f"\u201cLicensed Technology\u201d means {s.extra['tech']}, including all updates that {licensor} makes generally available.")
    w.sec("Territory", f"\u201cTerritory\u201d means {w.pick(['worldwide', 'the United States and Canada', 'North America and the European Union'])}.")
    w.heading("Licence Grant")
    w.sec("Grant", f"{licensor} grants to {licensee} a {w.pick(['non-exclusive', 'non-exclusive, non-transferable', 'exclusive (within the field of use)'])} licence in the Territory to use, reproduce and {w.pick(['integrate', 'distribute as part of its products', 'modify'])} the Licensed Technology during the Term.")
    w.sec("Restrictions", f"{licensee} shall not reverse engineer, decompile or sublicense the Licensed Technology except as expressly permitted by this Agreement.")
    w.sec("Ownership", f"{licensor} retains all right, title and interest in the Licensed Technology. No rights are granted by implication.")
    w.heading("Royalties")
    w.sec("Licence Fees", f"{licensee} shall pay {licensor} licence fees of {_money(s.annual_value)} per year, and a royalty of {s.extra['royalty']}% of net sales of products incorporating the Licensed Technology.")
    w.sec("Reports and Audit", f"{licensee} shall deliver quarterly royalty reports, and {licensor} may audit {licensee}\u2019s records once per year on thirty (30) days\u2019 notice.")
    w.heading("Term and Termination")
    _term(w, s, us, them)
    # The clauses bind the target (the company the data room sells) whichever side of the licence it is on.
    _termination(w, s, us, them)
    _liability_article(w, s, us, them)
    _general(w, s, us, them)


def body_credit(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    w.heading("The Facility")
    w.sec("Commitment", f"The Lender agrees to make revolving loans to the Borrower in an aggregate principal amount not exceeding {_money(s.annual_value)} at any time outstanding.")
    w.sec("Interest", f"Loans bear interest at Term SOFR plus {w.pick(['2.25%', '2.75%', '3.00%'])} per annum, payable monthly in arrears.")
    w.sec("Maturity", f"All loans are due and payable on the date falling {s.term_months} months after the Effective Date.")
    w.heading("Covenants")
    w.sec("Financial Covenants", f"The Borrower shall maintain a total leverage ratio of not more than {w.pick(['3.00', '3.50', '2.75'])} to 1.00, tested quarterly.")
    w.sec("Reporting", "The Borrower shall deliver quarterly unaudited and annual audited financial statements within forty-five (45) and one hundred twenty (120) days respectively after the period end.")
    w.heading("Events of Default")
    w.sec("Payment Default", "The Borrower fails to pay any principal when due, or any interest or fee within three (3) business days after it is due.")
    if s.coc != "none":
        s.sections["coc"] = w.sec("Change of Control", f"A Change of Control of the Borrower occurs. Upon such Event of Default the Lender may terminate its commitment and declare all outstanding loans immediately due and payable. \u201cChange of Control\u201d means any person or group acquiring more than thirty-five percent (35%) of the voting equity of the Borrower." if s.coc == "termination" else coc_text(w, s, "the Borrower", "the Lender"))
    w.sec("Remedies", "Upon any Event of Default the Lender may, by notice to the Borrower, terminate the commitment and accelerate the loans.")
    _liability_article(w, s, "the Borrower", "the Lender") if s.liability != "none" else None
    w.heading("Miscellaneous")
    s.sections["assignment"] = w.sec("Successors and Assigns", "The Borrower may not assign or otherwise transfer any of its rights or obligations hereunder without the prior written consent of the Lender, and any attempted assignment without such consent is null and void. The Lender may assign its rights to any eligible assignee." if s.assignment == "prohibited" else assignment_text(w, s, "the Borrower", "the Lender"))
    s.sections["law"] = w.sec("Governing Law", law_text(w, s))


def body_shareholders(w: Writer, s: Spec, deal: Deal, us: str, them: str) -> None:
    w.heading("Board of Directors")
    w.sec("Composition", f"The Board shall consist of {w.pick(['five (5)', 'seven (7)'])} directors, of whom {them} may designate {w.pick(['one (1)', 'two (2)'])}.")
    w.sec("Protective Provisions", f"The Company shall not, without the consent of {them}, issue senior securities, incur indebtedness above {_money(round(s.annual_value * 3, -5))}, or change the size of the Board.")
    w.heading("Transfers of Shares")
    w.sec("Right of First Refusal", f"Before any shareholder transfers shares to a third party, the Company and then {them} shall have the right to purchase them on the same terms.")
    w.sec("Tag-Along", "If the holders of a majority of the shares propose to sell them, each other shareholder may include a pro rata portion of its shares in the sale.")
    if s.coc != "none":
        s.sections["coc"] = w.sec("Drag-Along and Change of Control", coc_text(w, s, us, them))
    w.heading("Information Rights")
    w.sec("Financial Information", f"The Company shall deliver to {them} annual audited and quarterly unaudited financial statements.")
    s.liability = "none"
    w.heading("General")
    s.sections["assignment"] = w.sec("Assignment", assignment_text(w, s, us, them))
    s.sections["law"] = w.sec("Governing Law", law_text(w, s))


BODIES = {"nda": body_nda, "msa": body_msa, "saas": body_msa, "supply": body_supply, "reseller": body_msa, "lease": body_lease,
          "employment": body_employment, "consulting": body_employment, "license_in": body_license, "license_out": body_license,
          "credit": body_credit, "shareholders": body_shareholders}


# -- the data room's list of contracts -------------------------------------------------------------
PLAN = [  # (folder, kind, title, type label, count at scale 1)
    ("Corporate", "shareholders", "Investors\u2019 Rights Agreement", "Shareholders Agreement", 1),
    ("Corporate", "credit", "Revolving Credit Agreement", "Credit Agreement", 1),
    ("Corporate", "nda", "Mutual Non-Disclosure Agreement", "NDA", 4),
    ("Commercial Contracts", "msa", "Master Services Agreement", "MSA", 9),
    ("Commercial Contracts", "saas", "Subscription Services Agreement", "SaaS Agreement", 3),
    ("Commercial Contracts", "supply", "Supply Agreement", "Supply Agreement", 3),
    ("Commercial Contracts", "reseller", "Reseller Agreement", "Reseller Agreement", 2),
    ("Real Estate", "lease", "Office Lease", "Lease", 4),
    ("Employment", "employment", "Executive Employment Agreement", "Employment Agreement", 6),
    ("IP", "license_in", "Technology Licence Agreement", "Licence (in)", 3),
    ("IP", "license_out", "Software Licence Agreement", "Licence (out)", 3),
]
FOLDERS = ("Corporate", "Commercial Contracts", "Real Estate", "Employment", "IP")

SERVICES = ["managed analytics services", "data platform hosting and support services", "implementation and integration services",
            "logistics optimisation software and support", "customer data platform services", "cloud security monitoring services"]
GOODS = ["sensor modules", "server hardware and spare parts", "printed circuit board assemblies", "lithium battery packs", "industrial enclosures"]
TECH = ["the Vireo computer-vision software development kit", "the patented demand-forecasting algorithms described in Schedule A",
        "the StreamLedger event-processing engine", "the Halcyon geospatial mapping libraries", "the company\u2019s route-planning API and its documentation"]
PURPOSES = ["evaluating a possible commercial partnership", "evaluating a possible strategic transaction", "discussing a joint development project",
            "evaluating a potential supply relationship"]
ROLES = [("Chief Technology Officer", "the Chief Executive Officer"), ("Chief Financial Officer", "the Chief Executive Officer"),
         ("Vice President, Sales", "the Chief Executive Officer"), ("Vice President, Engineering", "the Chief Technology Officer"),
         ("General Counsel", "the Chief Executive Officer"), ("Chief Operating Officer", "the Chief Executive Officer"),
         ("Vice President, Product", "the Chief Technology Officer")]
STREETS = ["Market Street", "Congress Avenue", "Wacker Drive", "Boylston Street", "Pine Street", "Peachtree Street", "Broadway"]


def plan_contracts(rng: random.Random, fake, deal: Deal, now: datetime, scale: int) -> list[Spec]:  # noqa: ANN001
    specs: list[Spec] = []
    for folder, kind, title, _label, n in PLAN:
        for _ in range(n * scale):
            effective = now - timedelta(days=rng.randint(120, 365 * 5))
            law = rng.choice(LAWS[:5]) if rng.random() < 0.85 else LAWS[5]
            extra: dict[str, Any] = {}
            if kind == "employment":
                person = fake.name()
                role, boss = rng.choice(ROLES)
                counterparty = person
                extra.update(role=role, reports_to=boss, bonus=rng.choice([20, 25, 30, 40, 50]), options=rng.randrange(40_000, 400_000, 5_000),
                             severance=rng.choice([3, 6, 9, 12]), them_short="Executive", our_signatory=f"{fake.name()}, Chief Executive Officer",
                             their_signatory=person)
                value = float(rng.randrange(185_000, 390_000, 5_000))
                term = 0
            else:
                company = fake.company().replace(",", "")
                suffix = rng.choice([", Inc.", " LLC", " Corp.", ", Ltd.", " Holdings, Inc."])
                # Faker's names may already end in an entity form ("Smith LLC", "Oliver PLC"): add none then.
                counterparty = company + ("" if company.split(" ")[-1] in ("Inc", "LLC", "Ltd", "PLC", "Group", "Sons") else suffix)
                extra["them_short"] = company.split(" ")[0].split("-")[0]
                extra["our_signatory"] = f"{fake.name()}, {rng.choice(['Chief Executive Officer', 'Chief Financial Officer', 'General Counsel'])}"
                extra["their_signatory"] = f"{fake.name()}, {rng.choice(['President', 'Chief Executive Officer', 'Vice President', 'Managing Director'])}"
                if kind == "lease":
                    extra.update(sqft=rng.randrange(4_000, 40_000, 500), floor=rng.choice(["third", "fifth", "eighth", "twelfth", "second"]),
                                 address=f"{rng.randint(100, 2400)} {rng.choice(STREETS)}, {fake.city()}", them_short="Landlord",
                                 them_desc="as landlord")
                    value = float(rng.randrange(120_000, 1_400_000, 10_000))
                    term = rng.choice([36, 60, 84, 120])
                elif kind == "credit":
                    value = float(rng.choice([5_000_000, 10_000_000, 15_000_000, 25_000_000]))
                    term = rng.choice([36, 48, 60])
                    extra["them_short"] = "Lender"
                else:
                    value = float(rng.randrange(40_000, 2_000_000, 5_000))
                    term = rng.choice([12, 24, 36, 60])
            if kind == "nda":
                value, term = None, rng.choice([12, 24, 36])
                extra["purpose"] = rng.choice(PURPOSES)
            extra["service"] = rng.choice(SERVICES)
            extra["goods"] = rng.choice(GOODS)
            extra["tech"] = rng.choice(TECH)
            extra["royalty"] = rng.choice([2, 3, 4, 5, 6, 8])
            # The key clauses: most contracts are standard, some are not (the review's findings).
            if kind in ("msa", "saas", "supply", "reseller", "license_in", "license_out"):
                coc = rng.choices(["none", "notice", "consent", "termination"], [3, 2, 2, 3])[0]
                assignment = rng.choices(["free", "consent", "prohibited"], [3, 4, 2])[0]
                liability = rng.choices(["capped", "uncapped"], [4, 1])[0]
            elif kind == "lease":
                coc = rng.choices(["none", "consent", "termination"], [2, 3, 1])[0]
                assignment = rng.choices(["consent", "prohibited"], [3, 1])[0]
                liability = rng.choices(["none", "capped"], [2, 1])[0]
            elif kind == "employment":
                coc = rng.choices(["none", "notice", "termination"], [2, 1, 2])[0]
                assignment, liability = "free", "none"
            elif kind == "credit":
                coc, assignment, liability = "termination", "prohibited", "none"
            elif kind == "shareholders":
                coc, assignment, liability = rng.choice(["notice", "consent"]), "consent", "none"
            else:  # nda
                coc = rng.choices(["none", "notice"], [4, 1])[0]
                assignment = rng.choices(["free", "consent", "prohibited"], [1, 3, 1])[0]
                liability = rng.choices(["none", "capped", "uncapped"], [3, 1, 1])[0]
            cap = ""
            if liability == "capped":
                cap = rng.choice([
                    "the total fees paid or payable under this Agreement in the twelve (12) months preceding the event giving rise to the claim",
                    f"{_money(rng.choice([250_000, 500_000, 1_000_000, 2_000_000]))}",
                    "two times (2x) the fees paid under this Agreement in the preceding twelve (12) months",
                    "the fees paid under the applicable Order"])
            specs.append(Spec(category=folder, kind=kind, title=title, counterparty=counterparty, effective=effective, term_months=term,
                              law=law, coc=coc, assignment=assignment, liability=liability, cap=cap, annual_value=value, extra=extra))
    # Counterparties are unique, so a contract is named by its counterparty.
    seen: set[str] = set()
    for s in specs:
        while s.counterparty in seen:
            s.counterparty = s.counterparty.replace(",", "") + " II"
        seen.add(s.counterparty)
    return specs


def file_name(s: Spec) -> str:
    who = s.counterparty.replace(".", "").replace(",", "")
    label = {"nda": "NDA", "msa": "MSA", "saas": "Subscription Agreement", "supply": "Supply Agreement", "reseller": "Reseller Agreement",
             "lease": "Lease", "employment": "Employment Agreement", "license_in": "Licence Agreement (in)", "license_out": "Licence Agreement (out)",
             "credit": "Credit Agreement", "shareholders": "Investors Rights Agreement"}[s.kind]
    return f"{label} - {who} ({s.effective.year})"
