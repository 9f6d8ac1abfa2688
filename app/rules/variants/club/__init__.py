"""The club family (RULES.md): four presets, ``Conventions`` values on one rule set."""
