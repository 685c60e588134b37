"""Decisions: what the referee says, one small value per statement.

Shapes follow docs/events.md: ``t`` (event time in seconds), ``table``, ``type``
and, as they apply, ``seat``, ``code``, ``penalty``, ``events`` (ids of the
events it came from) and ``message``; type-specific fields go in ``extra``.

>>> d = Decision(t=7.0, table="T01", type="violation", seat="N", code="out_of_turn_play",
...              penalty="infraction", events=(3,), message="N played before E (越序出牌)")
>>> d.to_dict()["events"], d.to_dict()["penalty"]
([3], 'infraction')
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

DECISION_TYPES = ("violation", "countdown", "turn", "trick_end", "deal_start", "tribute_assigned",
                  "anti_tribute", "deal_end", "penalty", "confirm_request", "device_offline",
                  "device_online", "match_end", "correction", "note")


class Decision(NamedTuple):
    """One statement of the referee (immutable; a tuple for speed: a busy table makes
    one or more per event)."""

    t: float
    table: str
    type: str
    seat: str | None = None
    code: str | None = None
    penalty: str | None = None
    events: tuple[int, ...] = ()
    message: str = ""
    extra: Mapping[str, Any] = MappingProxyType({})
    n: int | None = None   # position in the table's record of decisions, set by the table

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": self.t, "table": self.table, "type": self.type}
        if self.n is not None:
            out["n"] = self.n
        for name in ("seat", "code", "penalty"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out["events"] = list(self.events)
        out.update(self.extra)
        if self.message:
            out["message"] = self.message
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))
