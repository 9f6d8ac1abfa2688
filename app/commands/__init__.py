"""Command implementations behind the ``prefclub`` command line (wired up in ``app.cli``)."""
