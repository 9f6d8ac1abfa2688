"""All models, imported here so that ``Base.metadata`` knows every table."""

from app.db.models.auth import AuthSession, LoginAttempt, PasswordResetToken
from app.db.models.club import (
    Attendance,
    ClubSession,
    ClubSettings,
    DealStart,
    DrawnTable,
    DrawRecord,
    ExtensionConsent,
    LateNotice,
    SeatChange,
)
from app.db.models.member import Member, Role

__all__ = ["Member", "Role"]
__all__ += ["AuthSession", "LoginAttempt", "PasswordResetToken"]
__all__ += [
    "Attendance",
    "ClubSession",
    "ClubSettings",
    "DealStart",
    "DrawRecord",
    "DrawnTable",
    "ExtensionConsent",
    "LateNotice",
    "SeatChange",
]
from app.db.models.table import Pulka, Table, TableCommand, TableEvent, TableSeat  # noqa: E402

__all__ += ["Pulka", "Table", "TableCommand", "TableEvent", "TableSeat"]
from app.db.models.fund import FundEntry, FundProposal, FundVote  # noqa: E402

__all__ += ["FundEntry", "FundProposal", "FundVote"]
from app.db.models.deal_analyses import DealAnalysis, DealLuck  # noqa: E402

__all__ += ["DealAnalysis", "DealLuck"]
from app.db.models.archive import MemberStats, PulkaMemberStats, PulkaStats  # noqa: E402

__all__ += ["MemberStats", "PulkaMemberStats", "PulkaStats"]
from app.db.models.chain import DealChainEntry  # noqa: E402

__all__ += ["DealChainEntry"]

from app.db.models.audit import AuditEntry  # noqa: E402

__all__ += ["AuditEntry"]
from app.db.models.season import MemberNight, MemberRating, RatedPulka, Season  # noqa: E402

__all__ += ["MemberNight", "MemberRating", "RatedPulka", "Season"]
