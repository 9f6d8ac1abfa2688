// The screen for the room (/room or #/room[/<seconds per table>]): a full-screen page for the
// club's TV that cycles through the tables in play — players, contract, tricks, the cards on
// the table and the sheet. It reads GET /api/room every two seconds: a spectator's view of each
// table, with no hidden card (a deal's hands appear only when it has ended or laid open).
// After the tables it shows the current season's standings (the top ten) as one more slide.
import { get } from "../api.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { callText, cardFace } from "../table/cards.js";
import { drawPulka } from "../table/sheet.js";
import { formatWhists } from "../money.js";

const POLL_MS = 2000;
const ROTATE_S = 12;

function seatLine(tb, seat) {
  const deal = tb.deal;
  const tricks = deal?.tricks?.[String(seat)];
  const marks = [];
  if (deal && deal.declarer === seat) marks.push(t("table.declarer"));
  if (deal && deal.dealer === seat) marks.push(t("room.dealer"));
  return h("li", { class: deal && deal.to_move === seat ? "to-move" : "" },
    h("strong", { text: tb.names[seat] ?? `${t("table.seat")} ${seat + 1}` }),
    marks.length ? h("span", { class: "muted", text: ` (${marks.join(", ")})` }) : null,
    tricks !== undefined ? h("span", { text: ` · ${t("room.tricks")}: ${tricks}` }) : null);
}

function tableView(tb, index, count) {
  const deal = tb.deal;
  const contract = deal?.contract ?? deal?.bid;
  const open = Object.entries(deal?.open_hands ?? {});
  return h("section", { class: "room-table", "data-testid": "room-table", dataset: { table: tb.table_id } },
    h("header", { class: "room-head" },
      h("h1", { text: t("room.table", { id: tb.table_id }) }),
      h("span", { class: "room-count", text: t("room.ofTables", { i: index + 1, n: count }) })),
    h("div", { class: "room-body" },
      h("div", { class: "room-play" },
        h("p", { class: "room-deal" }, t("room.deal", { n: tb.deal_no }),
          deal ? ` · ${t(`room.phase.${deal.phase}`)}` : ""),
        contract ? h("p", { class: "room-contract" }, `${t("room.contract")}: `,
          h("strong", { text: callText(contract) })) : null,
        h("ul", { class: "room-seats" }, tb.names.map((_, seat) => seatLine(tb, seat))),
        deal?.trick?.length ? h("div", { class: "room-trick" }, h("span", { text: `${t("room.trick")}: ` }),
          deal.trick.map((c) => cardFace(c.card))) : null,
        open.length ? h("div", { class: "room-open" }, open.map(([seat, cards]) => h("div", {},
          h("span", { text: `${tb.names[Number(seat)] ?? seat}: ` }), cards.map((c) => cardFace(c, { small: true })))))
          : null),
      h("div", { class: "sheet-card room-sheet" }, drawPulka({ players: tb.players, names: tb.names,
        seat: null, target: tb.target, sheet: tb.sheet, lines: [] }))));
}

function standingsView(board, index, count) {
  const title = board.season ? t("room.standingsOf", { name: board.season.name }) : t("room.standingsAll");
  return h("section", { class: "room-standings", "data-testid": "room-standings" },
    h("header", { class: "room-head" },
      h("h1", { text: title }),
      h("span", { class: "room-count", text: t("room.ofTables", { i: index + 1, n: count }) })),
    board.lines.length ? h("table", { class: "standings room-board" },
      h("thead", {}, h("tr", {}, ["standings.rank", "room.name", "standings.wpp", "room.pulkas",
        "standings.ordinal"].map((key) => h("th", { scope: "col", text: t(key) })))),
      h("tbody", {}, board.lines.map((line) => h("tr", { class: line.rank === null ? "muted" : "" },
        h("td", { text: line.rank ?? "—" }), h("td", { text: line.name }),
        h("td", { class: "num", text: line.whists_per_pulka === null || line.whists_per_pulka === undefined ? "—" : formatWhists(line.whists_per_pulka) }),
        h("td", { class: "num", text: String(line.pulkas) }),
        h("td", { class: "num", text: line.rating === null ? "—" : String(line.rating) })))))
      : h("p", { class: "room-none", text: t("standings.none") }));
}

export async function renderRoom(root, { args }) {
  const seconds = Math.max(2, Number(args[0]) || ROTATE_S);
  document.body.classList.add("room-screen");
  const box = h("div", { class: "room", "data-testid": "room" });
  root.append(box);
  let tables = [];
  let board = null;
  let index = 0;
  let alive = true;
  function show() {
    const count = tables.length + (board ? 1 : 0);
    if (!tables.length) {
      clear(box).append(h("h1", { text: t("room.title") }), h("p", { class: "room-none", text: t("room.none") }));
      if (board && index % 2) box.replaceChildren(standingsView(board, 0, 1));
      return;
    }
    index %= count;
    clear(box).append(index < tables.length ? tableView(tables[index], index, count)
      : standingsView(board, index, count));
  }
  async function poll() {
    try {
      const answer = await get("/api/room");
      tables = answer.tables;
      board = answer.standings;
    } catch {
      // the screen keeps showing what it had; the next poll tries again
    }
    if (alive) show();
  }
  await poll();
  const polling = setInterval(poll, POLL_MS);
  const rotating = setInterval(() => { index += 1; show(); }, seconds * 1000);
  return () => {
    alive = false;
    clearInterval(polling);
    clearInterval(rotating);
    document.body.classList.remove("room-screen");
  };
}
