"""Persistence: SQLAlchemy models, the engine and the session dependency."""
