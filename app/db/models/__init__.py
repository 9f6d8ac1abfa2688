"""All models, imported here so that ``Base.metadata`` knows every table."""

from app.db.models.member import Member, Role

__all__ = ["Member", "Role"]
