"""003 clause 34 (issue 26): «с общего согласия играющие могут убавить по равному числу
ремизов; так, если у одного игрока 23, у другого — 36, у третьего — 40, то… можно убрать…
по 10». On the club's sheet (K-12) the remizes are the hills, and the pulka does not wait for them
to be written off, so the clause's purpose (to finish in time) needs no step; and an equal number
struck from every hill changes no one's money: the settlement pays the differences of the
hills (R-P4, K-12 ``closing = once``). The test works 003's own example by hand.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from app.rules import Conventions, Sheet, settle

CLASSIC = Conventions.preset_named("classic")


def _settled(hills: tuple[int, int, int], pools: tuple[int, int, int]) -> tuple[Decimal, ...]:
    sheet = Sheet(
        pool=tuple(map(Fraction, pools)),
        hill=tuple(map(Fraction, hills)),
        whists=tuple((Fraction(0),) * 3 for _ in range(3)),
    )
    result = settle(sheet, (), CLASSIC, target=10, stake=Decimal("1"), ended="agreement")
    return result.money


def test_striking_ten_remizes_from_23_36_40_changes_no_ones_money() -> None:
    """Pools 10/4/7 against 10, a point short one remiz (K-12): corrected hills 23 + 0, 36 + 6,
    40 + 3 = 23, 42, 43; mean 36; each 10 × (mean - hill): +130, -60, -70. Struck to 13/26/30:
    13, 32, 33; mean 26; the same +130, -60, -70."""
    before = _settled((23, 36, 40), (10, 4, 7))
    after = _settled((13, 26, 30), (10, 4, 7))
    assert before == after == (Decimal("130"), Decimal("-60"), Decimal("-70"))
