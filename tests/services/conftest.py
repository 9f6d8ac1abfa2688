"""The services tests share the API tests' fixtures: a frozen club clock, members of each role
and logged-in clients (tests/services/test_audit.py drives the use cases through the API)."""

from tests.api.conftest import clock, evening, logged_in, make_member, seeded

__all__ = ["clock", "evening", "logged_in", "make_member", "seeded"]
