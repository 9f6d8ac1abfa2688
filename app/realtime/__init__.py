"""Live tables: the per-table event log, fan-out to seats, cross-process notify."""
