"""The exact double-dummy search: the solver, claims and the analysis of a played deal.
Imports ``core`` only."""
