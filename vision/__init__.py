"""Overhead cameras to observed plays (see vision/README.md).

``vision.reading`` is what runs at a table; ``vision.training`` makes the
models.  The run-time API is re-exported here, imported on first use so
that ``import vision`` stays cheap (and never imports training)::

    from vision import CardDetector, TableGeometry, TableWatcher
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "CardDetector": "vision.reading.detector",
    "DetectorError": "vision.reading.detector",
    "ZoneRead": "vision.reading.detector",
    "CardRead": "vision.reading.pairing",
    "IndexClassifier": "vision.reading.index_classifier",
    "TableGeometry": "vision.reading.table",
    "GeometryError": "vision.reading.table",
    "Zone": "vision.reading.table",
    "calibrate": "vision.reading.table",
    "ZoneTracker": "vision.reading.tracker",
    "TableWatcher": "vision.reading.watch",
    "FrameError": "vision.reading.watch",
    "SourceError": "vision.reading.watch",
    "open_source": "vision.reading.watch",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
