"""One deal: its state, the phases, the dispatch (``apply``, ``legal_actions``, ``view``), the
hooks a rule set gives it, and the default move of an expired timer. Imports ``core`` and
``search``, never a variant."""
