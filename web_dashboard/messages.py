"""The referee's statements in the reader's language.

The referee (``referee/``) states each decision in English in its
``message``, the record's own words. The dashboard does not show those: each
violation, note and confirm code has a template here, in Chinese and
English, filled with the typed values the decision carries (its seat, side
and penalty, the extra fields of docs/events.md) and those of its evidence
events. :func:`message` picks the template and the values (language-neutral,
so one live state serves every viewer); the page's script fills it from the
catalogue in the viewer's language, and :func:`render` does the same here.

A placeholder is ``{name}`` (the value as it is: a seat letter, cards, a
number) or ``{name@prefix}`` (the catalogue's text for ``prefix + value``:
``{penalty@}`` is the penalty's name, ``{type@ev_}`` the event type's).
A template whose values a decision lacks falls back to the code's generic
one, so no English record text reaches the page.

>>> d = {"type": "violation", "code": "wrong_report", "seat": "S", "penalty": "warning",
...      "count": 9, "holds": 7, "events": [12]}
>>> m = message(d, {})
>>> render(m, "zh"), render(m, "en")
('S 报 9 张，实际 7 张', 'S reported 9 but holds 7')
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from referee.codes import Violation

PLACEHOLDER = re.compile(r"\{(\w+)(?:@(\w*))?\}")

# English names of the violation codes (the Chinese are the rules' own terms, referee/codes.py)
VIOLATION_EN = {
    "out_of_turn_play": "Play out of turn", "out_of_turn_pass": "Pass out of turn",
    "illegal_play": "Illegal play", "overtime": "Overtime",
    "missing_report": "Count not reported", "wrong_report": "Wrong count report",
    "repeat_report": "Count reported again", "wrong_tribute": "Wrong tribute",
    "wrong_return": "Wrong return", "arrangement": "Cards laid out of order",
    "late": "Late", "signalling": "Signalling to the partner", "manual": "Referee's ruling",
}
CONFIRM_NAMES = {
    "stop_choice": ("限制出牌选择", "Choice to stop a play"),
    "low_confidence": ("低置信度识别", "Low-confidence read"),
    "bad_reference": ("更正对象不存在", "Correction names no event"),
    "bad_correction": ("更正内容有误", "Malformed correction"),
    "bad_event": ("开局信息有误", "Bad deal start"),
    "bad_referee_event": ("裁判操作有误", "Bad referee action"),
    "bad_cards": ("牌无法识别", "Unreadable cards"),
    "bad_anti_tribute": ("抗贡条件不符", "Anti-tribute not shown"),
    "match_over": ("比赛已结束", "Match over"),
    "deal_unfinished": ("上一副未完成", "Deal unfinished"),
    "level_mismatch": ("级数不符", "Level mismatch"),
    "leader_side": ("首出方有误", "Wrong leading side"),
    "unexpected_tribute": ("不应进贡", "Unexpected tribute"),
    "unexpected_return": ("不应还贡", "Unexpected return"),
    "wrong_phase": ("阶段不符", "Wrong phase"),
    "no_deal": ("没有进行中的牌局", "No deal in play"),
    "seat_out": ("已出完", "Seat already out"),
    "too_many_copies": ("牌张超出两副", "More copies than two decks"),
    "more_cards_than_held": ("出牌多于手牌", "More cards than held"),
    "leader_pass": ("首出过牌", "Leader passed"),
    "held_violation": ("暂缓处罚", "Violation held"),
    "camera_penalty": ("摄像头识别待确认后处罚", "Penalty awaits the read's confirmation"),
    "camera_count": ("待清点手牌后处罚", "Penalty awaits a count of the hand"),
    "overtime_unseen": ("超时未判", "Overtime not given"),
}
NOTE_NAMES = {
    "out": ("出完", "Out"), "stopped": ("限制出牌", "Play stopped"),
    "stop_recorded": ("已记录限制", "Stop recorded"), "report_corrected": ("报牌已更正", "Report corrected"),
    "signed": ("签字确认", "Signed"), "settings": ("比赛设置", "Match settings"),
    "camera_moved": ("摄像头移动", "Camera moved"), "counted": ("裁判清点手牌", "Cards counted"),
    "camera_soft": ("摄像头画面模糊", "Camera out of focus"),
}

# key: (zh, en); every key starts with msg_
TEMPLATES: dict[str, tuple[str, str]] = {
    # violations
    "msg_out_of_turn_play": ("{seat} 在轮到 {expected} 时出牌 {cards}，牌收回",
                             "{seat} played {cards} before {expected}; the cards are taken back"),
    "msg_out_of_turn_play_phase": ("{seat} 在{before_phase@phase_}结束前出牌 {cards}，牌收回",
                                   "{seat} played {cards} before the {before_phase@phase_} was over; "
                                   "the cards are taken back"),
    "msg_out_of_turn_pass": ("{seat} 在轮到 {expected} 时表态过牌",
                             "{seat} passed before {expected}"),
    "msg_out_of_turn_pass_phase": ("{seat} 在{before_phase@phase_}结束前表态过牌",
                                   "{seat} passed before the {before_phase@phase_} was over"),
    "msg_out_of_turn_pass_sit_out": ("{seat} 在轮到 {expected} 时表态过牌：本圈不得跟牌",
                                     "{seat} passed before {expected}: may not follow for the rest "
                                     "of this trick"),
    "msg_illegal_play_does_not_beat": ("{seat} 出牌 {cards} 压不过桌面上的牌，牌收回",
                                       "{seat}'s {cards} does not beat the play standing; "
                                       "the cards are taken back"),
    "msg_illegal_play_illegal_combination": ("{seat} 出牌 {cards} 不成牌型，牌收回",
                                             "{seat}'s {cards} is no combination; the cards are taken back"),
    "msg_illegal_play": ("{seat} 出错牌 {cards}，牌收回",
                         "{seat} played {cards}, not a legal play; the cards are taken back"),
    "msg_arrangement": ("{seat} 出牌 {cards} 未按牌型顺序摆放",
                        "{seat} laid {cards} out of the order of the reading that counts"),
    "msg_overtime": ("{seat} {purpose@purpose_}超过时限，读秒结束仍未出牌",
                     "{seat} still had not acted after the {purpose@purpose_} limit and the countdown"),
    "msg_missing_report": ("{seat} 剩 {count} 张牌，{actor} 出牌前未报牌",
                           "{seat} did not report {count} cards left before {actor} acted"),
    "msg_report_escalated": ("{seat} 的{code@code_}在 {actor} 第二次出牌时仍未纠正（一家出牌超过一手牌）",
                             "{seat}'s {code@code_} still not put right when {actor} acted a second time"),
    "msg_report_went_out": ("{seat} 的{code@code_}未纠正即出完牌",
                            "{seat} went out after a {code@code_} that was never put right"),
    "msg_wrong_report": ("{seat} 报 {count} 张，实际 {holds} 张", "{seat} reported {count} but holds {holds}"),
    "msg_repeat_report": ("{seat} 再次报 {count} 张", "{seat} reported {count} again"),
    "msg_wrong_tribute_heart": ("{seat} 以红心级牌 {card} 进贡：退回，重新进贡",
                                "{seat} gave {card}, a heart level card, as tribute: it is taken back "
                                "and {seat} gives again"),
    "msg_wrong_tribute": ("{seat} 出示 {card}，大于所贡的 {given}：贡错牌",
                          "{seat} showed {card}, higher than the tribute {given}: the tribute was wrong"),
    "msg_wrong_return": ("{seat} 出示 {card}，小于所还的 {given}（10 以上）：还错牌",
                         "{seat} showed {card}, lower than the return {given} (above 10): the return was wrong"),
    "msg_late": ("{side@} 迟到 {minutes} 分钟", "{side@} {minutes} minutes late"),
    "msg_ruling_reason": ("{seat}：{reason}", "{seat}: {reason}"),
    "msg_ruling": ("{seat}：{code@code_}", "{seat}: {code@code_}"),
    "msg_changed": ("#{changes} 的处罚由 {who} 改为{penalty@}", "penalty for #{changes} changed to "
                    "{penalty@} by {who}"),
    "msg_violation": ("{seat}：{code@code_}", "{seat}: {code@code_}"),
    # other decisions of the referee's feed
    "msg_penalty": ("{side@}：本场两次{prev@}，升为{penalty@}", "{side@}: {prev@} twice in this match makes "
                    "{penalty@}"),
    "msg_device_offline": ("设备 {device} 离线：请人工留意过牌和报牌",
                           "device {device} offline: watch passes and reports by hand"),
    "msg_camera_offline": ("摄像头 {device} 离线：请人工录入出牌和进贡",
                           "camera {device} offline: enter plays and tributes by hand"),
    "msg_correction": ("裁判{action@act_} #{ref}：依记录重新判定",
                       "referee {action@act_} of #{ref}: judged again from the log"),
    # confirm requests
    "msg_low_confidence": ("{seat} 的{type@ev_}识别置信度 {confidence}：请确认或更正（确认前不计）",
                           "{type@ev_} by {seat} seen with confidence {confidence}: confirm or correct it "
                           "(not counted until confirmed)"),
    "msg_low_confidence_doubt": ("{seat} 的{type@ev_}识别存疑（{doubt@doubt_}），置信度 {confidence}：请看图确认或更正（确认前不计）",
                                 "{type@ev_} by {seat} doubted ({doubt@doubt_}), confidence {confidence}: look at "
                                 "the picture, confirm or correct it (not counted until confirmed)"),
    "msg_unread": ("{seat} 的出牌区新放了摄像头认不出的牌（牌面朝下或未知牌样？）：请看桌面，按所出的牌更正，或作废",
                   "{seat}'s play zone holds something new the camera cannot read (a card face down, or an "
                   "unknown deck?): look at the table and correct it with the cards laid, or void it"),
    "msg_held_violation": ("{held_code@code_}：暂不处罚，可能基于待确认的摄像头识别 {reads}，请确认或更正",
                           "{held_code@code_}: held, no penalty yet; it may rest on the camera read "
                           "{reads} awaiting confirmation: confirm or correct it"),
    "msg_camera_penalty": ("{seat}：{held_code@code_}，依据摄像头识别 {reads}：暂不处罚；请看图，确认识别后处罚，或更正所出的牌",
                           "{seat}: {held_code@code_} found in the camera's read {reads}: no penalty yet; look at "
                           "the picture and confirm the read to give it, or correct the cards"),
    "msg_camera_count": ("{seat}：{held_code@code_}，但 {seat} 剩 {counted} 张是依据摄像头识别 {reads} 算出的：暂不处罚；"
                         "请清点 {seat} 的手牌并录入张数（或确认这些识别）",
                         "{seat}: {held_code@code_}, but {seat}'s count of {counted} rests on the camera's reads "
                         "{reads}: no penalty yet; count {seat}'s cards and enter the number (or confirm "
                         "those reads)"),
    "msg_camera_count_turn": ("{offender}：{held_code@code_}，但 {seat} 剩 {counted} 张是依据摄像头识别 {reads} "
                              "算出的，{seat} 可能已出完牌：暂不处罚；请清点 {seat} 的手牌并录入张数（已出完录 0）",
                              "{offender}: {held_code@code_}, but {seat}'s count of {counted} rests on the camera's "
                              "reads {reads}, and {seat} may be out: no penalty yet; count {seat}'s cards and enter "
                              "the number (0 if {seat} is out)"),
    "msg_camera_count_deal": ("按摄像头识别第 {deal_unfinished} 副未打完，暂不计分；{seat} 剩 {counted} 张是依据摄像头识别 "
                              "{reads} 算出的，{seat} 可能已出完牌（该副即已结束）：请录入 {seat} 的张数（已出完录 0）",
                              "deal {deal_unfinished} had not finished by the camera's reads and is not scored yet; "
                              "{seat}'s count of {counted} rests on the camera's reads {reads}, and {seat} may have "
                              "gone out, ending it: enter {seat}'s count (0 if it went out)"),
    "msg_camera_count_out": ("{actor} 出牌或表态，但按摄像头识别 {reads}，{seat} 已出完牌（此举暂不计）：{seat} 可能仍有手牌；"
                             "请清点 {seat} 的手牌并录入张数（已出完录 0）",
                             "{actor} acted, but {seat} is out by the camera's reads {reads} (the act is not counted "
                             "yet): {seat} may still hold cards; count {seat}'s cards and enter the number (0 if out)"),
    "msg_camera_count_laid": ("{seat} 出了 {laid} 张，但按摄像头识别 {reads} 只剩 {counted} 张（此手牌暂不计）：{seat} 可能还有更多手牌；"
                              "请清点 {seat} 的手牌并录入张数（已出完录 0），或更正此手牌",
                              "{seat} laid {laid} cards, but holds {counted} by the camera's reads {reads} (the play "
                              "is not counted yet): {seat} may hold more; count {seat}'s cards and enter the number "
                              "(0 if out), or correct the play"),
    "msg_overtime_unseen": ("{seat} 在{purpose@purpose_}时限和读秒内未见出牌，但期间有摄像头离线：不予警告；如确实超时，请人工判罚",
                            "{seat} was not seen to act within the {purpose@purpose_} limit and the countdown, "
                            "but a camera was offline meanwhile: no warning given; give it by hand if {seat} "
                            "did run over"),
    "msg_stop_choice": ("违例：{seat}（{offender} 的下家）可限制 {offender} 的下一手出牌，请记录选择",
                        "infraction: {seat} (next after {offender}) may stop {offender}'s next play; "
                        "record the choice"),
    "msg_bad_reference": ("裁判操作指向本桌记录中不存在的事件",
                          "a referee correction names no event of this table's log"),
    "msg_bad_correction": ("裁判更正的事件内容有误", "the corrected event is malformed"),
    "msg_bad_event": ("开始一副的副数、级数或首出有误", "a deal start with a bad deal number, levels or leader"),
    "msg_bad_referee_event": ("裁判操作缺少必要内容或无法识别",
                              "a referee action without the fields it needs, or unknown"),
    "msg_bad_cards": ("{seat} 的{type@ev_}中有无法识别的牌", "{type@ev_} by {seat}: cards that cannot be read"),
    "msg_bad_anti_tribute": ("抗贡须由进贡方亮出两张大王",
                             "anti-tribute needs the tribute side to show both big jokers"),
    "msg_match_over": ("比赛已结束，又开始了一副", "a deal started but the match is over"),
    "msg_deal_unfinished": ("上一副未打完即开始新一副，上一副不计分",
                            "a deal started before the last one finished; that one is dropped unscored"),
    "msg_level_mismatch": ("开始一副所报级数与比赛级数不符", "a deal start names another level than the match's"),
    "msg_leader_side": ("犯规后首出应由非违规方", "after a foul, the first leader comes from the "
                        "non-offending side"),
    "msg_unexpected_tribute": ("{seat} 不应进贡（或已进贡）", "a tribute from {seat}, who gives none or gave "
                               "already"),
    "msg_unexpected_return": ("{seat} 不应还贡（或已还贡）", "a return from {seat}, who received no tribute or "
                              "returned already"),
    "msg_wrong_phase": ("{seat} 的{type@ev_}不在当前阶段", "{type@ev_} from {seat} outside its phase"),
    "msg_no_deal": ("{seat} 的{type@ev_}：没有进行中的一副", "{type@ev_} by {seat} with no deal in play"),
    "msg_seat_out": ("{seat} 已出完，不应再{type@ev_}", "{type@ev_} by {seat}, who is already out"),
    "msg_too_many_copies": ("{seat} 出牌 {cards}：本副将出现两副牌以外的牌（识别错误或外来牌？）",
                            "{seat} laid {cards}: a card would be seen more often than two decks hold "
                            "(recognition error or a foreign card?)"),
    "msg_more_cards_than_held": ("{seat} 出牌 {n} 张，多于手中的牌", "{seat} laid {n} cards, more than held"),
    "msg_leader_pass": ("{seat} 首出时过牌：首出必须出牌，过牌不计",
                        "{seat} passed while leading: the leader must play; pass not counted"),
    "msg_confirm": ("请确认：{code@code_}", "to confirm: {code@code_}"),
    # notes
    "msg_out": ("{seat} 出完：{place@place_}", "{seat} is out: {place@place_}"),
    "msg_stopped": ("{seat} 被限制出牌，计为过牌", "{seat}'s play is stopped: counted as a pass"),
    "msg_stop_recorded": ("已记录：限制 {seat} 的下一手出牌", "recorded: {seat}'s next play is stopped"),
    "msg_report_corrected": ("{seat} 已正确报牌", "{seat} now reports correctly"),
    "msg_counted": ("裁判清点 {seat} 手牌 {count} 张（按识别剩 {was} 张）",
                    "the referee counted {count} cards in {seat}'s hand (the plays read had left {was})"),
    "msg_camera_moved": ("摄像头 {device} 移动了 {moved_mm} 毫米，已依标记重新定位：请技术人员重新标定",
                         "camera {device} moved {moved_mm} mm and found the table again from its markers: "
                         "have it recalibrated"),
    "msg_camera_soft": ("摄像头 {device} 画面持续模糊：请技术人员手动对焦",
                        "camera {device}'s picture has been soft for seconds: have it focused by hand"),
    "msg_signed": ("{side@} 签字确认：{name}", "{side@} signed the score sheet: {name}"),
    "msg_settings": ("比赛设置", "match settings"),
    "msg_note": ("{code@code_}", "{code@code_}"),
    # the match format and result (score sheet)
    "fmt_game": ("打过 A", "first past A"),
    "fmt_deals": ("{deals} 副", "{deals} deals"),
    "fmt_time": ("{minutes} 分钟", "{minutes} minutes"),
    "fmt_time_deals": ("{minutes} 分钟或 {deals} 副", "{minutes} minutes or {deals} deals"),
}

# why a referee's form was refused (web_dashboard.views.ActionError): (zh, en)
ERRORS: dict[str, tuple[str, str]] = {
    "err_int": ("{name@field_}须为 {lo}-{hi} 的整数", "'{name}' must be {what@what_} ({lo}-{hi})"),
    "err_seat": ("{name@field_}须为 E S W N 之一", "'{name}' must be one of E S W N"),
    "err_text": ("{name@field_}须为一行 1-{limit} 个字符", "'{name}' must be 1-{limit} characters of text "
                 "on one line"),
    "err_penalty": ("处罚须为警告、违例、犯规或判负", "'penalty' must be one of {choices}"),
    "err_not_violation": ("事件 {ref} 不是违规的证据：只能改判违规的处罚",
                          "event {ref} is not the evidence of a violation: only a violation's penalty "
                          "can be changed"),
    "err_voided": ("事件 {ref} 的违规处罚已撤销，无可改判",
                   "the penalty of the violation from event {ref} was voided; nothing to change"),
    "err_no_event": ("本桌记录中没有事件 {ref}", "'ref': no event {ref} in table {table}'s log"),
    "err_match_over": ("比赛已结束：不能再录入处罚或出牌（可撤销或更正事件以重述记录）",
                       "the match is over: no more penalties or plays can be entered (void or correct "
                       "an event to restate the record)"),
    "err_what": ("撤销的对象须为处罚或事件", "'what' must be penalty or event"),
    "err_change_code": ("类别须为违规类别", "'code' must be a violation code ({choices})"),
    "err_offender": ("方位须为该违规的违规者（{seat}）", "'seat' must be the offender of the violation ({seat})"),
    "err_manual_code": ("类别须为迟到、传递非法信息或裁判判罚", "'code' must be one of {choices}"),
    "err_minutes": ("迟到分钟须为 0-{max} 的数", "'minutes' must be a number of minutes 0-{max}"),
    "err_kind": ("更正的类型须为出牌或过牌", "'kind' must be play or pass"),
    "err_cards": ("牌无法识别：{cards}", "{detail}"),
    "err_level": ("级数无法识别：{level}", "{detail}"),
    "err_correct_cards": ("更正出牌须填写牌", "a corrected play needs its cards"),
    "err_event_cards": ("{type@ev_}须填写牌", "a {what} needs its cards"),
    "err_side": ("签字方须为南北或东西", "'side' must be NS or EW"),
    "err_signer": ("签字人须为{side@}已登记的队员或队长（{allowed}），不能是「{name}」",
                   "'name' must be a registered player or captain of {side} ({allowed}), got '{name}'"),
    "err_action": ("无法识别的操作", "unknown action '{action}'"),
    "err_type": ("事件类型须为开始一副、出牌、过牌、报牌、贡牌、还牌或抗贡", "'type' must be one of {choices}"),
    "err_long_cards": ("填写的牌超过一手牌", "'cards' is too long for a hand"),
    "err_event": ("录入的内容有误，未保存", "{detail}"),
    "err_appeal": ("无法生成申诉材料：无此裁决，或其证据文件缺失", "{detail}"),
    "field_seat": ("方位", "seat"), "field_leader": ("首出", "leader"), "field_ref": ("事件编号", "ref"),
    "field_deal": ("副数", "deal"), "field_count": ("张数", "count"), "field_note": ("说明", "note"),
    "field_name": ("签字人", "name"),
    "what_ref": ("事件编号", "an event number"), "what_deal": ("副数", "the deal's number"),
    "what_count": ("剩余张数", "the number of cards left"),
}

# every other text these templates and the feed need: (zh, en)
WORDS: dict[str, tuple[str, str]] = {
    **{f"code_{v.value}": (v.term, VIOLATION_EN[v.value]) for v in Violation},
    **{f"code_{c}": names for c, names in CONFIRM_NAMES.items()},
    **{f"code_{c}": names for c, names in NOTE_NAMES.items()},
    "st_open": ("待处理", "open"), "st_confirmed": ("已确认", "confirmed"),
    "st_voided": ("已撤销", "voided"), "st_chosen": ("已选择", "chosen"),
    "purpose_play": ("出牌", "play"), "purpose_lead": ("首出", "lead"),
    "purpose_tribute": ("进贡", "tribute"), "purpose_return": ("还贡", "return"),
    "act_confirm": ("确认", "confirmation"), "act_void": ("撤销", "voiding"),
    "act_correct": ("更正", "correction"), "act_count": ("清点手牌", "count of the hand"),
    "place_1": ("上游", "first"), "place_2": ("二游", "second"),
    "place_3": ("三游", "third"), "place_4": ("下游", "last"),
    "src_vision": ("摄像头", "camera"), "src_device": ("设备", "device"),
    "src_manual": ("人工", "by hand"), "src_replay": ("回放", "replay"),
    "ev_tick": ("计时", "Clock tick"), "ev_zone_clear": ("清台", "Zone cleared"),
    "ev_report_clear": ("收回报牌", "Report taken back"), "ev_device_status": ("设备状态", "Device status"),
    "ev_referee": ("裁判操作", "Referee action"), "ev_settings": ("比赛设置", "Settings"),
    "reason_past_a": ("过A", "past A"), "reason_deals": ("副数到", "deals played"),
    "reason_time": ("时间到", "time up"), "reason_extra_deal": ("加赛", "extra deal"),
    "reason_forfeit": ("判负", "forfeit"), "reason_abandonment": ("弃权", "abandonment"),
    "result_draw": ("平局", "draw"), "sheet_format": ("赛制", "Format"),
    "late_minutes": ("迟到分钟", "Minutes late"), "frame_crop": ("识别画面", "Frame crop"),
    "lightbox_close": ("关闭", "Close"),
    "sign_free": ("本方未登记队员或队长：可填写任意姓名",
                  "No players or captain registered for this side: any name"),
    "sign_for": ("代表签字", "Sign for"),
}


def _values_of(d: Mapping[str, Any], by_id: Mapping[Any, Mapping[str, Any]]) -> dict[str, Any]:
    """The decision's typed values, and those its evidence shows (cards, event type)."""
    values = {k: v for k, v in d.items() if k not in ("message", "events", "evidence", "t", "table", "n", "type")
              and v is not None}
    evidence = [by_id[i] for i in d.get("events") or [] if i in by_id]
    observed = d.get("observed") or {}
    last = evidence[-1] if evidence else {}
    source = observed or last
    if source.get("type"):
        values.setdefault("type", source["type"])
    if source.get("cards"):
        values.setdefault("cards", " ".join(source["cards"]))
        values.setdefault("n", len(source["cards"]))
    if last.get("confidence") is not None:
        values.setdefault("confidence", f"{last['confidence']:.2f}")
    if last.get("who"):
        values.setdefault("who", last["who"])
    if last.get("doubt"):
        values.setdefault("doubt", last["doubt"])
    if last.get("type") == "referee" and last.get("reason") and not d.get("changes"):
        values.setdefault("reason", last["reason"])
    if isinstance(d.get("held"), Mapping):
        values["held_code"] = d["held"].get("code")
    if isinstance(d.get("reads"), list):
        values["reads"] = ", ".join(f"#{r}" for r in d["reads"])
    if d.get("type") == "penalty" and d.get("penalty") in _LADDER:
        values["prev"] = _LADDER[_LADDER.index(d["penalty"]) - 1]
    return values


_LADDER = ("warning", "infraction", "foul", "forfeit")


# why a seat's count is asked (a camera_count request's field), and its template; else a report fault's
_COUNT_ASKED = (("offender", "msg_camera_count_turn"),        # an act before a seat that may be out
                ("deal_unfinished", "msg_camera_count_deal"),  # a deal the reads left unfinished
                ("seat_out", "msg_camera_count_out"),          # an act while a seat is out by the reads
                ("laid", "msg_camera_count_laid"))             # more laid than the reads leave the seat


def _key(d: Mapping[str, Any]) -> tuple[str, str]:
    """The template for decision ``d`` and the generic one to fall back on."""
    kind, code = d.get("type"), d.get("code") or ""
    if kind == "violation":
        if d.get("changes") is not None:
            return "msg_changed", "msg_violation"
        if code in ("missing_report", "wrong_report") and d.get("went_out"):
            return "msg_report_went_out", "msg_violation"
        if code in ("missing_report", "wrong_report") and d.get("escalated"):
            return "msg_report_escalated", "msg_violation"
        if code in ("out_of_turn_play", "out_of_turn_pass"):
            if d.get("sit_out"):
                return "msg_out_of_turn_pass_sit_out", "msg_violation"
            return f"msg_{code}" + ("_phase" if d.get("before_phase") else ""), "msg_violation"
        if code == "illegal_play" and d.get("judged"):
            return f"msg_illegal_play_{d['judged']}", "msg_illegal_play"
        if code == "wrong_tribute" and not d.get("what"):
            return "msg_wrong_tribute_heart", "msg_violation"
        if code in ("signalling", "manual"):
            return "msg_ruling_reason", "msg_ruling"
        return f"msg_{code}", "msg_violation"
    if kind == "confirm_request":
        if code == "camera_count":
            for field, key in _COUNT_ASKED:
                if d.get(field):
                    return key, "msg_confirm"
        return f"msg_{code}", "msg_confirm"
    if kind == "note":
        return f"msg_{code}", "msg_note"
    if kind == "device_offline" and d.get("camera"):
        return "msg_camera_offline", "msg_device_offline"
    return f"msg_{kind}", "msg_note"


# Why the camera doubts a read however sure it is: a play event's ``doubt``
# (vision.reading.tracker.doubt); each is worded in the catalogue as doubt_<code>
DOUBTS = ("third_copy", "joker_no_combination", "no_combination", "left_out", "unread", "unexplained")


def message(d: Mapping[str, Any], by_id: Mapping[Any, Mapping[str, Any]]) -> dict[str, Any]:
    """``{"key": template key, "values": {...}}`` for decision ``d`` (a dict as
    ``Decision.to_dict`` makes it); ``by_id``: the table's events by id."""
    values = _values_of(d, by_id)
    key, generic = _key(d)
    if key == "msg_low_confidence" and values.get("doubt") == "unread":
        key = "msg_unread"                   # no cards to confirm: the referee says which were laid
    elif key == "msg_low_confidence" and values.get("doubt") in DOUBTS:
        key = "msg_low_confidence_doubt"     # the referee is told why (an unknown code: not worded)
    if key not in TEMPLATES or not _fits(key, values):
        key = generic if _fits(generic, values) else "msg_note"
    return {"key": key, "values": {k: values[k] for k in placeholders(key) if k in values}}


def placeholders(key: str) -> set[str]:
    """The value names the template ``key`` uses (the same in both languages)."""
    return {m.group(1) for text in TEMPLATES[key] for m in PLACEHOLDER.finditer(text)}


def _fits(key: str, values: Mapping[str, Any]) -> bool:
    return all(values.get(name) not in (None, "") for name in placeholders(key))


def fill(text: str, values: Mapping[str, Any], word: Callable[[str], str]) -> str:
    """``text`` with its placeholders filled; ``word(key)``: the catalogue's text."""
    def one(m: re.Match[str]) -> str:
        value = values.get(m.group(1), "")
        prefix = m.group(2)
        return word(f"{prefix}{value}") if prefix is not None else str(value)
    return PLACEHOLDER.sub(one, text)


def render(msg: Mapping[str, Any], lang: str) -> str:
    """A :func:`message` (or any ``{"key", "values"}``) in ``lang``."""
    from web_dashboard.i18n import translate
    return fill(translate(msg["key"], lang), msg.get("values") or {}, lambda k: translate(k, lang))


def format_message(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The match format (a score sheet's head) as a message."""
    fmt = settings.get("match_format", "game")
    minutes = settings.get("minutes")
    return {"key": f"fmt_{fmt}" if f"fmt_{fmt}" in TEMPLATES else "fmt_game",
            "values": {"deals": settings.get("deals"),
                       "minutes": f"{minutes:g}" if isinstance(minutes, (int, float)) else minutes}}


def clause(code: str | None) -> str:
    """The rule clause a violation code cites (§七(二)2), or ''."""
    try:
        return f"§{Violation(code).clause}" if code else ""
    except ValueError:
        return ""
