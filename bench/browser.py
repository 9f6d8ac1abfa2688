"""The table page at the speed of a hand (issue 28): three real Chromium players at one club
table on this machine play a whole pulka by clicks, and every click is timed in the pages.

    python -m bench.browser [--target 8] [--think-ms 250] [--deals N] [--no-luck] [--raw F] [--json]

It builds a fresh database (the embedded PostgreSQL, unless ``DATABASE_URL`` is set) with three
members (with passwords), a club session open now and one club table of three (``club``
preset, ``--target``), and starts ``prefclub serve`` as ``make run`` does. The first deal is cut
through the table socket (docs/protocol.md) so that every page opens on a hand. Each member then
logs in through the login form in a browser context of his own (Debian's Chromium, headless,
never a downloaded browser) and opens ``#/table/<id>`` in a new tab.

Every page carries an init script (:data:`PAGE_SCRIPT`): a ``MutationObserver`` that notes, with
``performance.timeOrigin + performance.now()`` (the wall clock every page of one machine shares),
when a card appears in the trick (or the completed trick) on the cloth, when a card leaves the
own hand, when the bidding box loses its last enabled button and when the hand is first drawn;
the next frame after each such change (``requestAnimationFrame`` and a message: about when it
was painted); and a wrapper of ``WebSocket`` that notes each command sent and each event, ack and
error received. The same script plays for its seat, by clicking what the page offers, after a
think of ``--think-ms`` (250 ms: a fast player; 0 plays back to back):

* cut in the middle (``#cut-auto``);
* bid: first to speak on a deal whose lowest bid is a seven (after a pass-out, R-R6), the
  lowest bid (``7♠``); otherwise pass — so a pass-out (every card played by click) alternates
  with an unwhisted seven: take the talon, discard the first two cards, name the lowest
  contract, both defenders pass, and the seven is written without play. Pass-outs alone never
  end a club pulka (a pass-out writes no pool, R-R4), and each seven writes 4 in the pool: a
  pulka to ``--target 8`` is 12 deals (6 pass-outs, 180 cards clicked), to 4 it is 6;
* play the first playable card; anything else the panel offers to the seat to move, its first
  enabled button (never a concession); «next deal», if a deal is refused, from the first page.

It measures, over one run:

* ``click_feedback_ms``: a card's click → the first change on the clicking page (the card gone
  from the hand or shown on the cloth); ``..._paint_ms`` to the next frame after it;
* ``card_to_other_seats_ms``: the click → the card on the cloth of *each* other seat's page
  (one sample per card and other seat);
* ``first_render_ms``: navigation start → the table drawn with the hand, per page (p50, max);
* ``bid_feedback_ms``: a bid's click → the clicking page's bidding box with nothing enabled;
* ``server_round_trip_ms`` (click → the command's first event on the clicking page),
  ``server_ack_ms`` (click → its ack), ``delivery_to_other_seats_ms`` (click → the event on
  each other page) and ``event_to_dom_ms`` (an event's arrival → the change it makes, every
  page: the page's own work per message).

Targets (issue 28): click → feedback p99 < 50 ms, click → card on every other seat p90 < 100 ms,
first render < 500 ms. The CPU of the server, PostgreSQL, the browsers and the whole machine
during the play is reported beside the figures, and ``bench.engine`` runs for
``--engine-seconds`` in the same run (machines differ up to 3×). Writes
``bench/results/browser.json``; with ``--json`` the last line printed is that JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import pathlib
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from app.bots.harness import ServeProcess
from app.commands.selfplay import free_port
from bench import engine as engine_bench
from bench import procstat
from bench.chromium_flags import CONTAINER_FLAGS, FULL_CHROMIUM
from bench.server import postgres_pids

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "browser.json"
CHROMIUM = FULL_CHROMIUM
CHROMIUM_ARGS = [
    "--headless",
    *CONTAINER_FLAGS,
    # three windows side by side, each a player looking at his own table: none is throttled
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]
PASSWORD = "a bench browser password"
NAMES = ("Ада", "Бор", "Ева")
POLL_SECONDS = 0.5
"""How often the driver looks at the pages' progress (the pages play by themselves)."""
TARGETS = {
    "click_feedback_ms": ("p99", 50.0),
    "card_to_other_seats_ms": ("p90", 100.0),
    "first_render_ms": ("max", 500.0),
}

PAGE_SCRIPT = r"""
(() => {
  if (window.__bench) return;
  const now = () => performance.timeOrigin + performance.now();
  const B = {
    auto: false, leader: false, think: 0, maxDeals: 0,
    obs: [],       // [dom time, next-frame time, elements built] of each noting observation
    appear: [],    // [card, obs, "trick" | "trick-done"]: a card newly on the cloth
    gone: [],      // [card, obs]: a card left the own hand
    bidOff: [],    // obs: the bidding box lost its last enabled button
    firstHand: null, firstFelt: null, snapshotAt: null,
    events: [],    // [seq, arrival, type] of every sequenced event (and snapshot)
    acks: [], errors: [], sent: [], clicks: [],
    dealsEnded: 0, pulkaEnded: false, lastSent: null, pending: null,
  };
  window.__bench = B;

  const Native = window.WebSocket;
  class BenchSocket extends Native {
    constructor(...args) {
      super(...args);
      // registered before the page's own listener: the arrival time, before the page's work
      this.addEventListener("message", (event) => {
        const t = now();
        let msg;
        try { msg = JSON.parse(event.data); } catch { return; }
        if (msg.type === "ack") B.acks.push([msg.id, msg.seq, t]);
        else if (msg.type === "error") {
          B.errors.push([msg.id ?? null, msg.code ?? null, t]);
          if (B.pending && B.pending.id && B.pending.id === msg.id) B.pending = null;
        } else if (msg.type === "snapshot") {
          if (B.snapshotAt === null) B.snapshotAt = t;
          B.events.push([msg.seq, t, "snapshot"]);
        } else if (typeof msg.seq === "number" && msg.type !== "heartbeat") {
          B.events.push([msg.seq, t, msg.type]);
          if (msg.type === "deal_ended") {
            B.dealsEnded += 1;
            if (B.maxDeals && B.dealsEnded >= B.maxDeals) B.auto = false;
          }
          if (msg.type === "pulka_ended") { B.pulkaEnded = true; B.auto = false; }
        }
      });
    }
    send(data) {
      try {
        const body = JSON.parse(data);
        B.lastSent = [body.id ?? null, body.type ?? null, body.seq ?? null, now()];
        B.sent.push(B.lastSent);
      } catch { /* not ours to read */ }
      return super.send(data);
    }
  }
  window.WebSocket = BenchSocket;

  function afterPaint(i) {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { B.obs[i][1] = now(); };
      channel.port2.postMessage(null);
    });
  }

  let prevTrick = new Set();
  let prevHand = new Set();
  let bidLive = false;
  function look(records) {
    const t = now();
    let idx = -1;
    const mark = () => {
      if (idx < 0) {
        // how many elements this change built: the whole felt and side panel, or a part?
        let added = 0;
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (node.nodeType === 1) added += 1 + node.getElementsByTagName("*").length;
          }
        }
        idx = B.obs.length;
        B.obs.push([t, null, added]);
      }
      return idx;
    };
    const trick = new Set();
    for (const el of document.querySelectorAll(
      "[data-testid=trick] [data-card], [data-testid=trick-done] [data-card]")) {
      trick.add(`${el.closest("[data-testid^=trick]").dataset.testid}:${el.dataset.card}`);
    }
    const hand = new Set();
    for (const el of document.querySelectorAll("[data-testid=my-hand] [data-card]")) {
      hand.add(el.dataset.card);
    }
    const live = Boolean(document.querySelector("[data-testid=bidbox] button:not(:disabled)"));
    for (const key of trick) {
      if (!prevTrick.has(key)) {
        const [kind, card] = key.split(":");
        B.appear.push([card, mark(), kind]);
      }
    }
    for (const card of prevHand) if (!hand.has(card)) B.gone.push([card, mark()]);
    if (bidLive && !live) B.bidOff.push(mark());
    if (B.firstFelt === null && document.querySelector(".felt")) B.firstFelt = mark();
    if (B.firstHand === null && hand.size) B.firstHand = mark();
    prevTrick = trick;
    prevHand = hand;
    bidLive = live;
    if (idx >= 0) afterPaint(idx);
    if (B.auto) queueConsider();
  }
  // attributes too: a page may answer a click by disabling or marking what is already there
  new MutationObserver(look).observe(document, {
    childList: true, subtree: true, attributes: true, attributeFilter: ["disabled", "class"],
  });

  // -- the player: what to click, when -------------------------------------------------------
  const q = (selector) => document.querySelector(selector);
  function signature() {
    // a new event, or a change of the own selection (the discard), answers the last click
    const pressed = [...document.querySelectorAll("[data-testid=my-hand] [aria-pressed=true]")]
      .map((e) => e.dataset.card).join(",");
    return `${B.events.length}|${pressed}`;
  }
  function choose() {
    let el = q("#cut-auto:not(:disabled)");
    if (el) return [el, "cut", "auto"];
    const anyBid = q("[data-testid=bidbox] button:not(:disabled)");
    if (anyBid) {
      const lowest = q("[data-testid=bidbox] > button[data-call]:not(:disabled)");
      if (lowest && !q("[data-testid=auction]") && !/^6/.test(lowest.dataset.call)) {
        return [lowest, "bid", lowest.dataset.call];
      }
      el = q("#bid-pass:not(:disabled)");
      if (el) return [el, "bid", "pass"];
      return [anyBid, "bid", anyBid.dataset.call || anyBid.textContent.trim()];
    }
    const hand = [...document.querySelectorAll("[data-testid=my-hand] button.card-face")];
    if (hand.length && !hand.some((c) => c.disabled || c.classList.contains("playable"))) {
      const chosen = hand.filter((c) => c.getAttribute("aria-pressed") === "true");
      if (chosen.length < 2) {
        const next = hand.find((c) => c.getAttribute("aria-pressed") !== "true");
        return [next, "select", next.dataset.card];
      }
      el = q("[data-testid=actions] button.primary:not(:disabled)");
      return el ? [el, "discard", chosen.map((c) => c.dataset.card).join(" ")] : null;
    }
    el = q("[data-testid=my-hand] button.card-face.playable:not(:disabled)")
      || q("[data-testid^=open-hand-] button.card-face.playable:not(:disabled)");
    if (el) return [el, "card", el.dataset.card];
    el = q("[data-testid=actions] button[id^=contract-]:not(:disabled)");
    if (el) return [el, "contract", el.dataset.call];
    el = q("[data-testid=actions] button[data-call=pass]:not(:disabled)");
    if (el) return [el, "defend", "pass"];
    if (q(".hand-area .seat-box.to-move") || B.leader) {
      for (const b of document.querySelectorAll("[data-testid=actions] button:not(:disabled)")) {
        if (b.classList.contains("danger") || b.id === "cut-random"
          || b.closest("[data-testid=hint]") || b.closest("[data-testid=bidbox]")) continue;
        return [b, "other", b.id || b.textContent.trim()];
      }
    }
    return null;
  }
  let considerTimer = null;
  let thinkTimer = null;
  function queueConsider() {
    if (considerTimer === null) considerTimer = setTimeout(consider, 0);
  }
  function waiting() {
    return B.pending !== null && B.pending.sig === signature();
  }
  function consider() {
    considerTimer = null;
    if (!B.auto || thinkTimer !== null || waiting()) return;
    B.pending = null;
    if (choose()) thinkTimer = setTimeout(act, B.think);
  }
  function act() {
    thinkTimer = null;
    if (!B.auto || waiting()) return;
    const pick = choose();
    if (!pick) return;
    const [el, kind, detail] = pick;
    const sig = signature();
    B.lastSent = null;
    const t0 = now();
    el.click();
    const sent = B.lastSent;
    B.clicks.push([kind, detail, t0, sent]);
    B.pending = { sig, at: t0, kind, detail, id: sent ? sent[0] : null };
    queueConsider();
  }
  B.start = (options) => {
    Object.assign(B, options, { auto: true });
    queueConsider();
  };
  B.describe = () => {
    const p = B.pending;
    const text = (s) => (q(s)?.textContent ?? "").trim();
    const buttons = [...document.querySelectorAll("[data-testid=actions] button:not(:disabled)")]
      .map((b) => b.id || b.textContent.trim()).slice(0, 8);
    const ago = p ? ((now() - p.at) / 1000).toFixed(1) : "";
    const wait = p && waiting()
      ? `waits for the answer to its ${p.kind} ${p.detail} clicked ${ago} s ago; ` : "";
    const error = B.errors[B.errors.length - 1];
    const last = error ? `; last error ${JSON.stringify(error)}` : "";
    const status = text(".felt .status-line") || "(none)";
    const thinking = thinkTimer !== null ? "thinks before its next click; " : "";
    return `${wait}${thinking}status «${status}», connection «${text(".felt .conn")}», `
      + `enabled buttons [${buttons.join(", ")}]${last}`;
  };
  B.status = () => ({ auto: B.auto, clicks: B.clicks.length, dealsEnded: B.dealsEnded,
    pulkaEnded: B.pulkaEnded, errors: B.errors.length, describe: B.describe() });
  B.dump = () => {
    const nav = performance.getEntriesByType("navigation")[0];
    return { obs: B.obs, appear: B.appear, gone: B.gone, bidOff: B.bidOff, firstHand: B.firstHand,
      firstFelt: B.firstFelt, snapshotAt: B.snapshotAt, events: B.events, acks: B.acks,
      errors: B.errors, sent: B.sent, clicks: B.clicks, dealsEnded: B.dealsEnded,
      pulkaEnded: B.pulkaEnded, timeOrigin: performance.timeOrigin,
      elements: document.getElementsByTagName("*").length,
      nav: nav ? { responseEnd: nav.responseEnd, domContentLoaded: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd } : null };
  };
})();
"""


def say(text: str) -> None:
    print(f"[bench.browser {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def percentiles(values: Sequence[float]) -> dict[str, float | int]:
    """p50, p90, p99 (nearest rank) and max of ``values``, and how many there were."""
    data = sorted(values)
    if not data:
        return {"n": 0, "p50": 0.0, "p90": 0.0, "p99": 0.0, "max": 0.0}

    def rank(q: float) -> float:
        return round(data[max(0, math.ceil(q * len(data)) - 1)], 1)

    return {
        "n": len(data),
        "p50": rank(0.50),
        "p90": rank(0.90),
        "p99": rank(0.99),
        "max": round(data[-1], 1),
    }


@dataclass
class Club:
    """What :func:`prepare` made: the table and its three players."""

    table_id: int
    logins: list[str]
    cookies: list[str]
    """A session cookie per seat (only for cutting the first deal through the socket)."""


async def prepare(url: str, target: int, run_id: str) -> Club:
    """Three members with passwords, a club session open now, and a club table of the three."""
    from app.db.engine import make_engine, make_sessionmaker, session_scope
    from app.db.models import ClubSession, Member, Role
    from app.security.login_sessions import SESSION_COOKIE, open_session
    from app.security.passwords import hash_password
    from app.services.tables import create_table

    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            now = datetime.now(UTC)
            digest = hash_password(PASSWORD)
            members = [
                Member(
                    login=f"bb{run_id}-{i}",
                    display_name=name,
                    role=Role.member,
                    password_hash=digest,
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(NAMES)
            ]
            db.add_all(members)
            session = ClubSession(
                starts_at=now - timedelta(minutes=1), ends_at=now + timedelta(hours=3), extra=True
            )
            db.add(session)
            await db.flush()
            cookies = []
            for member in members:
                token, _ = await open_session(db, member, now, 4)
                cookies.append(f"{SESSION_COOKIE}={token}")
            table = await create_table(
                db,
                seat_member_ids=[m.id for m in members],
                practice=False,
                club_session_id=session.id,
                target=target,
                first_dealer=0,
                now=now,
            )
            return Club(table.id, [m.login for m in members], cookies)
    finally:
        await engine.dispose()


async def cut_first_deal(server: ServeProcess, table_id: int, cookies: list[str]) -> None:
    """Cut the first deal in the middle through the table socket, as its cutter's page would:
    then every page opens on a hand (the cut is the only phase without one)."""
    import websockets

    async def until(ws: Any, kind: str) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg.get("type") == "error":
                raise RuntimeError(f"the server refused the first cut: {msg}")
            if msg.get("type") == kind:
                return msg

    for cookie in cookies:
        async with websockets.connect(
            f"{server.ws_base}/ws/tables/{table_id}",
            additional_headers={"Cookie": cookie},
            origin=server.origin,  # type: ignore[arg-type]
            open_timeout=10,
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "last_seq": None}))
            snap = await until(ws, "snapshot")
            if any(a.get("type") == "cut" for a in snap.get("legal") or []):
                cut = {"type": "cut", "auto": True, "id": "bench-first-cut", "seq": snap["seq"]}
                await ws.send(json.dumps(cut))
                await until(ws, "ack")
                return
    raise RuntimeError("no seat may cut the first deal")


class Stalled(RuntimeError):
    """The pulka stopped moving: the message names what each page waits for."""


def descendants(root: int) -> list[int]:
    """Every living process below ``root`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    out: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) CPU jiffies of the whole machine so far (/proc/stat)."""
    line = pathlib.Path("/proc/stat").read_text().split("\n", 1)[0]
    # user nice system idle iowait irq softirq steal (guest time is already in user and nice)
    fields = [int(x) for x in line.split()[1:9]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def clock_offset_ms(page: Page) -> float:
    """The page's ``timeOrigin + now()`` minus this process's wall clock (best of five looks):
    how far the pages' shared clock is from each other's is the spread of these."""
    best: tuple[float, float] = (math.inf, 0.0)
    for _ in range(5):
        before = time.time() * 1000
        seen = float(page.evaluate("() => performance.timeOrigin + performance.now()"))
        after = time.time() * 1000
        best = min(best, ((after - before) / 2, seen - (before + after) / 2))
    return best[1]


def collect(errors: list[str]) -> Callable[[Any], None]:
    """A ``pageerror`` handler that keeps the page's uncaught errors in ``errors``."""
    return lambda exc: errors.append(str(exc))


def open_players(
    browser: Browser, base: str, club: Club, errors: list[str], say_: Callable[[str], None]
) -> list[Page]:
    """Log each member in (the login form, a context of his own), then open the table in a new
    tab of that context, one after the other, each waiting until its hand is drawn."""
    pages: list[Page] = []
    for login in club.logins:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ru-RU")
        context.add_init_script(PAGE_SCRIPT)
        lobby = context.new_page()
        lobby.goto(base + "/")
        lobby.fill("#login", login)
        lobby.fill("#password", PASSWORD)
        lobby.click("form button[type=submit]")
        lobby.wait_for_selector("#session-title", timeout=30_000)
        tab = context.new_page()
        lobby.close()
        tab.on("pageerror", collect(errors))
        tab.goto(f"{base}/#/table/{club.table_id}")
        try:
            tab.wait_for_function(
                "() => window.__bench && window.__bench.firstHand !== null", timeout=30_000
            )
        except Exception as exc:
            raise RuntimeError(
                f"{login}'s table page drew no hand in 30 s: "
                + str(tab.evaluate("() => window.__bench?.describe()"))
            ) from exc
        say_(f"{login} is at the table")
        pages.append(tab)
    return pages


def play(
    pages: list[Page], think_ms: int, deals: int, timeout: float, stall: float
) -> dict[str, float]:
    """Let the pages play (each clicks for its own seat) until the pulka ends, or ``deals`` deals
    have ended; raise :class:`Stalled` naming what every page waits for when no page has clicked
    for ``stall`` seconds, or ``TimeoutError`` after ``timeout``. Returns the seconds played."""
    for i, page in enumerate(pages):
        page.evaluate(
            "o => window.__bench.start(o)", {"think": think_ms, "leader": i == 0, "maxDeals": deals}
        )
    began = time.monotonic()
    progress_at = began
    clicks = -1
    while True:
        states = [page.evaluate("() => window.__bench.status()") for page in pages]
        if all(s["pulkaEnded"] for s in states) or (
            deals and all(s["dealsEnded"] >= deals for s in states)
        ):
            return {"seconds": time.monotonic() - began}
        now = time.monotonic()
        total = sum(int(s["clicks"]) for s in states)
        if total != clicks:
            clicks, progress_at = total, now
        views = "; ".join(f"page {i + 1}: {s['describe']}" for i, s in enumerate(states))
        if now - progress_at > stall:
            raise Stalled(f"no page has clicked for {stall:.0f} s after {total} clicks — {views}")
        if now - began > timeout:
            raise TimeoutError(
                f"the pulka did not end in {timeout:.0f} s ({total} clicks) — {views}"
            )
        time.sleep(POLL_SECONDS)


def measure(dumps: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures, from what every page noted (times in ms of the shared wall clock)."""
    out: dict[str, list[float]] = {
        name: []
        for name in (
            "click_feedback_ms",
            "click_feedback_paint_ms",
            "card_to_other_seats_ms",
            "card_to_other_seats_paint_ms",
            "bid_feedback_ms",
            "server_round_trip_ms",
            "server_ack_ms",
            "delivery_to_other_seats_ms",
            "event_to_dom_ms",
            "elements_built_per_card_event",
        )
    }
    counts = {
        "cards": 0,
        "bids": 0,
        "clicks": 0,
        "missing_feedback": 0,
        "missing_on_other_seats": 0,
    }

    def first_after(
        entries: list[list[Any]], obs: list[list[Any]], t0: float, card: str | None
    ) -> tuple[float, float | None] | None:
        """The first noted change at or after ``t0`` (of ``card``, if given): (dom, paint)."""
        for entry in entries:
            if card is not None and entry[0] != card:
                continue
            dom, paint, _ = obs[entry[1]]
            if dom >= t0:
                return dom, paint
        return None

    def built(entries: list[list[Any]], obs: list[list[Any]], t0: float, card: str) -> int:
        return next(int(obs[e[1]][2]) for e in entries if e[0] == card and obs[e[1]][0] >= t0)

    for i, page in enumerate(dumps):
        obs = page["obs"]
        arrival = {seq: t for seq, t, _ in page["events"]}
        acks = {ack_id: t for ack_id, _, t in page["acks"]}
        for kind, detail, t0, sent in page["clicks"]:
            counts["clicks"] += 1
            seq = sent[2] if sent else None
            if kind == "bid":
                counts["bids"] += 1
                off = first_after([[None, x] for x in page["bidOff"]], obs, t0, None)
                if off is not None:
                    out["bid_feedback_ms"].append(off[0] - t0)
            if kind != "card":
                continue
            counts["cards"] += 1
            here = [
                x
                for x in (
                    first_after(page["gone"], obs, t0, detail),
                    first_after(page["appear"], obs, t0, detail),
                )
                if x is not None
            ]
            if here:
                dom, paint = min(here, key=lambda x: x[0])
                out["click_feedback_ms"].append(dom - t0)
                if paint is not None:
                    out["click_feedback_paint_ms"].append(paint - t0)
            else:
                counts["missing_feedback"] += 1
            if sent and sent[0] in acks:
                out["server_ack_ms"].append(acks[sent[0]] - t0)
            if seq is not None and seq + 1 in arrival:
                out["server_round_trip_ms"].append(arrival[seq + 1] - t0)
                if here:
                    out["event_to_dom_ms"].append(dom - arrival[seq + 1])
            for j, other in enumerate(dumps):
                if j == i:
                    continue
                seen = first_after(other["appear"], other["obs"], t0, detail)
                if seen is None:
                    counts["missing_on_other_seats"] += 1
                    continue
                out["card_to_other_seats_ms"].append(seen[0] - t0)
                out["elements_built_per_card_event"].append(
                    built(other["appear"], other["obs"], t0, detail)
                )
                if seen[1] is not None:
                    out["card_to_other_seats_paint_ms"].append(seen[1] - t0)
                other_arrival = {s: t for s, t, _ in other["events"]}
                if seq is not None and seq + 1 in other_arrival:
                    out["delivery_to_other_seats_ms"].append(other_arrival[seq + 1] - t0)
                    out["event_to_dom_ms"].append(seen[0] - other_arrival[seq + 1])
    result: dict[str, Any] = {name: percentiles(values) for name, values in out.items()}
    result.update(counts)
    return result


def first_renders(dumps: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``first_render_ms`` (navigation start → the hand drawn: p50, max, per page) and where
    each page's first render went."""
    detail = []
    for page in dumps:
        origin = page["timeOrigin"]
        dom, paint, _ = page["obs"][page["firstHand"]]
        nav = page.get("nav") or {}
        detail.append(
            {
                "html_ms": round(nav.get("responseEnd", 0.0), 1),
                "dom_content_loaded_ms": round(nav.get("domContentLoaded", 0.0), 1),
                "table_shell_ms": round(page["obs"][page["firstFelt"]][0] - origin, 1)
                if page["firstFelt"] is not None
                else None,
                "snapshot_arrived_ms": round(page["snapshotAt"] - origin, 1)
                if page["snapshotAt"]
                else None,
                "hand_dom_ms": round(dom - origin, 1),
                "hand_paint_ms": round(paint - origin, 1) if paint is not None else None,
            }
        )
    per_page = [d["hand_dom_ms"] for d in detail]
    ordered = sorted(per_page)
    return {
        "p50": ordered[len(ordered) // 2],
        "max": ordered[-1],
        "pages": per_page,
        "paint_pages": [d["hand_paint_ms"] for d in detail],
    }, detail


def targets(result: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, (stat, limit) in TARGETS.items():
        value = result[name][stat]
        out[f"{name}_{stat}_under_{limit:.0f}"] = {
            "value": value,
            "target": limit,
            "met": value < limit,
        }
    return out


def source() -> dict[str, Any]:
    """The commit measured and the files under ``static/`` that differ from it (the pages are
    served from the work tree); read-only git commands."""
    import subprocess

    root = pathlib.Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "--no-optional-locks", *args], cwd=root, capture_output=True, text=True
        )
        return done.stdout.rstrip("\n") if done.returncode == 0 else ""

    changed = git("status", "--porcelain", "--", "static")
    return {
        "commit": git("rev-parse", "--short", "HEAD") or None,
        "static_changed": [line[3:] for line in changed.splitlines()],
    }


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None


def run(
    target: int,
    deals: int,
    think_ms: int,
    timeout: float,
    stall: float,
    engine_seconds: float,
    luck: bool,
    raw: pathlib.Path | None = None,
) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from app.config import get_settings
    from app.db.embedded import database_url, stop_embedded
    from app.db.migrate import upgrade

    if not CHROMIUM.exists():
        raise SystemExit("bench.browser needs Debian's chromium at /usr/bin/chromium")
    configured = get_settings().database_url
    work = pathlib.Path(tempfile.mkdtemp(prefix="prefclub-browser-"))
    data = work / "data"
    began = time.perf_counter()
    load_before = procstat.machine()["load_average"]
    try:
        url = database_url(configured, data)
        upgrade(url)
        club = asyncio.run(prepare(url, target, str(int(time.time()))))
        server = ServeProcess(url, data, free_port(), log_path=work / "serve.log")
        if not luck:
            server.env["PREFCLUB_LUCK"] = "0"
        asyncio.run(server.start())
        try:
            asyncio.run(cut_first_deal(server, club.table_id, club.cookies))
            say(f"table {club.table_id} (target {target}) cut; three players log in")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    page_errors: list[str] = []
                    pages = open_players(browser, server.origin, club, page_errors, say)
                    offsets = [clock_offset_ms(page) for page in pages]
                    server_pid = server.process.pid if server.process else 0

                    def server_tree() -> list[int]:
                        return [server_pid, *descendants(server_pid)]

                    def database() -> list[int]:
                        return postgres_pids(data) if not configured else []

                    def browsers() -> list[int]:
                        # Chromium and Playwright's driver: what else this process started
                        others = set(server_tree()) | set(database())
                        return [p for p in descendants(os.getpid()) if p not in others]

                    meters = {
                        "server": procstat.CpuMeter(server_tree),
                        "postgres": procstat.CpuMeter(database),
                        "browsers": procstat.CpuMeter(browsers),
                    }
                    wall0 = time.perf_counter()
                    for meter in meters.values():
                        meter.start(wall0)
                    busy0, total0 = machine_jiffies()
                    say(f"playing ({think_ms} ms to think before each click)")
                    played = play(pages, think_ms, deals, timeout, stall)
                    wall1 = time.perf_counter()
                    busy1, total1 = machine_jiffies()
                    cpu = {f"{name}_cpu_percent": m.percent(wall1) for name, m in meters.items()}
                    cores = int(procstat.machine()["cores"])  # type: ignore[call-overload]
                    cpu["machine_cpu_percent"] = round(
                        100.0 * cores * (busy1 - busy0) / max(total1 - total0, 1), 1
                    )
                    cpu["other_cpu_percent"] = round(
                        cpu["machine_cpu_percent"]
                        - cpu["server_cpu_percent"]
                        - cpu["postgres_cpu_percent"]
                        - cpu["browsers_cpu_percent"],
                        1,
                    )
                    for page in pages:  # the last changes' next frames
                        page.wait_for_function(
                            "() => window.__bench.obs.every((o) => o[1] !== null)", timeout=5_000
                        )
                    dumps = [page.evaluate("() => window.__bench.dump()") for page in pages]
                    chromium = browser.version
                finally:
                    browser.close()
        finally:
            server.stop()
    finally:
        if not configured:
            stop_embedded()
        shutil.rmtree(work, ignore_errors=True)
    if raw is not None:
        raw.write_text(json.dumps(dumps))
    say("played; now bench.engine")
    engine_rate = engine_bench.run(engine_seconds)
    figures = measure(dumps)
    first, first_detail = first_renders(dumps)
    result: dict[str, Any] = {
        "benchmark": "browser",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "preset": "club",
        "players": 3,
        "target": target,
        "deals_limit": deals or None,
        "think_ms": think_ms,
        "luck": luck,
        "deals": dumps[0]["dealsEnded"],
        "pulka_ended": all(d["pulkaEnded"] for d in dumps),
        "cards": figures.pop("cards"),
        "bids": figures.pop("bids"),
        "clicks": figures.pop("clicks"),
        "missing_feedback": figures.pop("missing_feedback"),
        "missing_on_other_seats": figures.pop("missing_on_other_seats"),
        "click_feedback_ms": figures.pop("click_feedback_ms"),
        "card_to_other_seats_ms": figures.pop("card_to_other_seats_ms"),
        "first_render_ms": first,
        **figures,
        "first_render_detail": first_detail,
        "page_elements": [d["elements"] for d in dumps],
        "server_errors": [e[1] for d in dumps for e in d["errors"]],
        "page_errors": page_errors,
        "clock_offsets_ms": [round(o - offsets[0], 2) for o in offsets],
        "play_seconds": round(played["seconds"], 1),
        **cpu,
        "load_average_before": load_before,
        "engine_deals_per_s": engine_rate["deals_per_second"],
        "chromium": chromium,
        "source": source(),
        "machine": {
            **procstat.machine(),
            "python": platform.python_version(),
            "arch": platform.machine(),
        },
        "seconds": round(time.perf_counter() - began, 1),
    }
    result["targets"] = targets(result)
    result["ratios"] = {
        "click_feedback_p50_over_round_trip_p50": ratio(
            result["click_feedback_ms"]["p50"], result["server_round_trip_ms"]["p50"]
        ),
        "other_seats_p90_over_click_feedback_p90": ratio(
            result["card_to_other_seats_ms"]["p90"], result["click_feedback_ms"]["p90"]
        ),
        "event_to_dom_p50_over_click_feedback_p50": ratio(
            result["event_to_dom_ms"]["p50"], result["click_feedback_ms"]["p50"]
        ),
    }
    return result


def describe(r: dict[str, Any]) -> str:
    def line(name: str) -> str:
        f = r[name]
        return (
            f"{name}: p50 {f['p50']} / p90 {f['p90']} / p99 {f['p99']} / max {f['max']} "
            f"(n {f['n']})"
        )

    met = ", ".join(
        f"{name} {t['value']} {'<' if t['met'] else '≥'} {t['target']:.0f}: "
        f"{'met' if t['met'] else 'MISSED'}"
        for name, t in r["targets"].items()
    )
    return "\n".join(
        [
            f"{r['deals']} deals, {r['cards']} cards, {r['bids']} bids, {r['clicks']} clicks in "
            f"{r['play_seconds']} s (think {r['think_ms']} ms); pulka ended: {r['pulka_ended']}",
            line("click_feedback_ms"),
            line("click_feedback_paint_ms"),
            line("card_to_other_seats_ms"),
            line("card_to_other_seats_paint_ms"),
            line("bid_feedback_ms"),
            line("server_round_trip_ms"),
            line("event_to_dom_ms"),
            f"elements built per card event: p50 {r['elements_built_per_card_event']['p50']} "
            f"of {r['page_elements']} on the pages",
            f"first_render_ms: p50 {r['first_render_ms']['p50']}, max {r['first_render_ms']['max']}"
            f" (pages {r['first_render_ms']['pages']})",
            f"CPU: server {r['server_cpu_percent']} %, postgres {r['postgres_cpu_percent']} %, "
            f"browsers {r['browsers_cpu_percent']} %, whole machine {r['machine_cpu_percent']} % "
            f"(others {r['other_cpu_percent']} %); load before {r['load_average_before']}",
            f"targets: {met}",
            f"bench.engine: {r['engine_deals_per_s']} deals/s",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=int, default=8, help="the pulka's target (pool)")
    parser.add_argument(
        "--deals", type=int, default=0, help="stop after this many deals (0: the whole pulka)"
    )
    parser.add_argument("--think-ms", type=int, default=250)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--stall", type=float, default=30.0)
    parser.add_argument("--engine-seconds", type=float, default=5.0)
    parser.add_argument("--no-luck", action="store_true", help="PREFCLUB_LUCK=0 for the server")
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS)
    parser.add_argument(
        "--raw", type=pathlib.Path, help="also write what every page noted (JSON) to this file"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.target < 1 or args.deals < 0 or args.think_ms < 0 or args.engine_seconds <= 0:
        parser.error("--target ≥ 1, --deals ≥ 0, --think-ms ≥ 0, --engine-seconds > 0")
    result = run(
        args.target,
        args.deals,
        args.think_ms,
        args.timeout,
        args.stall,
        args.engine_seconds,
        not args.no_luck,
        args.raw,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(describe(result))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
