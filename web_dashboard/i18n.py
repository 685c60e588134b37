"""Chinese pages with an English switch: a small catalogue, chosen per request.

The language comes from the ``lang`` cookie (set by ``/lang/<code>``), then
the app's ``DEFAULT_LANG`` (Chinese).

>>> translate("violations", "en"), translate("violations", "zh")
('Violations', '违规记录')
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g, request

LANGS = ("zh", "en")

CATALOGUE: dict[str, tuple[str, str]] = {  # key: (zh, en)
    "title": ("掼蛋裁判助手", "Guandan referee assistant"),
    "overview": ("全场总览", "Overview"),
    "table": ("牌桌", "Table"),
    "tables": ("牌桌", "Tables"),
    "login": ("登录", "Log in"),
    "logout": ("退出", "Log out"),
    "username": ("用户名", "User name"),
    "password": ("密码", "Password"),
    "bad_login": ("用户名或密码错误", "Wrong user name or password"),
    "too_many_logins": ("登录失败次数过多，请稍后再试", "Too many failed logins; try again later"),
    "level": ("级数", "Level"),
    "levels": ("双方级数", "Levels"),
    "deal": ("副", "Deal"),
    "phase": ("阶段", "Phase"),
    "turn": ("轮到", "Turn"),
    "clock": ("计时", "Clock"),
    "countdown": ("读秒", "Countdown"),
    "trick": ("本圈出牌", "Current trick"),
    "cards_left": ("剩余张数", "Cards left"),
    "reports": ("报牌", "Reports"),
    "pass": ("过", "Pass"),
    "violations": ("违规记录", "Violations"),
    "open_violations": ("待处理违规", "Open violations"),
    "decisions": ("裁判记录", "Decisions"),
    "evidence": ("证据", "Evidence"),
    "confirm": ("确认", "Confirm"),
    "void": ("撤销", "Void"),
    "change_penalty": ("改判", "Change penalty"),
    "manual_entry": ("人工录入", "Manual entry"),
    "apply_penalty": ("判罚", "Apply penalty"),
    "correct_play": ("更正出牌", "Correct a play"),
    "event_id": ("事件编号", "Event no."),
    "cards": ("牌", "Cards"),
    "seat": ("方位", "Seat"),
    "code": ("类别", "Code"),
    "penalty": ("处罚", "Penalty"),
    "note": ("说明", "Note"),
    "submit": ("提交", "Submit"),
    "confirm_requests": ("待确认识别", "Observations to confirm"),
    "devices_offline": ("设备/摄像头离线", "Devices / cameras offline"),
    "cameras_offline": ("摄像头离线", "Cameras offline"),
    "match_clock": ("比赛用时", "Match clock"),
    "finish_order": ("出完顺序", "Finishing order"),
    "score_sheet": ("记分表", "Score sheet"),
    "standings": ("名次", "Standings"),
    "overlay": ("直播叠加", "Stream overlay"),
    "download_pdf": ("下载 PDF", "Download PDF"),
    "download_csv": ("下载 CSV", "Download CSV"),
    "upgrade": ("升级", "Upgrade"),
    "levels_after": ("打后级数", "Levels after"),
    "penalties": ("处罚", "Penalties"),
    "totals": ("合计", "Totals"),
    "sign": ("签字确认", "Sign"),
    "signed": ("已签字", "Signed"),
    "not_signed": ("未签字", "Not signed"),
    "side": ("方", "Side"),
    "team": ("队", "Team"),
    "points": ("积分", "Points"),
    "cumulative": ("累进分", "Cumulative"),
    "head_to_head": ("直胜", "Head to head"),
    "rounds_won": ("胜轮数", "Rounds won"),
    "level_points": ("级差分", "Level-difference points"),
    "levels_gained": ("升级数", "Levels gained"),
    "rank": ("名次", "Rank"),
    "decided_by": ("排名依据", "Decided by"),
    "lots": ("抽签", "Lots"),
    "live": ("实时", "Live"),
    "reconnecting": ("重新连接中…", "Reconnecting…"),
    "no_tables": ("没有牌桌", "No tables"),
    "result": ("结果", "Result"),
    "warning": ("警告", "Warning"),
    "infraction": ("违例", "Infraction"),
    "foul": ("犯规", "Foul"),
    "forfeit": ("判负", "Forfeit"),
    "choice": ("非违规方选择", "Non-offending side's choice"),
    "stop_next_play": ("限制违规方下一手出牌", "Stop the offender's next play"),
    "waive": ("放弃", "Waive"),
    "ladder": ("处罚累计", "Penalty ladder"),
    "phase_idle": ("未开始", "Not started"),
    "phase_tribute": ("进贡", "Tribute"),
    "phase_return": ("还贡", "Return"),
    "phase_play": ("出牌", "Play"),
    "phase_finished": ("本副结束", "Deal over"),
    "phase_match_over": ("比赛结束", "Match over"),
    "forbidden": ("无权操作此牌桌", "You may not act on this table"),
    "language": ("English", "中文"),
    "NS": ("南北", "N-S"),
    "EW": ("东西", "E-W"),
    "event_type": ("事件", "Event"),
    "enter_event": ("录入", "Enter"),
    "card": ("单张", "Card"),
    "count": ("张数", "Count"),
    "leader": ("首出", "Leader"),
    "ev_deal_start": ("开始一副", "Deal start"),
    "ev_play": ("出牌", "Play"),
    "ev_pass": ("过牌", "Pass"),
    "ev_report": ("报牌", "Count report"),
    "ev_tribute": ("贡牌", "Tribute"),
    "ev_return": ("还牌", "Return"),
    "ev_anti_tribute": ("抗贡", "Anti-tribute"),
    "clip": ("录像", "Video clip"),
    "appeal_bundle": ("下载申诉材料", "Download appeal bundle"),
}


def translate(key: str, lang: str) -> str:
    """The text for ``key`` in ``lang`` (the key itself when unknown)."""
    entry = CATALOGUE.get(key)
    if entry is None:
        return key
    return entry[1] if lang == "en" else entry[0]


def catalogue(lang: str) -> dict[str, str]:
    """The whole catalogue in one language (for the pages' scripts)."""
    return {key: translate(key, lang) for key in CATALOGUE}


def init_app(app: Flask) -> None:
    """Choose each request's language; give the templates ``_``, ``lang`` and
    ``i18n_catalogue``."""

    @app.before_request
    def _lang() -> None:
        lang = request.cookies.get("lang", app.config["DEFAULT_LANG"])
        g.lang = lang if lang in LANGS else "zh"

    @app.context_processor
    def _helpers() -> dict[str, Any]:
        lang = g.get("lang", "zh")
        # i18n_catalogue goes into a JSON data block (tojson makes it HTML-safe)
        return {"_": lambda key: translate(key, lang), "lang": lang,
                "i18n_catalogue": catalogue(lang)}
