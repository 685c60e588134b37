"""What each page shows, built from a table's snapshot, decisions and events.

Pure functions over plain data, so pages, the live stream and the tests
agree on one shape.
"""

from __future__ import annotations

from typing import Any

from referee.codes import Confirm
from web_dashboard.messages import clause, message

SEATS = ("S", "E", "N", "W")
ACTIONABLE = ("violation", "confirm_request")


def _phase(snapshot: dict) -> str:
    sheet = snapshot.get("score_sheet") or {}
    if sheet.get("result"):
        return "match_over"
    deal = snapshot.get("deal")
    return deal["phase"] if deal else "idle"


def clock(decisions: list[dict], snapshot: dict, countdown: float) -> dict | None:
    """The running limit: from the last ``turn`` decision, while a clock runs."""
    if not snapshot.get("clocks"):
        return None
    for d in reversed(decisions):
        if d["type"] == "turn" and "limit" in d:
            deadline = d["t"] + d["limit"]
            return {"seat": d.get("seat"), "purpose": d.get("purpose"), "started": d["t"],
                    "limit": d["limit"], "deadline": deadline,
                    "countdown_end": deadline + countdown}
        if d["type"] in ("deal_end", "match_end"):
            return None
    return None


def violation_status(decisions: list[dict], events: list[dict]) -> dict[int, str]:
    """For each violation or confirm request (by ``n``): 'open', 'confirmed' or 'voided',
    from the referee events that name its evidence."""
    acted: dict[int, str] = {}
    choices: dict[str, list[int]] = {}    # offender -> ids of the choice events recorded
    for e in events:
        if e.get("type") != "referee":
            continue
        # (a count of a hand answers nothing by itself: what it settled is judged again, a
        # violation then open like any, or the request still held where it settled nothing)
        if e.get("action") in ("confirm", "void") and "ref" in e:
            acted[e["ref"]] = "confirmed" if e["action"] == "confirm" else "voided"
        elif e.get("action") == "choice" and e.get("seat"):
            choices.setdefault(e["seat"], []).append(e.get("id", 0))
    status = {}
    for d in decisions:
        if d["type"] in ACTIONABLE:
            refs = d.get("events") or []
            if d.get("changes") is not None:
                # a changed penalty is the referee's own ruling on the original
                # evidence (voided as the change was made): only its own event counts
                state = acted.get(refs[-1], "confirmed") if refs else "confirmed"
            else:
                state = next((acted[r] for r in reversed(refs) if r in acted), "open")
            if d.get("code") == Confirm.STOP_CHOICE and state != "voided":
                # confirming the violation does not make the non-offending side's choice
                after = max(refs, default=0)
                chosen = any(i > after for i in choices.get(d.get("offender"), []))
                state = "chosen" if chosen else "open"
            status[d["n"]] = state
    return status


def signers(snapshot: dict) -> dict[str, list[str]]:
    """Who may sign the score sheet for each side: its registered players and
    captain (the log's ``settings`` event); an empty list: none registered."""
    players, captains = snapshot.get("players") or {}, snapshot.get("captains") or {}
    out: dict[str, list[str]] = {}
    for side in ("NS", "EW"):
        names = [players[s] for s in side if players.get(s)]
        if captains.get(side):
            names.append(captains[side])
        out[side] = list(dict.fromkeys(names))
    return out


def live_turn(snapshot: dict) -> str | None:
    """Whose turn it is while a deal is played; nobody's once it or the match ended."""
    deal = snapshot.get("deal") or {}
    if _phase(snapshot) in ("finished", "match_over"):
        return None
    return deal.get("turn")


def table_view(name: str, snapshot: dict, decisions: list[dict], events: list[dict],
               countdown: float, public: bool = False) -> dict[str, Any]:
    """The table view (``public``: the overlay's subset, no evidence or actions)."""
    deal = snapshot.get("deal") or {}
    sheet = snapshot.get("score_sheet") or {}
    view: dict[str, Any] = {
        "table": name,
        "t": snapshot.get("t", 0.0),
        "phase": _phase(snapshot),
        "deal": deal.get("deal"),
        "level": deal.get("level"),
        "levels": snapshot.get("levels", {}),
        "turn": live_turn(snapshot),
        "clock": clock(decisions, snapshot, countdown),
        "teams": snapshot.get("teams") or {},
        "players": snapshot.get("players") or {},
        "trick": deal.get("trick", []),
        "counts": deal.get("counts", {}),
        "order": deal.get("order", []),
        "reports_due": deal.get("reports_due", {}),
        "result": sheet.get("result"),
        "version": None,
    }
    if public:
        return view
    status = violation_status(decisions, events)
    by_id = {e.get("id"): e for e in events}
    feed = []
    for d in decisions:
        if d["type"] in ACTIONABLE or d["type"] in ("penalty", "device_offline", "correction"):
            item = dict(d)
            item["status"] = status.get(d["n"], "")
            item["evidence"] = [dict(by_id[i]) for i in d.get("events", []) if i in by_id]
            # the page says it in the viewer's language (the record's message is English)
            item["msg"] = message(d, by_id)
            item["clause"] = clause(d.get("code")) if d["type"] == "violation" else ""
            feed.append(item)
    view.update({
        "ladder": snapshot.get("ladder", {}),
        "offline": snapshot.get("offline", []),
        "feed": feed,
        "open": sum(1 for v in status.values() if v == "open"),
        "stopped": deal.get("stopped", []),
        "report_faults": deal.get("report_faults", []),
        "events": len(events),
        "signers": signers(snapshot),
    })
    return view


def overview_row(name: str, snapshot: dict, decisions: list[dict], events: list[dict]) -> dict:
    status = violation_status(decisions, events)
    deal = snapshot.get("deal") or {}
    first_t = events[0]["t"] if events else 0.0
    return {
        "table": name, "phase": _phase(snapshot), "deal": deal.get("deal"),
        "levels": snapshot.get("levels", {}), "turn": live_turn(snapshot),
        "teams": snapshot.get("teams") or {},
        "open": sum(1 for v in status.values() if v == "open"),
        "offline": snapshot.get("offline", []),
        "match_clock": max(0.0, snapshot.get("t", 0.0) - first_t),
    }
