"""Where a ruling's evidence files are: the zone pictures its events name and
its video clips, in the table's evidence folder (``<evidence_dir>/<table>/``).

A clip is named after its ruling by what does not change when the log is
refolded (a decision's number ``n`` can): the kind of ruling, the number of
its last evidence event and its code.

>>> clip_stem({"type": "violation", "n": 18, "code": "illegal_play", "events": [16]})
'violation-16-illegal_play'
>>> clip_stem({"type": "confirm_request", "n": 19, "code": "stop_choice", "events": [16]})
'confirm-16-stop_choice'
>>> clip_stem({"type": "turn", "n": 1, "events": [1]}) is None
True
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

CLIP_SUFFIX = ".webm"           # VP8 in WebM: what OpenCV's FFmpeg writes and every browser plays
CLIPPED = {"violation": "violation", "confirm_request": "confirm"}
_STEM = re.compile(r"^(violation|confirm)-\d+-[a-z_]+$")


def clip_stem(decision: dict[str, Any]) -> str | None:
    """The file name (without camera suffix and extension) of a ruling's clip,
    or None for a decision that gets none."""
    kind = CLIPPED.get(str(decision.get("type")))
    events = decision.get("events") or []
    if kind is None or not events:
        return None
    return f"{kind}-{int(events[-1])}-{decision.get('code') or 'none'}"


def is_clip_stem(stem: str) -> bool:
    """Whether ``stem`` has the shape :func:`clip_stem` gives."""
    return bool(_STEM.match(stem))


def clip_paths(folder: Path, decision: dict[str, Any]) -> list[Path]:
    """The clips of ``decision`` in ``folder`` (one a camera: ``STEM.webm``,
    ``STEM-2.webm`` ...), in camera order; none if it has none yet."""
    stem = clip_stem(decision)
    if stem is None or not folder.is_dir():
        return []
    found = [p for p in folder.glob(f"{stem}*{CLIP_SUFFIX}")
             if p.stem == stem or re.fullmatch(re.escape(stem) + r"-\d+", p.stem)]
    return sorted(found, key=lambda p: (len(p.stem), p.stem))


def clip_index(folder: Path) -> dict[str, list[str]]:
    """Every complete clip in ``folder`` by its ruling's stem (one listing of the
    folder, for pages that show many rulings), in camera order."""
    try:
        names = [n for n in sorted(p.name for p in folder.iterdir())
                 if n.endswith(CLIP_SUFFIX) and not n.startswith(".")]
    except OSError:
        return {}
    out: dict[str, list[str]] = {}
    for name in sorted(names, key=len):
        stem = name[:-len(CLIP_SUFFIX)]
        head, _, tail = stem.rpartition("-")
        out.setdefault(head if tail.isdigit() and head else stem, []).append(name)
    return out
