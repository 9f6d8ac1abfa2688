"""Classic preferans (seed 003, docs/rules-classic.md): one preset, its own auction and sheet."""
