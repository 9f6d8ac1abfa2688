"""``prefclub serve`` with the toy rule set registered: the same command line, one import more.

Run as ``python -m tests.toy.serve_with_toy serve``; the arguments are ``prefclub``'s.
"""

from __future__ import annotations

import runpy
import sys

from tests.toy.toy_rules import register_toy

if __name__ == "__main__":
    register_toy()
    sys.argv = ["prefclub", *sys.argv[1:]]
    runpy.run_module("app.cli", run_name="__main__", alter_sys=True)
