"""The CMDB: laptops of every employee, servers, databases, applications (including the products the
company sells, from the CRM's catalogue), network gear and printers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from ...world.seeding import SeedContext
from ..models import ConfigItem
from . import vocab as V
from .base import insert
from .people import Staff

SITE_CODES = {"Boston HQ": "bos", "Chicago office": "chi", "Denver office": "den", "Austin office": "aus", "London office": "lon"}
DOMAINS = ["fin", "crm", "hr", "ops", "wh", "web", "erp", "pay"]
# The company's own products (the CRM sells them) run as applications the desk supports.
PRODUCT_APPS = ["Platform", "Analytics Add-on", "Cloud Storage", "Edge Gateway Firmware", "Sensor Kit Telemetry", "Mobile App", "Admin Console", "Public API"]


@dataclass
class CIs:
    by_class: dict[str, list[dict]] = field(default_factory=dict)
    laptop_of: dict[int, dict] = field(default_factory=dict)  # user id -> laptop
    databases: dict[str, list[dict]] = field(default_factory=dict)  # engine -> CIs

    def pick(self, rng, ci_class: str) -> dict | None:
        items = self.by_class.get(ci_class)
        return rng.choice(items) if items else None


def seed_cmdb(ctx: SeedContext, staff: Staff) -> CIs:
    rng = ctx.random("desk.cmdb")
    fake = ctx.faker("desk.cmdb")
    now = ctx.clock.now
    g = staff.groups
    rows: list[dict] = []
    out = CIs()

    def add(ci_class: str, **values) -> dict:
        installed = now - timedelta(days=rng.randint(30, 1600))
        row = {
            "id": len(rows) + 1, "ci_class": ci_class, "operational_status": "Operational", "environment": None,
            "asset_tag": None, "serial_number": None, "manufacturer": None, "model": None, "os": None,
            "ip_address": None, "location": None, "assigned_to_id": None, "support_group_id": None,
            "install_date": installed.date(), "warranty_expiration": None, "description": "",
            "created_at": installed, "updated_at": installed + timedelta(days=rng.randint(0, (now - installed).days)),
        }
        row.update(values)
        rows.append(row)
        out.by_class.setdefault(ci_class, []).append(row)
        return row

    def status() -> str:
        return rng.choices(["Operational", "Non-Operational", "Repair in Progress", "Retired"], [90, 4, 3, 3])[0]

    # Laptops: one per employee, plus stock.
    for k, user in enumerate(staff.users + [None] * (40 * ctx.scale)):
        maker, model = rng.choice(V.LAPTOPS)
        row = add("Computer", name=f"LT-{10400 + k}", manufacturer=maker, model=model, os=V.LAPTOP_OS[maker],
                  asset_tag=f"P{1000200 + k}", serial_number=fake.bothify("??#####??").upper(),
                  location=rng.choice(V.SITES), assigned_to_id=user.id if user else None,
                  support_group_id=g["Hardware"], operational_status="Operational" if user else rng.choice(["Operational", "Repair in Progress", "Retired"]))
        row["warranty_expiration"] = row["install_date"] + timedelta(days=3 * 365)
        row["description"] = f"{maker} {model}" + (f" issued to {user.first_name} {user.last_name}" if user else " in stock")
        if user:
            out.laptop_of[user.id] = row
    # Servers.
    for k in range(250 * ctx.scale):
        site = rng.choice(list(SITE_CODES))
        env = rng.choices(["Production", "Test", "Development"], [60, 25, 15])[0]
        role = rng.choice(V.SERVER_ROLES)
        maker, model = rng.choice(V.SERVERS)
        add("Server", name=f"{SITE_CODES[site]}-{role}-{env[0].lower()}{k + 1:03d}", environment=env, manufacturer=maker, model=model,
            os=rng.choice(V.SERVER_OS), ip_address=f"10.{rng.randint(10, 60)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
            location=site, support_group_id=g["Application Support"] if role in ("app", "web", "batch", "etl") else g["Service Desk"],
            serial_number=fake.bothify("SRV-####-??").upper(), operational_status=status(),
            description=f"{env} {role} server at the {site}")
    # Databases.
    for k in range(60 * ctx.scale):
        engine = rng.choice(list(V.DB_ENGINES))
        dom = rng.choice(DOMAINS)
        env = rng.choices(["Production", "Test", "Development"], [55, 30, 15])[0]
        row = add("Database", name=f"{V.DB_ENGINES[engine]}-{dom}-{env[:3].lower()}{k + 1:02d}", environment=env, model=engine,
                  location=rng.choice(list(SITE_CODES)), support_group_id=g["Database"], operational_status=status(),
                  description=f"{engine} database for the {dom.upper()} domain ({env.lower()})")
        out.databases.setdefault(engine, []).append(row)
    # Applications: SaaS, internal tools and the company's products.
    for name in V.APP_NAMES + V.INTERNAL_APPS + PRODUCT_APPS:
        internal = name in V.INTERNAL_APPS or name in PRODUCT_APPS
        add("Application", name=name, environment="Production", support_group_id=g["Application Support"] if name != "Outlook" else g["Messaging"],
            description=("Customer-facing product service" if name in PRODUCT_APPS else "Internal application" if internal else "Licensed SaaS application"))
    # Network gear and printers.
    for k in range(80 * ctx.scale):
        maker, model, prefix = rng.choice(V.NETWORK)
        site = rng.choice(list(SITE_CODES))
        add("Network Gear", name=f"{site_code(site)}-{prefix}-{k + 1:03d}", manufacturer=maker, model=model, location=site,
            ip_address=f"10.{rng.randint(1, 9)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}", support_group_id=g["Network"],
            operational_status=status(), description=f"{maker} {model} at the {site}")
    for k in range(30 * ctx.scale):
        maker, model = rng.choice(V.PRINTERS)
        site = rng.choice(list(SITE_CODES))
        floor = rng.choice(V.FLOORS)
        add("Printer", name=f"PRN-{site_code(site).upper()}-{k + 1:02d}", manufacturer=maker, model=model, location=site,
            support_group_id=g["Service Desk"], description=f"{maker} {model}, {floor}")
    insert(ctx, ConfigItem, rows)
    return out


def site_code(site: str) -> str:
    return SITE_CODES.get(site, "rem")
