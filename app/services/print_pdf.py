"""The club's wall print-outs as PDF (issue 27): a pulka as its paper sheet and a night's
results, A4, in Russian, made with fpdf2 (pure Python) from the JSON the pages show.

:func:`pulka_pdf` and :func:`night_pdf` are plain functions of JSON-ready values that return
the file's bytes: they are CPU work (layout, font subsetting), so the API runs them in the
bounded print pool (:func:`make_pool`), never on the event loop. The font is a TrueType file
with Cyrillic and the suits (DejaVu Sans by default, ``PREFCLUB_PDF_FONT``).

fpdf2 (with fontTools and Pillow, a quarter of a second of CPU) is imported by the print
worker when it makes its first file, not by every server and command that imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.workers import WorkerPool

if TYPE_CHECKING:
    from fpdf import FPDF

PRINT_WORKERS = 1
PRINT_PENDING = 4
"""One worker, at most four print jobs queued or running; one more is a 503 ``busy``."""
FONT = "club"
STATUS_RU = {"open": "идёт", "provisional": "предварительные", "final": "окончательные"}
ENDED_RU = {"target": "до конца", "agreement": "по соглашению", "session_end": "конец сессии"}


def make_pool() -> WorkerPool:
    """The pool print-outs are made in (its worker starts with the first job)."""
    return WorkerPool(max_workers=PRINT_WORKERS, max_pending=PRINT_PENDING)


def _document(font: str, title: str) -> FPDF:
    from fpdf import FPDF  # here, not at the top: the module's docstring says why

    pdf = FPDF(orientation="portrait", unit="mm", format="A4")
    pdf.set_creator("prefclub")
    pdf.set_title(title)
    pdf.add_font(FONT, fname=font)
    pdf.set_margins(15, 15, 15)
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    pdf.set_font(FONT, size=16)
    pdf.cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FONT, size=10)
    return pdf


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _grid(pdf: FPDF, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    from fpdf import FontFace  # as in _document

    headings = FontFace(emphasis="", fill_color=(225, 225, 225))
    with pdf.table(
        text_align="LEFT", line_height=6, first_row_as_headings=True, headings_style=headings
    ) as table:
        line = table.row()
        for cell in header:
            line.cell(cell)
        for row in rows:
            line = table.row()
            for cell in row:
                line.cell(_text(cell))
    pdf.ln(3)


def _heading(pdf: FPDF, text: str) -> None:
    pdf.set_font(FONT, size=12)
    pdf.cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FONT, size=10)


def _sheet_rows(
    names: Sequence[str], sheet: Mapping[str, Any] | None, lines: Sequence[Mapping[str, Any]]
) -> list[list[Any]]:
    """Each seat's pool and hill as running totals (the paper's columns), then its whists."""
    rows = []
    for seat, name in enumerate(names):
        pool = [str(x["total"]) for x in lines if x["seat"] == seat and x["column"] == "pool"]
        hill = [str(x["total"]) for x in lines if x["seat"] == seat and x["column"] == "hill"]
        whists = []
        if sheet is not None:
            for other, value in enumerate(sheet["whists"][seat]):
                if other != seat and other < len(names):
                    whists.append(f"{names[other]}: {value}")
        rows.append([name, ".".join(pool) or "0", ".".join(hill) or "0", "; ".join(whists)])
    return rows


def pulka_pdf(detail: Mapping[str, Any], font: str) -> bytes:
    """A finished pulka (``GET /api/pulkas/{id}``) as its paper sheet on one A4 page."""
    names = list(detail["names"])
    pdf = _document(font, f"Пулька {detail['id']} · стол {detail['table_id']}")
    pdf.multi_cell(
        0,
        6,
        f"Пуля до {detail['target']}, ставка {detail['stake']} ₽ за вист, "
        f"сдач: {detail['deals']}, окончена: "
        f"{ENDED_RU.get(detail.get('ended') or '', _text(detail.get('ended')))}",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.ln(2)
    _heading(pdf, "Лист")
    _grid(
        pdf,
        ["Игрок", "Пуля", "Гора", "Висты на"],
        _sheet_rows(names, detail.get("sheet"), detail.get("lines") or []),
    )
    settlement = detail.get("settlement")
    if settlement:
        _heading(pdf, "Расчёт")
        _grid(
            pdf,
            ["Игрок", "Висты", "Деньги, ₽"],
            [
                [name, settlement["rounded"][i], settlement["money"][i]]
                for i, name in enumerate(names)
            ],
        )
    return bytes(pdf.output())


def night_pdf(night: Mapping[str, Any], font: str) -> bytes:
    """A night's results (``GET /api/nights/{id}``) on A4: tables, players, the fund's share,
    the deal of the night and the corrections."""
    session = night["session"]
    pdf = _document(font, f"Итоги вечера · сессия {session['id']}")
    pdf.multi_cell(
        0,
        6,
        f"Начало {session['starts_at']}; итоги {STATUS_RU.get(night['status'], night['status'])}",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.ln(2)
    _heading(pdf, "Игроки")
    _grid(
        pdf,
        ["Игрок", "Висты", "Деньги, ₽"],
        [[p["name"], p["whists"], p["money"]] for p in night["players"]],
    )
    _heading(pdf, "Столы")
    rows = []
    for t in night["tables"]:
        money = (t["settlement"] or {}).get("money") or [""] * len(t["names"])
        seats = ", ".join(f"{n} {m}" for n, m in zip(t["names"], money, strict=True))
        rows.append([t["table_id"], seats, t["deals"], t["fund_share"]])
    _grid(pdf, ["Стол", "Игроки и деньги, ₽", "Сдач", "В кубышку, ₽"], rows)
    pdf.cell(0, 7, f"Кубышке за вечер: {night['fund']['share']} ₽", new_x="LMARGIN", new_y="NEXT")
    best = night.get("deal_of_the_night")
    if best:
        pdf.cell(
            0,
            7,
            f"Сдача вечера: стол {best['table_id']}, сдача {best['deal_no']}, "
            f"{_text(best.get('contract') or best.get('type'))}, "
            f"{_text(best.get('declarer_name'))} — {best['swing']} вистов",
            new_x="LMARGIN",
            new_y="NEXT",
        )
    if night["corrections"]:
        _heading(pdf, "Исправления")
        _grid(
            pdf,
            ["Когда", "Кто", "Что", "После окончательных"],
            [
                [c["at"], c["by"], c["note"], "да" if c["after_final"] else "нет"]
                for c in night["corrections"]
            ],
        )
    return bytes(pdf.output())
