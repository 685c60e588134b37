"""The score sheet as a printable A4 PDF in Chinese.

reportlab's built-in CID font STSong-Light renders Chinese without any font
file, so nothing is downloaded or shipped.

reportlab's Paragraph reads its text as markup (``<img>``, ``<a href>``, ...):
every text from the log or the settings is escaped and shortened by
:func:`text` before it goes in, as the HTML pages escape it.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from referee.codes import Violation

FONT = "STSong-Light"
pdfmetrics.registerFont(UnicodeCIDFont(FONT))

PENALTY_CN = {"warning": "警告", "infraction": "违例", "foul": "犯规", "forfeit": "判负"}
REASON_CN = {"past_a": "过A", "deals": "副数到", "time": "时间到", "extra_deal": "加赛",
             "forfeit": "判负", "abandonment": "弃权"}


SIDE_CN = {"NS": "南北", "EW": "东西"}


def _term(code: object) -> str:
    """A violation code in the rules' own Chinese term (贡错牌), else as given."""
    try:
        return Violation(code).term
    except ValueError:
        return text(code)


MAX_TEXT = 100     # a name, a team, a code: longer is cut (the log may hold old, long ones)


def text(value: object, limit: int = MAX_TEXT) -> str:
    """``value`` as plain text for a Paragraph: shortened, then markup-escaped."""
    s = "" if value is None else str(value)
    if len(s) > limit:
        s = s[:limit - 1] + "…"
    return escape(s)


def score_sheet_pdf(table: str, sheet: dict, signatures: dict[str, str], teams: dict | None = None) -> bytes:
    """Render one match's sheet (``Match.score_sheet()`` shape) to PDF bytes."""
    teams = teams or {}
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=A4, leftMargin=15 * mm, rightMargin=15 * mm,
                            topMargin=15 * mm, bottomMargin=15 * mm,
                            title=f"掼蛋比赛记录表 {table}", author="guandan-referee")
    h1 = ParagraphStyle("h1", fontName=FONT, fontSize=16, leading=22, alignment=1)
    body = ParagraphStyle("body", fontName=FONT, fontSize=10, leading=14)
    ns, ew = text(teams.get("NS", "南北")), text(teams.get("EW", "东西"))
    story = [Paragraph(f"竞技掼蛋比赛记录表　桌号 {text(table)}", h1), Spacer(1, 4 * mm),
             Paragraph(f"赛制：{text(sheet.get('format', ''))}　南北方：{ns}　东西方：{ew}", body),
             Spacer(1, 4 * mm)]
    head = ["副", "级数", "出完顺序", "上游方", "升级", "南北级数", "东西级数", "处罚"]
    rows = [head]
    for r in sheet.get("rows", []):
        pens = "；".join(f"{SIDE_CN.get(p.get('side'), p.get('side', ''))} "
                        f"{PENALTY_CN.get(p.get('penalty'), p.get('penalty'))} {_term(p.get('code'))}"
                        for p in r.get("penalties", []))[:200]
        rows.append([str(r["deal"]), r["level"], " ".join(r.get("order", [])),
                     {"NS": "南北", "EW": "东西"}.get(r.get("winner"), "—"), f"+{r['upgrade']}",
                     r["levels_after"].get("NS", ""), r["levels_after"].get("EW", ""), pens])
    levels = sheet.get("levels", {})
    rows.append(["合计", "", "", "", "", levels.get("NS", ""), levels.get("EW", ""), ""])
    grid = Table(rows, repeatRows=1,
                 colWidths=[12 * mm, 14 * mm, 34 * mm, 18 * mm, 14 * mm, 20 * mm, 20 * mm, 48 * mm])
    grid.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), FONT, 10),
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6dd")),
        ("ALIGN", (0, 0), (-2, -1), "CENTER"),
    ]))
    story += [grid, Spacer(1, 6 * mm)]
    result = sheet.get("result")
    if result:
        winner = {"NS": f"南北（{ns}）", "EW": f"东西（{ew}）"}.get(result.get("winner"), "平局")
        pts, lp = result.get("points", {}), result.get("level_points", {})
        story.append(Paragraph(
            f"结果：{winner}　方式：{text(REASON_CN.get(result.get('reason'), result.get('reason')))}　"
            f"积分 南北 {pts.get('NS', '')} : 东西 {pts.get('EW', '')}　"
            f"级差分 南北 {lp.get('NS', '')} : 东西 {lp.get('EW', '')}", body))
    else:
        story.append(Paragraph("结果：比赛进行中", body))
    story.append(Spacer(1, 10 * mm))
    story.append(Paragraph(
        f"南北方确认：{text(signatures.get('NS', '＿＿＿＿＿＿'))}　　"
        f"东西方确认：{text(signatures.get('EW', '＿＿＿＿＿＿'))}　　裁判员：＿＿＿＿＿＿", body))
    doc.build(story)
    return buf.getvalue()
