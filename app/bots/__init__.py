"""Bots: seat-fillers and load generators that speak the public table protocol."""
