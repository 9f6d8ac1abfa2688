"""After the deal: the sheet, settlement, the pulka and its ``pulka/1`` record, penalties and
statistics, and the hooks a rule set gives them. Imports ``core`` only, never a variant."""
