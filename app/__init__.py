"""prefclub: the server a Preferans club runs its Monday nights on."""

__version__ = "0.1.0"
