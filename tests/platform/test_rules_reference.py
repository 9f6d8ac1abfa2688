"""docs/rules.md is the repository's own rules reference (issue 29): every rule ID that code,
tests or pages cite has exactly one entry there, and it has entries only for rule IDs the rule
texts define.

Only files of the repository are read (CI has nothing else): the IDs cited anywhere under
`app/`, `tests/` and `static/` (every UTF-8 text file; compressed data is skipped), the entries
of docs/rules.md (a level-4 heading holding the ID alone, so its anchor is `#r-b2`, `#a-7`, …),
and the IDs docs/rules-arabic.md and docs/rules-classic.md define (a list item opening with the
bold ID). The club's own specification is not in the repository, so the set of its `R-` IDs is
written here, section by section; it changes only when that specification does.
"""

from __future__ import annotations

import functools
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RULE_ID = re.compile(r"\b(R-[A-Z]{1,2}\d+|A-\d+|K-\d+)\b")
ENTRY = re.compile(r"^#### (R-[A-Z]{1,2}\d+|A-\d+|K-\d+)[ \t]*$", re.MULTILINE)
CITING_TREES = ("app", "tests", "static")

# The club specification's rule IDs: its section letter and how many rules the section has
# (§1 sessions S, §2 tables T, §3 dealing D, §4 bidding B, §5 contract C, §6 whist and play W,
# §7 pass-outs R, §8 scoring P, §9 the fund F, §10 physical tables X, §11 bombs A).
CLUB_SECTIONS = {
    "S": 4,
    "T": 6,
    "D": 5,
    "B": 9,
    "C": 6,
    "W": 12,
    "R": 6,
    "P": 9,
    "F": 5,
    "X": 11,
    "A": 4,
}
CLUB_IDS = {
    f"R-{letter}{n}" for letter, count in CLUB_SECTIONS.items() for n in range(1, count + 1)
}


@functools.cache
def _cited() -> dict[str, str]:
    """Each rule ID cited under the citing trees, with one file that cites it."""
    cited: dict[str, str] = {}
    for tree in CITING_TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            if not path.is_file() or path.suffix == ".gz":
                continue
            try:
                text = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue  # a binary file cites nothing
            for rule_id in RULE_ID.findall(text):
                cited.setdefault(rule_id, str(path.relative_to(ROOT)))
    return cited


def _entries() -> list[str]:
    return ENTRY.findall((DOCS / "rules.md").read_text(encoding="utf-8"))


def _entry_bodies() -> dict[str, str]:
    """Each entry's text, from its heading to the next heading of any level."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    parts = re.split(r"^(#{1,6} .*)$", text, flags=re.MULTILINE)
    bodies: dict[str, str] = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        match = ENTRY.fullmatch(heading)
        if match:
            bodies[match.group(1)] = body
    return bodies


def _defined_in(doc: str, prefix: str) -> set[str]:
    text = (DOCS / doc).read_text(encoding="utf-8")
    return set(re.findall(rf"^- \*\*({prefix}-\d+)\b", text, flags=re.MULTILINE))


def _defined() -> set[str]:
    return CLUB_IDS | _defined_in("rules-arabic.md", "A") | _defined_in("rules-classic.md", "K")


def test_the_citing_files_are_found() -> None:
    cited = _cited()
    # A scan that silently reads nothing would pass the next test; these are cited for sure.
    assert {"R-B2", "A-16", "K-9"} <= set(cited), sorted(cited)


def test_every_cited_rule_id_has_an_entry() -> None:
    entries = set(_entries())
    missing = {
        rule_id: where for rule_id, where in sorted(_cited().items()) if rule_id not in entries
    }
    assert missing == {}, f"add these to docs/rules.md (ID: a file citing it): {missing}"


def test_every_defined_rule_id_has_an_entry() -> None:
    missing = sorted(_defined() - set(_entries()))
    assert missing == [], f"docs/rules.md lacks entries for {missing}"


def test_no_entry_twice_and_none_for_an_undefined_id() -> None:
    entries = _entries()
    twice = sorted({rule_id for rule_id in entries if entries.count(rule_id) > 1})
    assert twice == []
    assert sorted(set(entries) - _defined()) == []


def test_the_variant_rule_texts_define_their_ids() -> None:
    # The A-/K- lists come from the variant texts; an empty parse would make them vacuous.
    assert {f"A-{n}" for n in range(1, 23)} <= _defined_in("rules-arabic.md", "A")
    assert {f"K-{n}" for n in range(1, 14)} <= _defined_in("rules-classic.md", "K")


def test_every_entry_says_what_it_rules_and_names_its_source() -> None:
    bodies = _entry_bodies()
    assert set(bodies) == set(_entries())
    unsourced = sorted(rule_id for rule_id, body in bodies.items() if "\nSource: " not in body)
    assert unsourced == [], f"entries without a 'Source: ' line: {unsourced}"
    thin = sorted(rule_id for rule_id, body in bodies.items() if len(body.split()) < 15)
    assert thin == [], f"entries too short to state a rule: {thin}"
