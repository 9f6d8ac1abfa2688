"""Arabic preferans (seed 004, docs/rules-arabic.md): bombs, dark calls, «преферанс», the spit."""
