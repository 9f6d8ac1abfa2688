"""The rule sets of prefclub, one package each, and the registry's built-in list.

================  ===========================================================================
``club``          the club family: ``club``, ``sochi``, ``leningrad``, ``rostov`` (RULES.md)
``arabic``        seed 004, Arabic preferans (docs/rules-arabic.md)
``classic``       seed 003, classic preferans (docs/rules-classic.md)
================  ===========================================================================

Importing this package registers them, in :data:`BUILT_IN` order (the order the lobby lists
them). A variant imports the shared engine and never another variant; the shared engine imports
no variant (import-linter contracts in pyproject.toml). docs/architecture.md "How to add a rule
set" says how a new one is written; a rule set from outside (a test's toy one) calls
:func:`app.rules.core.ruleset.register` itself.
"""

from app.rules.core.ruleset import RuleSet, register
from app.rules.variants.arabic.arabic_rules import ARABIC_RULES
from app.rules.variants.classic.classic_rules import CLASSIC_RULES
from app.rules.variants.club.club_rules import CLUB_RULES

BUILT_IN: tuple[RuleSet, ...] = (CLUB_RULES, ARABIC_RULES, CLASSIC_RULES)

for _rule_set in BUILT_IN:
    register(_rule_set)
