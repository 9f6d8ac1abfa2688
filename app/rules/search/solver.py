"""A fast exact double-dummy solver for the claim check (R-W11, R-W9).

Three active hands (the declarer against two defenders who cooperate), all cards known. The
declarer maximises his *good* tricks: tricks he wins in a game, tricks he does not win on
misère (R-W10). The search answers null-window questions "can the declarer get ``need`` good
tricks?" and finds the exact value by a few of them (MTD(f)-style), sharing one transposition
table between them:

* the table is keyed at trick boundaries by a *canonical* position: in each suit only the order
  of the cards still alive matters, so the owners of the alive cards, ranked, plus the leader,
  identify the position (positions reached by playing different but equivalent cards merge);
  it stores bounds ``(lo, hi)`` on the good tricks still to come, valid for every ``need``;
* cards that touch among the cards still alive (the current trick included) are equivalent,
  so only one card of each run is tried;
* sure-trick bounds at trick boundaries (games): the leader's cashable top cards, a top run of
  trumps in one hand;
* misère bounds at trick boundaries: the tricks the declarer surely loses in a row while he
  ducks every lead of each suit he holds (his ``i``-th lowest card of the suit below the
  defenders' ``i``-th lowest, ``_DUCKS``), also after an exit lead a defender must cover; one
  more lost trick by ducking, or by winning and then running a suit a defender cannot duck
  all the way (``_RUN_LOSES``); a trick he must win (all his cards top, or a lead he must
  beat) when he must lose every trick;
* moves are ordered: the previous best lead of the position first (games: high leads; misère:
  the defenders lead the declarer's suits); the second hand tries its winning cards first; the
  last hand wins a trick cheaply when its side wants it, else plays its cheapest card; the
  misère declarer ducks as high as he can; his leads: see ``_probe``;
* the last hand's cards are grouped by who wins the trick, and when the trick settles the
  question the group is not searched; the last trick is played out inline;
* misère proofs depend much on the declarer's lead order, and no one order is best on every
  deal: each null-window search tries three orders in turn with a budget of positions,
  doubled each round, keeping in the table what every attempt proved (``_probe``).

Pure Python on integer card masks (card ``8 * suit + rank``); no allocation beyond the small
move lists in the inner loop. All public entry points are module-level functions with plain
int/bool arguments, so they can run in a worker process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from app.rules.core.cards import SUIT_MASKS, CardMask
from app.rules.core.play import legal_cards, trick_winner


def _build_pext() -> list[int]:
    """``_PEXT[alive << 8 | sub]``: the bits of ``sub`` compressed to the positions of
    ``alive`` (a software PEXT on one suit's eight ranks), for every ``sub`` within ``alive``."""
    table = [0] * 65536
    for alive in range(256):
        positions = [r for r in range(8) if alive >> r & 1]
        sub = alive
        while True:
            packed = 0
            for i, r in enumerate(positions):
                if sub >> r & 1:
                    packed |= 1 << i
            table[alive << 8 | sub] = packed
            if sub == 0:
                break
            sub = (sub - 1) & alive
    return table


_PEXT = _build_pext()


def _build_top_runs() -> list[int]:
    """``_TOP_RUN[alive << 8 | held]``: how many of the highest cards of ``alive`` (one suit)
    are in ``held`` without a gap: the sure winners of that suit for whoever holds them."""
    table = [0] * 65536
    for alive in range(256):
        sub = alive
        while True:
            run = 0
            for rank in range(7, -1, -1):
                if alive >> rank & 1:
                    if sub >> rank & 1:
                        run += 1
                    else:
                        break
            table[alive << 8 | sub] = run
            if sub == 0:
                break
            sub = (sub - 1) & alive
    return table


_TOP_RUN = _build_top_runs()


def _build_runs() -> tuple[list[tuple[int, ...]], ...]:
    """``_RUNS[suit][alive << 8 | held]``: one card (the lowest) of each run of ``held`` cards
    that touch among the ``alive`` cards of ``suit``, low runs first, as card numbers."""
    tables: list[list[tuple[int, ...]]] = []
    for suit in range(4):
        table: list[tuple[int, ...]] = [()] * 65536
        for alive in range(256):
            sub = alive
            while sub:
                cards: list[int] = []
                previous_held = False
                for rank in range(8):
                    if not alive >> rank & 1:
                        continue
                    held = sub >> rank & 1 == 1
                    if held and not previous_held:
                        cards.append(8 * suit + rank)
                    previous_held = held
                table[alive << 8 | sub] = tuple(cards)
                sub = (sub - 1) & alive
        tables.append(table)
    return tuple(tables)


_RUNS = _build_runs()


def _disjoint_pairs() -> Iterator[tuple[int, int]]:
    """Every pair of disjoint 8-card masks of one suit ``(mine, theirs)``, ``theirs`` possibly
    empty: the keys of the per-suit tables below."""
    for mine in range(256):
        rest = 255 & ~mine
        theirs = rest
        while True:
            yield mine, theirs
            if not theirs:
                break
            theirs = (theirs - 1) & rest


def _build_run_loses() -> bytes:
    """``_RUN_LOSES[mine << 8 | theirs]`` (one suit, disjoint masks): does a hand holding
    ``mine`` that leads the suit again and again, lowest card first, surely lose a trick to a
    defender holding ``theirs``? The defender must follow suit, so he ducks the ``j``-th lead
    only with his ``j``-th lowest card or a lower one: it fails once his ``j``-th lowest card is
    above the ``j``-th lowest card of ``mine`` (``j`` up to the shorter length)."""
    table = bytearray(65536)
    for mine, theirs in _disjoint_pairs():
        a, b = mine, theirs
        while a and b:
            if b & -b > a & -a:
                table[mine << 8 | theirs] = 1
                break
            a &= a - 1
            b &= b - 1
    return bytes(table)


_RUN_LOSES = _build_run_loses()


def _build_ducks() -> bytes:
    """``_DUCKS[mine << 8 | theirs]`` (one suit, disjoint masks): for how many leads of the
    suit in a row a hand holding ``mine`` that is not on lead surely plays under the led card
    (15: all of them). With its highest card below the led card each time, it can while the
    ``i``-th lowest card of ``mine`` is below the ``i``-th lowest of ``theirs`` for every
    ``i`` up to that count (a lead takes one of ``theirs``; the condition stays for one lead
    fewer; cards of ``theirs`` played otherwise only help, and so does giving up the highest
    card of ``mine``): the count is the length of that prefix."""
    table = bytearray(65536)
    for mine, theirs in _disjoint_pairs():
        a, b = mine, theirs
        count = 0
        while a and b:
            if b & -b < a & -a:
                break
            count += 1
            a &= a - 1
            b &= b - 1
        else:
            count = 15
        table[mine << 8 | theirs] = count
    return bytes(table)


_DUCKS = _build_ducks()


def _runs(candidates: CardMask, alive: CardMask) -> tuple[int, ...]:
    """One card of each run of touching cards (among ``alive``) in ``candidates``, the lowest
    card of each run, low runs first (suit by suit)."""
    out: tuple[int, ...] = ()
    for suit in range(4):
        shift = 8 * suit
        held = candidates >> shift & 255
        if held:
            out += _RUNS[suit][(alive >> shift & 255) << 8 | held]
    return out


_GAME_GUESS = 6
"""The first value probed for a game: six tricks, the lowest contract (R-B3)."""

Search = Callable[[int, int, int, int, int], bool]


class _OutOfBudget(Exception):
    """A search ran past its budget of positions (see :func:`_probe`)."""


def _make_search(
    trump: int | None, declarer: int, misere: bool
) -> tuple[Search, dict[int, int], list[int]]:
    """A null-window search ``reach(h0, h1, h2, leader, need)`` for one trump, declarer and
    goal, with its transposition table (a position's key to ``lo << 8 | hi``) and its control
    ``[mode, budget]``: the misère declarer's lead order (0, 1, 2) and how many more positions
    it may search before it raises :class:`_OutOfBudget` (the table keeps only finished
    results, so an interrupted search leaves it valid)."""
    table: dict[int, int] = {}
    control = [0, _UNLIMITED]
    best_lead: dict[int, int] = {}
    canonical: dict[int, int] = {}
    tmask = SUIT_MASKS[trump] if trump is not None else 0
    pext = _PEXT
    top_run = _TOP_RUN
    trump_shift = 8 * trump if trump is not None else -1
    runs = _runs
    runs_by_suit = _RUNS
    run_loses = _RUN_LOSES
    ducks = _DUCKS
    decl = declarer
    # good[w]: is a trick won by position w good for the declarer?
    good = tuple(1 if (w == declarer) != misere else 0 for w in range(3))

    def beats(card: int, best: int) -> bool:
        """Does ``card`` beat the trick's current best card ``best``?"""
        if card >> 3 == best >> 3:
            return card > best
        return tmask >> card & 1 == 1

    def quick_tricks(hand: int, other1: int, other2: int, alive: int) -> int:
        """Tricks the leader with ``hand`` surely takes by cashing his top cards: every top run
        of trumps; in a side suit the top run, capped by the length of any other hand that
        holds trumps (it must follow that long, then it might ruff)."""
        total = 0
        for shift in (0, 8, 16, 24):
            held = hand >> shift & 255
            if not held:
                continue
            run = top_run[(alive >> shift & 255) << 8 | held]
            if run and shift != trump_shift:
                if other1 & tmask:
                    run = min(run, (other1 >> shift & 255).bit_count())
                if other2 & tmask:
                    run = min(run, (other2 >> shift & 255).bit_count())
            total += run
        return total

    def reach(h0: int, h1: int, h2: int, leader: int, need: int) -> bool:
        """Can the declarer get ``need`` (``1 <= need <= tricks left``) good tricks?"""
        n = h0.bit_count()
        alive = h0 | h1 | h2
        if n == 1:
            # the last trick: every card is forced
            hands = (h0, h1, h2)
            c1 = hands[leader].bit_length() - 1
            bw, bc = leader, c1
            p = leader + 1 if leader < 2 else 0
            c = hands[p].bit_length() - 1
            if beats(c, bc):
                bw, bc = p, c
            p = p + 1 if p < 2 else 0
            c = hands[p].bit_length() - 1
            if beats(c, bc):
                bw = p
            return good[bw] >= need
        raw = ((h0 << 32 | h1) << 32 | h2) << 2 | leader
        key = canonical.get(raw)
        if key is None:
            a0 = alive & 255
            a1 = alive >> 8 & 255
            a2 = alive >> 16 & 255
            a3 = alive >> 24
            key = (
                (
                    (
                        pext[a0 << 8 | (h0 & 255)]
                        | pext[a0 << 8 | (h1 & 255)] << 8
                        | pext[a1 << 8 | (h0 >> 8 & 255)] << 16
                        | pext[a1 << 8 | (h1 >> 8 & 255)] << 24
                        | pext[a2 << 8 | (h0 >> 16 & 255)] << 32
                        | pext[a2 << 8 | (h1 >> 16 & 255)] << 40
                        | pext[a3 << 8 | (h0 >> 24)] << 48
                        | pext[a3 << 8 | (h1 >> 24)] << 56
                    )
                    << 2
                    | leader
                )
                << 16
                | a0.bit_count()
                | a1.bit_count() << 4
                | a2.bit_count() << 8
                | a3.bit_count() << 12
            )
            canonical[raw] = key
        entry = table.get(key)
        if entry is None:
            lo, hi = 0, n + 1
        else:
            lo, hi = entry >> 8, entry & 255
            if need <= lo:
                return True
            if need >= hi:
                return False
        control[1] -= 1
        if control[1] < 0:
            raise _OutOfBudget
        hands = (h0, h1, h2)
        p1 = leader
        p2 = p1 + 1 if p1 < 2 else 0
        p3 = p2 + 1 if p2 < 2 else 0
        ha, hb, hc = hands[p1], hands[p2], hands[p3]
        if not misere:
            # sure tricks: the leader's cashable top cards; a top run of trumps in one hand
            if p1 == decl:
                sure = quick_tricks(ha, hb, hc, alive)
                if need <= sure:
                    table[key] = need << 8 | hi
                    return True
                sure = n
                if tmask:
                    trumps_alive = (alive >> trump_shift & 255) << 8
                    sure -= (
                        top_run[trumps_alive | hb >> trump_shift & 255]
                        + top_run[trumps_alive | hc >> trump_shift & 255]
                    )
            else:
                sure = n - quick_tricks(ha, hb, hc, alive)
                if tmask:
                    trumps_alive = (alive >> trump_shift & 255) << 8
                    partner = hb if p3 == decl else hc
                    sure = min(sure, n - top_run[trumps_alive | partner >> trump_shift & 255])
                    if need <= top_run[trumps_alive | hands[decl] >> trump_shift & 255]:
                        table[key] = need << 8 | hi
                        return True
            if need > sure:
                table[key] = lo << 8 | need
                return False
        else:
            # misère: the tricks he surely loses in a row (while he does not lead, every suit
            # he holds ducks that long: _DUCKS); on lead, after a lead a defender must cover
            # (the defenders' cards only go)
            dh = hands[decl]
            defenders = alive ^ dh
            if p1 != decl:
                for shift in (0, 8, 16, 24):
                    d = dh >> shift & 255
                    if d and ducks[d << 8 | (defenders >> shift & 255)] < need:
                        break
                else:
                    table[key] = need << 8 | hi
                    return True
            else:
                # the exit loses one; then every suit must duck need - 1 leads: at most one
                # suit may fall short before the exit, and then the exit is in that suit
                short = -1
                for shift in (0, 8, 16, 24):
                    d = dh >> shift & 255
                    if d and ducks[d << 8 | (defenders >> shift & 255)] < need - 1:
                        if short != -1:
                            short = -2
                            break
                        short = shift
                if short != -2:
                    for shift in (0, 8, 16, 24) if short == -1 else (short,):
                        d = dh >> shift & 255
                        o1 = hb >> shift & 255
                        o2 = hc >> shift & 255
                        # his cards below the lowest card of a defender holding the suit
                        cover = max(o1 & -o1, o2 & -o2)
                        below = d & (cover - 1) if cover else 0
                        if below:
                            d ^= 1 << below.bit_length() - 1
                            if not d or ducks[d << 8 | (o1 | o2)] >= need - 1:
                                table[key] = need << 8 | hi
                                return True
            if need == 1 or need == n:
                # can the declarer surely lose one more trick, must he win this one?
                dh = hands[decl]
                lose = False
                if p1 == decl:
                    # he wins every trick while each of his cards is above every defender's card of
                    # its suit (the lead stays with him); he loses one by running a suit, low cards
                    # first, that a defender cannot duck all the way (_RUN_LOSES)
                    win = True
                    for shift in (0, 8, 16, 24):
                        d = dh >> shift & 255
                        if not d:
                            continue
                        o1 = hb >> shift & 255
                        o2 = hc >> shift & 255
                        if run_loses[d << 8 | o1] or run_loses[d << 8 | o2]:
                            lose = True
                        if (o1 | o2) > d & -d:
                            win = False
                    if win:
                        table[key] = lo << 8 | 1
                        return False
                else:
                    # whatever the leader leads, he discards, ducks under the led card or under the
                    # other defender's card (all of its cards of the suit higher), or wins the trick
                    # and then runs a suit as above against a defender that followed suit; he must
                    # win this trick when his lowest card of a suit the leader holds is above all
                    # the defenders' cards of the suit
                    win = False
                    zh = hc if p2 == decl else hb
                    lose = True
                    for shift in (0, 8, 16, 24):
                        y = ha >> shift & 255
                        d = dh >> shift & 255
                        if not y or not d:
                            continue
                        low = d & -d
                        z = zh >> shift & 255
                        if low > y | z:
                            win = True
                        if low < y & -y or (z and low < z & -z):
                            continue
                        # he may win this trick, then lead
                        for other in (0, 8, 16, 24):
                            if other == shift:
                                continue
                            d = dh >> other & 255
                            if d and (
                                run_loses[d << 8 | (ha >> other & 255)]
                                or (z and run_loses[d << 8 | (zh >> other & 255)])
                            ):
                                break
                        else:
                            lose = False
                if lose and need == 1:
                    table[key] = 1 << 8 | hi
                    return True
                if win and need == n:
                    table[key] = lo << 8 | n
                    return False
        d1, d2, d3 = p1 == decl, p2 == decl, p3 == decl
        if not misere:
            leads = runs(ha, alive)[::-1]
        elif d1:
            # the misère declarer's lead order, by mode (see _probe): 0: low cards first, suit
            # by suit; 1: when he can afford a trick, the top card of each suit he cannot
            # always duck first; 1, 2, and 0 when he must lose every trick: the cards a
            # defender must cover first, high first
            leads = runs(ha, alive)
            mode = control[0]
            if mode or need == n:
                # cards a defender must cover: below the lowest card of a defender holding
                # the suit
                safe = 0
                for shift in (0, 8, 16, 24):
                    o1 = hb >> shift & 255
                    o2 = hc >> shift & 255
                    if o1 | o2:
                        safe |= (max(o1 & -o1, o2 & -o2) - 1) << shift
                first: list[int] = []
                if mode == 1 and need < n:
                    # he can afford a trick: the top card of each suit he cannot always duck
                    top: dict[int, int] = {}
                    for c in leads:
                        top[c & 24] = c
                    first = [
                        c
                        for s, c in top.items()
                        if ducks[(ha >> s & 255) << 8 | ((hb | hc) >> s & 255)] != 15
                    ]
                # then the cards a defender must cover, high first, then the rest low first
                first += [c for c in leads[::-1] if safe >> c & 1 and c not in first]
                if first:
                    leads = (*first, *[c for c in leads if c not in first])
        else:
            # defenders lead the suits the misère declarer still holds first
            target = hands[decl]
            leads = tuple(sorted(runs(ha, alive), key=lambda c: not target >> (c & 24) & 255))
        hint = best_lead.get(key)
        if hint is not None and hint != leads[0] and hint in leads:
            leads = (hint, *leads)
        result = not d1
        for c1 in leads:
            b1 = 1 << c1
            shift = c1 & 24
            suit_runs = runs_by_suit[c1 >> 3]
            suit_alive = (alive >> shift & 255) << 8
            follow = hb >> shift & 255
            cards2 = suit_runs[suit_alive | follow] if follow else runs(hb & tmask or hb, alive)
            if not misere:
                beat2 = [c for c in cards2 if beats(c, c1)]
                cards2 = tuple(beat2) + tuple([c for c in cards2 if c not in beat2])
            elif d2:
                # the misère declarer ducks as high as he can, else wins as low as he can
                cards2 = tuple([c for c in cards2 if c < c1 or c >> 3 != c1 >> 3][::-1]) + tuple(
                    [c for c in cards2 if c > c1 and c >> 3 == c1 >> 3]
                )
            follow3 = hc >> shift & 255
            nh = [h0, h1, h2]
            nh[p1] = ha ^ b1
            r2 = not d2
            for c2 in cards2:
                b2 = 1 << c2
                if (c2 > c1) if c2 >> 3 == c1 >> 3 else tmask >> c2 & 1:
                    w2, best2 = p2, c2
                else:
                    w2, best2 = p1, c1
                if follow3:
                    cards3 = suit_runs[suit_alive | follow3]
                    if best2 >> 3 == c1 >> 3:
                        winners = [c for c in cards3 if c > best2]
                        losers = [c for c in cards3 if c < best2]
                    else:  # ruffed: following suit cannot win
                        winners, losers = [], list(cards3)
                else:
                    cards3 = runs(hc & tmask or hc, alive)
                    winners = [c for c in cards3 if beats(c, best2)]
                    losers = [c for c in cards3 if c not in winners]
                # the last hand overtakes (cheapest winner first) unless the trick already
                # goes the way its side wants; then it plays its cheapest card; the misère
                # declarer ducks with his highest card, else wins high
                if misere and d3:
                    plan = ((losers[::-1], w2), (winners[::-1], p3))
                elif winners and (good[w2] == 1) != d3:
                    plan = ((winners, p3), (losers, w2))
                else:
                    plan = ((losers, w2), (winners, p3))
                nh[p2] = hb ^ b2
                r3 = not d3
                for group, w in plan:
                    if not group:
                        continue
                    left = need - good[w]
                    if left <= 0 or left >= n:
                        # the trick settles the question whatever card of the group is played
                        if (left <= 0) == d3:
                            r3 = d3
                            break
                        continue
                    for c3 in group:
                        if n == 2:
                            # one card each is left: play the last trick out here
                            nh[p3] = hc ^ 1 << c3
                            lw = w
                            lc = nh[w].bit_length() - 1
                            p = w + 1 if w < 2 else 0
                            c = nh[p].bit_length() - 1
                            if beats(c, lc):
                                lw, lc = p, c
                            p = p + 1 if p < 2 else 0
                            c = nh[p].bit_length() - 1
                            if beats(c, lc):
                                lw = p
                            ok = good[lw] >= left
                        else:
                            nh[p3] = hc ^ 1 << c3
                            ok = reach(nh[0], nh[1], nh[2], w, left)
                        if ok == d3:
                            r3 = d3
                            break
                    if r3 == d3:
                        break
                if r3 == d2:
                    r2 = d2
                    break
            if r2 == d1:
                result = d1
                best_lead[key] = c1
                break
        if result:
            lo = need
        else:
            hi = need
        table[key] = lo << 8 | hi
        return result

    return reach, table, control


_UNLIMITED = 1 << 62
_FIRST_BUDGET = 2000
"""Positions the first misère attempt may search in each lead order (then twice as many)."""


def _probe(control: list[int], misere: bool, search: Callable[[], bool]) -> bool:
    """Run one null-window ``search``. A misère proof's size depends much on the declarer's
    lead order, and no one order is good on every deal: try each order with a budget of
    positions, doubling the budget after each round (the table keeps what every attempt
    proved), so the search costs about what the best order costs."""
    if not misere:
        control[1] = _UNLIMITED
        return search()
    budget = _FIRST_BUDGET
    while True:
        for mode in (0, 1, 2):
            control[0] = mode
            control[1] = budget
            try:
                return search()
            except _OutOfBudget:
                pass
        budget *= 2


def _complete_trick(
    reach: Search,
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool,
    need: int,
) -> bool:
    """Search from inside a trick (the root only): play its remaining cards, then ``reach``."""
    if need <= 0:
        return True
    position = (leader + len(trick)) % 3
    hand = hands[position]
    moves = legal_cards(hand, trick[0][1] >> 3, trump)
    alive = hands[0] | hands[1] | hands[2]
    for _, card in trick:
        alive |= 1 << card
    is_declarer = position == declarer
    for card in _runs(moves, alive):
        new_hands = list(hands)
        new_hands[position] ^= 1 << card
        played = (*trick, (position, card))
        if len(played) == 3:
            winner = trick_winner(played, played[0][1] >> 3, trump)
            left = need - (1 if (winner == declarer) != misere else 0)
            rest = new_hands[0].bit_count()
            if left <= 0:
                ok = True
            elif left > rest:
                ok = False
            else:
                ok = reach(new_hands[0], new_hands[1], new_hands[2], winner, left)
        else:
            ok = _complete_trick(
                reach,
                (new_hands[0], new_hands[1], new_hands[2]),
                leader,
                played,
                trump,
                declarer,
                misere,
                need,
            )
        if ok == is_declarer:
            return is_declarer
    return not is_declarer


def reaches(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool,
    need: int,
) -> bool:
    """Can the declarer get ``need`` good tricks of the remaining ones (the current trick
    included) against every defence? Good tricks are won ones (game) or lost ones (misère)."""
    if need <= 0:
        return True
    reach, _, control = _make_search(trump, declarer, misere)
    if trick:
        return _probe(
            control,
            misere,
            lambda: _complete_trick(reach, hands, leader, trick, trump, declarer, misere, need),
        )
    if need > hands[leader].bit_count():
        return False
    return _probe(control, misere, lambda: reach(hands[0], hands[1], hands[2], leader, need))


def max_good_tricks(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool,
) -> int:
    """The exact number of good tricks the declarer can guarantee of the remaining ones."""
    return solve_counted(hands, leader, trick, trump, declarer, misere)[0]


def solve_counted(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool,
) -> tuple[int, int]:
    """:func:`max_good_tricks` by null-window searches sharing one transposition table
    (bisection on the value), with the number of boundary positions in the table (for the
    benchmark's positions per second)."""
    remaining = hands[(leader + len(trick)) % 3].bit_count()
    reach, table, control = _make_search(trump, declarer, misere)

    def test(need: int) -> bool:
        if need <= 0:
            return True
        if need > remaining:
            return False
        if trick:
            return _probe(
                control,
                misere,
                lambda: _complete_trick(reach, hands, leader, trick, trump, declarer, misere, need),
            )
        return _probe(control, misere, lambda: reach(hands[0], hands[1], hands[2], leader, need))

    # the searches near the value are the expensive ones: probe a likely value first
    # (misère: a clean hand; game: six tricks, the lowest contract), then step towards it
    guess = remaining if misere else min(remaining, _GAME_GUESS)
    if test(guess):
        while guess < remaining and test(guess + 1):
            guess += 1
        return guess, len(table)
    guess -= 1
    while guess > 0 and not test(guess):
        guess -= 1
    return guess, len(table)


__all__ = ["max_good_tricks", "reaches", "solve_counted"]
