"""Chinese pages with an English switch: a small catalogue, chosen per request.

The language comes from the ``lang`` cookie (set by ``/lang/<code>``), then
the app's ``DEFAULT_LANG`` (Chinese).

>>> translate("violations", "en"), translate("violations", "zh")
('Violations', '违规记录')
"""

from __future__ import annotations

from typing import Any, NoReturn

from flask import Flask, g, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, default_exceptions

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
    "count_hand": ("录入清点张数", "Enter the count"),
    "cards_counted": ("清点张数", "Cards counted"),
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
    # the venue central on the overview (web_dashboard/venue_status.py): dead letters and lag
    "venue_central": ("中心服务", "Venue central"),
    "venue_healthy": ("正常", "Healthy"),
    "venue_unhealthy": ("连接中断", "Connection lost"),
    "venue_last_error": ("最近错误", "Last error"),
    "venue_dead_letters": ("无法记录的消息（死信）", "Messages that could not be recorded (dead letters)"),
    "venue_dead_letters_none": ("没有无法记录的消息", "No dead letters"),
    "venue_dl_time": ("时间", "Time"),
    "venue_dl_stream": ("数据流", "Stream"),
    "venue_dl_position": ("序号", "Position"),
    "venue_dl_reason": ("原因", "Reason"),
    "venue_lag": ("各桌积压", "Lag per table"),
    "venue_lag_undelivered": ("未送达", "Not yet delivered"),
    "venue_lag_pending": ("待确认", "Delivered, not yet acknowledged"),
    "venue_unavailable": ("暂时无法读取", "cannot be read just now"),
    # the cameras' reads as the referees judged them (web_dashboard/camera_checks.py)
    "camera_checks": ("摄像头识别核查", "Camera checks"),
    "cc_intro": ("每桌摄像头识别的牌（出牌、进贡）及裁判的处理：确认为对，更正或撤销为错。置信度低于门槛的识别会询问裁判；"
                 "未询问且未更正的识别仅推定为对。",
                 "Each table's camera reads of cards (plays, tributes) and what the referees did with them: "
                 "confirmed is right, corrected or voided is wrong. Reads below the threshold are asked about; "
                 "a read not asked and never corrected is only presumed right."),
    "cc_all": ("全场", "All tables"),
    "cc_reads": ("识别次数", "Camera reads"),
    "cc_asked": ("询问裁判", "Asked"),
    "cc_answered_wrong": ("已答复：错误", "Answered: wrong"),
    "cc_promised": ("置信度预计错误", "Wrong as the confidence promised"),
    "cc_unanswered": ("未答复", "Never answered"),
    "cc_unasked_wrong": ("未询问但后来更正", "Not asked, corrected later"),
    "cc_fit_reads": ("可用于本场置信曲线", "For a venue curve"),
    "cc_none": ("还没有摄像头识别", "No camera reads yet"),
    "cc_hands_off": ("裁判清点手牌：与识别张数不符", "Hands the referee counted: read count off"),
    # the broadcast overlay (web_dashboard/overlay.py); {n}, {team} are filled in by overlay.js
    "seat_S": ("南", "South"),
    "seat_E": ("东", "East"),
    "seat_N": ("北", "North"),
    "seat_W": ("西", "West"),
    "ov_deal": ("第 {n} 副", "Deal {n}"),
    "ov_playing": ("打 {n}", "Playing {n}"),
    "ov_left": ("剩 {n} 张", "{n} left"),
    "ov_place_1": ("上游", "1st out"),
    "ov_place_2": ("二游", "2nd out"),
    "ov_place_3": ("三游", "3rd out"),
    "ov_place_4": ("下游", "Last"),
    "ov_ruling": ("裁判判罚", "Referee's ruling"),
    "ov_winner": ("{team} 获胜", "{team} win"),
    "ov_draw": ("平局", "Draw"),
    "ov_big_joker": ("大王", "Big joker"),
    "ov_little_joker": ("小王", "Little joker"),
    # the deal viewer (web_dashboard/deal_viewer.py, templates/deal.html)
    "dv_title": ("牌局回放", "Deal viewer"),
    "dv_deals": ("牌局回放", "Deals"),
    "dv_deal_n": ("第 {n} 副", "Deal {n}"),
    "dv_trick_n": ("第 {n} 轮", "Trick {n}"),
    "dv_tribute": ("进贡与还贡", "Tribute and return"),
    "dv_hands": ("手牌还原", "Hands reconstructed"),
    "dv_hands_hint": ("每家发到的牌：已出的牌、进贡或还贡给出的牌，减去收到的牌；未出现的牌记为未见",
                      "Each seat's dealt cards as far as the play shows them: the cards it laid and "
                      "gave in tribute or return, less those it received; the rest unseen"),
    "dv_unseen": ("张未见", "unseen"),
    "dv_still_held": ("仍在手中", "Still held"),
    "dv_prev": ("上一步", "Previous"),
    "dv_next": ("下一步", "Next"),
    "dv_won": ("最大", "wins"),
    "dv_won_by": ("本轮最大", "Trick won by"),
    "dv_next_leader": ("下轮首出", "next lead"),
    "dv_jiefeng": ("接风", "partner leads, 接风"),
    "dv_double_down": ("双下", "double down"),
    "dv_unfinished": ("本副未完", "Not finished"),
    "dv_report": ("报牌", "Reports"),
    "dv_report_clear": ("收回报牌", "Report card taken back"),
    "dv_used": ("用时/限时", "Time used / limit"),
    "dv_not_counted": ("不计", "not counted"),
    "dv_voided": ("已撤销", "voided"),
    "dv_corrected": ("已更正", "corrected"),
    "dv_correction": ("裁判更正", "Referee correction"),
    "dv_action_void": ("撤销", "void"),
    "dv_action_correct": ("更正", "correct"),
    "dv_action_confirm": ("确认", "confirm"),
    "dv_action_count": ("清点手牌", "count of the hand"),
    "dv_violation": ("违规", "Violation"),
    "dv_penalty": ("处罚累进", "Penalty"),
    "dv_confirm_request": ("待确认", "To confirm"),
    "dv_note": ("说明", "Note"),
    "dv_countdown": ("读秒", "Countdown"),
    "dv_anti_tribute": ("抗贡", "Anti-tribute"),
    "dv_code_out": ("出完", "out"),
    "dv_code_stopped": ("被限制出牌", "stopped"),
    "dv_code_stop_choice": ("非违规方选择", "the non-offending side's choice"),
    "dv_code_stop_recorded": ("已记录选择", "choice recorded"),
    "dv_code_report_corrected": ("报牌已更正", "report put right"),
    "dv_code_low_confidence": ("识别置信度低", "low-confidence read"),
    "doubt_third_copy": ("同一张牌超过两张", "a third copy of a card"),
    "doubt_joker_no_combination": ("含王但不成任何牌型", "a joker in cards that make no combination"),
    "doubt_no_combination": ("不成任何牌型", "cards that make no combination"),
    "doubt_left_out": ("换个角度识别到一张未计入的牌", "another view of the cards saw one more card"),
    "doubt_unread": ("区域内新放了摄像头认不出的东西", "something new in the zone that the camera cannot read"),
    "doubt_unexplained": ("区域内的牌比识别出的多（有一张认不出？）",
                          "more lies in the zone than the cards read (a card the camera cannot read?)"),
    "dv_code_held_violation": ("暂缓判罚", "held until confirmed"),
    "dv_code_camera_penalty": ("待确认识别后判罚", "held until the camera's read is confirmed"),
    "dv_code_camera_count": ("待清点手牌后判罚", "held until the hand is counted"),
    "dv_code_counted": ("裁判清点手牌", "cards counted by the referee"),
    "dv_code_overtime_unseen": ("超时未判（摄像头离线）", "overtime not given (a camera was offline)"),
    "dv_code_signed": ("已签字", "signed"),
    "dv_seat_E": ("东", "E"),
    "dv_seat_S": ("南", "S"),
    "dv_seat_W": ("西", "W"),
    "dv_seat_N": ("北", "N"),
    "dv_big_joker": ("大王", "Big joker"),
    "dv_little_joker": ("小王", "Little joker"),
    "dv_not_public": ("本副牌结束并经过直播延时后才对公众公开", "This deal is shown to the public once it "
                      "has ended and the broadcast delay has passed"),
    "dv_public_in": ("约 {s} 秒后公开", "public in about {s} s"),
    "dv_record": ("下载牌谱（JSON）", "Deal record (JSON)"),
}

# ---- the referee's screen in one language: decisions' message templates and
# the words they and the feed use (codes, statuses, sources, ...): messages.py
from web_dashboard.messages import ERRORS, TEMPLATES, WORDS  # noqa: E402  (a block of its own)

CATALOGUE.update(WORDS)
CATALOGUE.update(ERRORS)
CATALOGUE.update(TEMPLATES)
CATALOGUE.update({
    "sign_for": ("代表签字", "Sign for"),
    "sign_name": ("签字人", "Name"),
    # error pages (fail() and the handler in init_app)
    "http_400": ("请求有误", "Bad request"), "http_403": ("无权访问", "Forbidden"),
    "http_404": ("未找到", "Not found"), "http_405": ("不允许的操作", "Method not allowed"),
    "http_error": ("出错了", "Error"), "back_to_overview": ("返回全场总览", "Back to the overview"),
    "err_no_table": ("本场没有牌桌 {table}", "no table '{table}' at this venue"),
    "err_not_assigned": ("{user} 未被分配到牌桌 {table}，无权查看或操作",
                         "{user} is not assigned to table {table}"),
    "err_no_evidence_dir": ("未配置证据图片目录", "no evidence directory is configured (EVIDENCE_DIR)"),
    "err_no_lang": ("没有这种语言（可选：中文、英文）", "no language '{code}' (zh, en)"),
    "err_csrf": ("表单已失效，请刷新页面后重试",
                 "the form has expired or was not sent by this site (CSRF token missing or invalid): "
                 "reload the page and try again"),
})


def fail(status: int, key: str, /, **values: Any) -> NoReturn:
    """Abort with HTTP ``status``; the page (or JSON ``error``) says why in the
    reader's language from template ``key``, ``detail`` in English."""
    from web_dashboard.messages import render
    exc = default_exceptions[status](description=render({"key": key, "values": values}, "en"))
    exc.i18n = {"key": key, "values": values}  # type: ignore[attr-defined]
    raise exc


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

    from web_dashboard.messages import render

    @app.errorhandler(HTTPException)
    def _error_page(exc: HTTPException):
        """An error in the reader's language: the page, or JSON for a script."""
        if exc.code is None or exc.code < 400:
            return exc
        lang = g.get("lang", "zh")
        msg = getattr(exc, "i18n", None)
        if msg is None and isinstance(exc, CSRFError):
            msg = {"key": "err_csrf", "values": {}}
        # an abort without a template (another module's) keeps its own description
        said = render(msg, lang) if msg is not None else (exc.description or "")
        if request.accept_mimetypes.best == "application/json":
            return jsonify(error=said, detail=exc.description), exc.code
        title = translate(f"http_{exc.code}", lang)
        if title == f"http_{exc.code}":
            title = translate("http_error", lang)
        return render_template("error.html", code=exc.code, title=title, said=said), exc.code

    @app.context_processor
    def _helpers() -> dict[str, Any]:
        lang = g.get("lang", "zh")
        # i18n_catalogue goes into a JSON data block (tojson makes it HTML-safe)
        return {"_": lambda key: translate(key, lang), "lang": lang,
                "msg": lambda m: render(m, lang), "i18n_catalogue": catalogue(lang)}
