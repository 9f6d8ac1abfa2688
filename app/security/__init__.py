"""Passwords, sessions, CSRF and rate limits."""
