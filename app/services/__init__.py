"""Use cases: each module owns one kind of transaction."""
