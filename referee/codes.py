"""The codes a decision carries (``code`` in its JSON), one documented enum per kind.

Every enum here is an :class:`enum.StrEnum`: a member *is* its string, so
``json.dumps``, comparisons with plain strings and dictionary keys behave as
the bare strings did. Each member carries a one-line ``__doc__``.

>>> Violation.OUT_OF_TURN_PLAY == "out_of_turn_play", Violation.OUT_OF_TURN_PLAY.term
(True, '越序出牌')
>>> Violation.ILLEGAL_PLAY.cn()
'出错牌, §七(二)3'
>>> Confirm.STOP_CHOICE.__doc__
"After an infraction in play: the offender's 下家 may stop its next play."
>>> import json; json.dumps({"code": Note.OUT})
'{"code": "out"}'
"""

from __future__ import annotations

import enum
from typing import Self


class DocumentedEnum(enum.StrEnum):
    """A string enum whose members are written ``NAME = "value", "one-line doc"``."""

    def __new__(cls, value: str, doc: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.__doc__ = doc
        return member


class Violation(enum.StrEnum):
    """Violation codes, with the Chinese term and the clause of 《江苏省掼蛋竞赛规则（2023）》
    第三章 (七 penalties) that messages cite: the one table of them.

    Written ``NAME = "code", "中文", "clause", "doc"``.
    """

    term: str
    clause: str

    def __new__(cls, value: str, term: str = "", clause: str = "", doc: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.term, member.clause, member.__doc__ = term, clause, doc
        return member

    OUT_OF_TURN_PLAY = ("out_of_turn_play", "越序出牌", "七(二)2",
                        "A play before the seat's turn (or during tribute); the cards go back.")
    OUT_OF_TURN_PASS = ("out_of_turn_pass", "越序表态", "七(一)6",
                        "A pass before the seat's turn.")
    ILLEGAL_PLAY = ("illegal_play", "出错牌", "七(二)3",
                    "No combination, or one that does not beat the play standing.")
    OVERTIME = ("overtime", "出牌/贡还牌超时", "七(一)5",
                "The limit and the countdown both ran out.")
    MISSING_REPORT = ("missing_report", "未报牌", "七(一)9",
                      "Ten or fewer cards left and no count report before the next action.")
    WRONG_REPORT = ("wrong_report", "报错牌", "七(一)9",
                    "A count report that is not the number of cards held.")
    REPEAT_REPORT = ("repeat_report", "反复报牌", "七(一)8",
                     "The same true count reported again.")
    WRONG_TRIBUTE = ("wrong_tribute", "贡错牌", "七(一)4",
                     "A heart level card given, or a tribute a later play proves was not the highest.")
    WRONG_RETURN = ("wrong_return", "还错牌", "七(一)4",
                    "A return above 10 that a later play proves was not the lowest.")
    ARRANGEMENT = ("arrangement", "出牌方式违规", "七(一)7",
                   "Cards not laid in the counted reading's order.")
    LATE = ("late", "迟到", "七(一)1/七(三)1/七(四)",
            "A side late to the table (the referee's entry).")
    SIGNALLING = ("signalling", "传递非法信息", "七(三)",
                  "Passing information to the partner (the referee's entry).")
    MANUAL = ("manual", "裁判判罚", "七",
              "Any other ruling the referee enters by hand.")

    def cn(self) -> str:
        """The Chinese term and clause, as messages cite them."""
        return f"{self.term}, §{self.clause}"


class Note(DocumentedEnum):
    """Codes of ``note`` decisions: facts the record states, no action needed."""

    OUT = "out", "A seat played its last card; ``place`` is its finishing place."
    STOPPED = "stopped", "A stopped or barred seat's turn counts as a pass, or its lead passes on."
    STOP_RECORDED = "stop_recorded", "The referee recorded the choice to stop an offender's next play."
    REPORT_CORRECTED = "report_corrected", "A seat with a report fault now reports its count correctly."
    SIGNED = "signed", "A side confirmed the score sheet (双方签字确认)."
    SETTINGS = "settings", "The match's settings (format, limits, rule variants, teams) from here on."
    COUNTED = "counted", ("The referee counted a seat's cards (referee action count): its count from here "
                          "on, whatever the plays read had left.")
    CAMERA_MOVED = "camera_moved", "A camera was knocked out of place and found the table again from its markers."
    CAMERA_SOFT = "camera_soft", ("A camera's picture has been soft (out of focus) for seconds: read as it is, "
                                  "more of its reads asked about; have it focused.")


class Confirm(DocumentedEnum):
    """Codes of ``confirm_request`` decisions: the referee must look, choose or correct."""

    STOP_CHOICE = "stop_choice", "After an infraction in play: the offender's 下家 may stop its next play."
    LOW_CONFIDENCE = "low_confidence", "A camera observation below the confidence limit; not counted."
    BAD_REFERENCE = "bad_reference", "A referee correction names no event of this table's log."
    BAD_CORRECTION = "bad_correction", "A referee correction whose corrected event is malformed."
    BAD_EVENT = "bad_event", "A deal start with a bad deal number, levels or leader."
    BAD_REFEREE_EVENT = "bad_referee_event", "A referee action without the fields it needs, or unknown."
    BAD_CARDS = "bad_cards", "Cards that cannot be read."
    BAD_ANTI_TRIBUTE = "bad_anti_tribute", "抗贡 claimed without the tribute side showing big jokers."
    MATCH_OVER = "match_over", "A deal started after the match ended."
    DEAL_UNFINISHED = "deal_unfinished", "A deal started before the last one finished; that one is dropped."
    LEVEL_MISMATCH = "level_mismatch", "A deal start names another level than the match's."
    LEADER_SIDE = "leader_side", "After a foul, the first leader is not from the non-offending side."
    UNEXPECTED_TRIBUTE = "unexpected_tribute", "A tribute from a seat that does not give one, or gave already."
    UNEXPECTED_RETURN = "unexpected_return", "A return from a seat that received no tribute, or returned already."
    WRONG_PHASE = "wrong_phase", "A tribute, return or 抗贡 outside its phase of the deal."
    NO_DEAL = "no_deal", "A play, pass or report with no deal in play."
    SEAT_OUT = "seat_out", "A play or pass by a seat that is already out."
    TOO_MANY_COPIES = "too_many_copies", "A card seen more often this deal than two decks hold."
    MORE_CARDS_THAN_HELD = "more_cards_than_held", "A play of more cards than the seat holds."
    LEADER_PASS = "leader_pass", "A pass by the seat that must lead; not counted."
    HELD_VIOLATION = "held_violation", ("A violation found while a camera read of this deal awaits "
                                        "confirmation: no penalty unless the read is confirmed.")
    CAMERA_PENALTY = "camera_penalty", ("A penalty found in the cards a camera read, held until the referee "
                                        "confirms that read (or corrects it); setting camera_penalties.")
    CAMERA_COUNT = "camera_count", ("A count report fault found while the seat's count rests on camera reads "
                                    "neither confirmed nor corrected, or an act before a seat whose count so "
                                    "rests (it may be out): no penalty until the referee counts that seat's "
                                    "cards (or confirms those reads); setting camera_penalties.")
    OVERTIME_UNSEEN = "overtime_unseen", ("A limit ran out while a camera of the table was offline: the "
                                          "seat may have acted in time, unseen; no warning unless the "
                                          "referee gives it.")
