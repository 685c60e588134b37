"""The cameras' reads as the referees judged them, per table and for the
whole venue (``GET /cameras``, ``GET /cameras.json``; logged-in users): a
table whose camera is read wrong far more often than its confidence
promised shows here while the event runs, not only after it
(:mod:`services.camera_checks`, ``guandan-ref camera-check``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, jsonify, render_template

from services.camera_checks import camera_reads, check_report, counts_in
from web_dashboard.auth import login_required
from web_dashboard.views import live

bp = Blueprint("camera_checks", __name__)


def init_app(app: Flask) -> None:
    """Add the camera checks page."""
    app.register_blueprint(bp)


def camera_state() -> dict[str, Any]:
    """``{"tables": {table: report}, "all": report}``, each a
    :func:`services.camera_checks.check_report` of the table's log as it
    stands (the referees' corrections included)."""
    lv = live()
    every, counted = [], []
    tables = {}
    for t in lv.tables:
        reads = camera_reads(lv.log(t))
        counts = counts_in(lv.decisions(t))      # the hands its referee counted
        tables[t] = check_report(reads, counts=counts)
        every += reads
        counted += counts
    return {"tables": tables, "all": check_report(every, counts=counted)}


@bp.route("/cameras")
@login_required
def cameras_page() -> str:
    return render_template("cameras.html", state=camera_state())


@bp.route("/cameras.json")
@login_required
def cameras_json() -> Any:
    return jsonify(camera_state())
