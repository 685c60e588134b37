"""Referee settings: time limits, the countdown, match format, rule variants.

Defaults follow 《江苏省掼蛋竞赛规则（2023）》 (五(四)4 and 五(五)4: tribute
within 20 s after the draw, return within 40 s after the tribute, the first
lead within 40 s after the return, every later play or pass within 20 s).
Where the 2022 national text and an open event's regulations differ from the
2023 text, the 2023 text is the default and the difference is a setting.

>>> s = Settings()
>>> s.play_limit, s.first_lead_limit, s.match_format
(20.0, 40.0, 'game')
>>> Settings(match_format="time_deals", minutes=40, deals=9).describe_format()
'40 minutes or 9 deals'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

MATCH_FORMATS = ("game", "deals", "time", "time_deals")
TIE_RULES = ("draw", "extra_deal")
OUT_OF_TURN_PASS_RULES = ("warning", "sit_out_trick")
CAMERA_PENALTY_RULES = ("confirm", "direct")


class SettingsError(ValueError):
    """A bad setting; the message names it."""


@dataclass(frozen=True)
class Settings:
    # Clocks (seconds). Limits are inclusive: acting at exactly the limit is in time.
    tribute_limit: float = 20.0      # 贡牌: after the deal starts (the draw ends)
    return_limit: float = 40.0       # 还牌: after the tribute
    first_lead_limit: float = 40.0   # 首圈领出: after the return (or the start)
    play_limit: float = 20.0         # every later play or pass
    countdown: float = 10.0          # 读秒 after a limit runs out, then the overtime warning
    # Vision observations below this confidence are asked about, never counted silently.
    min_confidence: float = 0.8
    # Match format: "game" (first past A), "deals" (N deals), "time" (M minutes),
    # "time_deals" (M minutes or N deals, whichever comes first).
    match_format: str = "game"
    deals: int | None = None
    minutes: float | None = None
    # Equal levels at the end: "draw" (1 point each, 2023 五(九)) or "extra_deal"
    # (one more deal from the first-deal procedure, 上游's side wins; the 2022 open
    # event regulations' rule).
    tie: str = "draw"
    # Passing out of turn (越序表态): a warning (2023 七(一)6), or the 2022 text's
    # 第八条 判罚1 "违规者本圈不得跟牌" (the offender may not follow for the rest of the trick).
    out_of_turn_pass: str = "warning"
    # A penalty the referee's engine finds in the cards a camera read (an illegal play, a play's
    # arrangement, a heart level card given as tribute, a tribute a later play proves wrong):
    # "confirm" holds it as a request to confirm that read, whatever its confidence (on real cards
    # a missed card leaves the others sure: models/MODEL_CARD.md, "Laid as players lay them"),
    # and holds a count report fault while the seat's count rests on such reads, until the
    # referee counts its cards; "direct" gives both at once, as before 2026-12-06.
    camera_penalties: str = "confirm"

    def __post_init__(self) -> None:
        for name in ("tribute_limit", "return_limit", "first_lead_limit", "play_limit", "countdown"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 3600:
                raise SettingsError(f"{name} must be a number of seconds 0-3600, got {value!r}")
        if isinstance(self.min_confidence, bool) or not isinstance(self.min_confidence, (int, float)) \
                or not 0.0 <= self.min_confidence <= 1.0:
            raise SettingsError(f"min_confidence must lie in 0..1, got {self.min_confidence!r}")
        if self.match_format not in MATCH_FORMATS:
            raise SettingsError(f"match_format must be one of {', '.join(MATCH_FORMATS)}, "
                                f"got {self.match_format!r}")
        if self.tie not in TIE_RULES:
            raise SettingsError(f"tie must be one of {', '.join(TIE_RULES)}, got {self.tie!r}")
        if self.out_of_turn_pass not in OUT_OF_TURN_PASS_RULES:
            raise SettingsError(f"out_of_turn_pass must be one of {', '.join(OUT_OF_TURN_PASS_RULES)}, "
                                f"got {self.out_of_turn_pass!r}")
        if self.camera_penalties not in CAMERA_PENALTY_RULES:
            raise SettingsError(f"camera_penalties must be one of {', '.join(CAMERA_PENALTY_RULES)}, "
                                f"got {self.camera_penalties!r}")
        needs_deals = self.match_format in ("deals", "time_deals")
        needs_minutes = self.match_format in ("time", "time_deals")
        if needs_deals and (isinstance(self.deals, bool) or not isinstance(self.deals, int)
                            or not 1 <= self.deals <= 1000):
            raise SettingsError(f"match_format {self.match_format!r} needs deals 1-1000, got {self.deals!r}")
        if needs_minutes and (not isinstance(self.minutes, (int, float)) or not 0 < self.minutes <= 24 * 60):
            raise SettingsError(f"match_format {self.match_format!r} needs minutes > 0 "
                                f"(at most a day), got {self.minutes!r}")

    def describe_format(self) -> str:
        """The match format in words."""
        if self.match_format == "game":
            return "first past A"
        deals = f"{self.deals} deal{'s' if self.deals != 1 else ''}"
        minutes = f"{self.minutes:g} minute{'s' if self.minutes != 1 else ''}" if self.minutes else ""
        if self.match_format == "deals":
            return deals
        if self.match_format == "time":
            return minutes
        return f"{minutes} or {deals}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def differences(self, other: "Settings") -> list[str]:
        """The settings that differ, as ``name: mine != other's``.

        >>> Settings(countdown=10).differences(Settings(countdown=5))
        ['countdown: 10 != 5']
        """
        a, b = self.to_dict(), other.to_dict()
        return [f"{k}: {a[k]!r} != {b[k]!r}" for k in a if a[k] != b[k]]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Settings":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise SettingsError(f"unknown setting(s): {', '.join(unknown)}")
        return cls(**dict(d))

    @classmethod
    def parse_format(cls, text: str, **others: Any) -> "Settings":
        """Settings from a format word: ``game``, ``deals:9``, ``time:40``, ``time_deals:40,9``.

        >>> Settings.parse_format("deals:9").deals
        9
        """
        kind, _, arg = text.partition(":")
        try:
            if kind == "game" and not arg:
                return cls(match_format="game", **others)
            if kind == "deals":
                return cls(match_format="deals", deals=int(arg), **others)
            if kind == "time":
                return cls(match_format="time", minutes=float(arg), **others)
            if kind == "time_deals":
                minutes, _, deals = arg.partition(",")
                return cls(match_format="time_deals", minutes=float(minutes), deals=int(deals), **others)
        except ValueError:
            pass
        raise SettingsError(f"bad match format {text!r}: expected game, deals:N, time:MINUTES "
                            f"or time_deals:MINUTES,N")
