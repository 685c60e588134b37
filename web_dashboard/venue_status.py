"""The venue central's own state on the overview: the dead letters (messages
that could not be recorded, with why) and each table's lag, when the
dashboard runs inside ``guandan-ref central`` (docs/architecture.md, 'The
venue'). A dashboard without a central shows neither.

Also ``GET /venue/health`` and ``GET /venue/dead-letters`` (JSON, logged-in
users; the unauthenticated probe is the central's ``--health-port``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import psycopg
from flask import Blueprint, Flask, current_app, jsonify

from web_dashboard.auth import login_required

if TYPE_CHECKING:
    from venue.central import CentralService

bp = Blueprint("venue_status", __name__)
log = logging.getLogger(__name__)
RECENT = 20       # dead letters listed on the overview (the count says how many in all)


def init_app(app: Flask, central: CentralService) -> None:
    """Show ``central``'s dead letters and lag on the overview."""
    app.extensions["guandan_central"] = central
    app.register_blueprint(bp)


def _central() -> CentralService | None:
    return current_app.extensions.get("guandan_central")


def overview_data(limit: int = RECENT) -> dict[str, Any] | None:
    """What the overview shows of the central, or None without one: the dead
    letters' count and latest ``limit`` (``None`` when PostgreSQL cannot be
    read just now: the page still shows the tables), health and lag per table."""
    central = _central()
    if central is None:
        return None
    out: dict[str, Any] = {"count": None, "recent": []}
    try:
        out["count"], recent = central.dead_letter_summary(limit)
        out["recent"] = [dict(d, at=str(d["at"])[:19].replace("T", " ")) for d in recent]
    except psycopg.Error as exc:     # an outage: the worker rides it out; the page says so
        log.warning("overview: dead letters unreadable (%s)", type(exc).__name__)
    health = central.health()
    out["healthy"] = health["healthy"]
    out["last_error"] = health["last_error"]
    out["lag"] = sorted(health["lag"].items())
    return out


@bp.route("/venue/health")
@login_required
def health() -> Any:
    central = _central()
    assert central is not None       # registered with one
    return jsonify(central.health())


@bp.route("/venue/dead-letters")
@login_required
def dead_letters() -> Any:
    central = _central()
    assert central is not None
    return jsonify({"dead_letters": central.recent_dead_letters()})
