"""The company's people: shared by every app, like a directory behind an SSO."""

from __future__ import annotations

from enum import Enum

from sqlmodel import Field, SQLModel


class Role(str, Enum):
    admin = "admin"
    sales_manager = "sales_manager"
    sales_rep = "sales_rep"
    support_manager = "support_manager"
    support_agent = "support_agent"
    marketing = "marketing"
    it = "it"
    finance = "finance"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ").title()


class UserBase(SQLModel):
    username: str = Field(index=True, unique=True, max_length=64)
    email: str = Field(max_length=254)
    first_name: str = Field(max_length=80)
    last_name: str = Field(max_length=80)
    title: str = Field(default="", max_length=120)
    department: str = Field(default="", max_length=80)
    role: Role = Field(default=Role.sales_rep)
    phone: str = Field(default="", max_length=40)
    manager_id: int | None = Field(default=None, foreign_key="identity_user.id")
    active: bool = True


class User(UserBase, table=True):
    __tablename__ = "identity_user"

    id: int | None = Field(default=None, primary_key=True)
    password_hash: str = Field(default="", max_length=200)

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    @property
    def initials(self) -> str:
        return (self.first_name[:1] + self.last_name[:1]).upper()


class UserPublic(UserBase):
    id: int
