"""Deal record files (docs/deal-record.md): one JSON file per match, written
from an event log and read back into one.

Reading checks a file at the edge, once, before anything is stored: its size,
its JSON, the schema (``docs/deal-record.schema.json``), every event as
every source's are checked (:meth:`referee.events.Event.from_dict`), the
events' numbers (1, 2, 3 ... of one table), and that its deals are the deals
its events give (a file whose deals were edited, or whose events were, is
refused, naming the first deal that differs). A refused file raises
:class:`RecordError` with one line saying what and where.

>>> import tempfile, os, json
>>> from referee.table import Table
>>> from referee.deal_record import record_of
>>> t = Table("T01")
>>> _ = t.feed_dict({"t": 0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
>>> path = os.path.join(tempfile.mkdtemp(), "match.json")
>>> write_record(record_of(t), path)
>>> read_record(path).table
'T01'
>>> with open(path, "w") as f:
...     _ = f.write('{"format": "guandan-deal-record", "version": 2}')
>>> read_record(path)
Traceback (most recent call last):
services.deal_files.RecordError: ...: deal record version 2 is not one this reader knows (it reads version 1)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from referee.deal_record import FORMAT, VERSION, record_of
from referee.events import Event, EventError
from referee.settings import Settings, SettingsError
from referee.table import Table
from storage import EventLog
from storage.files import write_whole

__all__ = ["MAX_RECORD_BYTES", "RecordError", "DealRecordFile", "read_record", "parse_record",
           "write_record", "export_record", "import_record", "schema"]

# A day of one table, with a tick a second, is under 20 MB of JSON: far more is not a match
MAX_RECORD_BYTES = 64 * 1024 * 1024
SCHEMA_FILE = Path(__file__).with_name("deal-record.schema.json")


class RecordError(ValueError):
    """A deal record that cannot be read or stored: the message says what and where."""


@dataclass(frozen=True)
class DealRecordFile:
    """A checked deal record: its table, its events (typed, numbered) and the data."""

    table: str
    events: tuple[Event, ...]
    data: dict[str, Any]


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The record's JSON Schema (docs/deal-record.schema.json)."""
    with open(SCHEMA_FILE, encoding="utf-8") as f:
        loaded: dict[str, Any] = json.load(f)
    return loaded


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def read_record(path: str | os.PathLike[str]) -> DealRecordFile:
    """Read and check the deal record file at ``path`` (see the module's doc)."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            raw = f.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"{name}: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"{name}: larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB; "
                          f"not a deal record of one match")
    return parse_record(raw, name)


def parse_record(raw: bytes | str, name: str = "<record>") -> DealRecordFile:
    """Check a deal record given as JSON text (``name`` for the messages)."""
    import jsonschema  # only readers of records need it

    try:
        data = json.loads(raw, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RecordError(f"{name}: not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(f"{name}: not a deal record (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise RecordError(f"{name}: deal record version {str(data.get('version'))[:20]} is not "
                          f"one this reader knows (it reads version {VERSION})")
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise RecordError(f"{name}: not a deal record of version {VERSION}: "
                          f"at {where.lstrip('.') or 'the top'}: {error.message[:200]}")
    table = data["table"]
    events: list[Event] = []
    for i, d in enumerate(data["events"]):
        try:
            e = Event.from_dict(d)
        except EventError as exc:
            raise RecordError(f"{name}: events[{i}]: {exc}") from None
        if e.table != table:
            raise RecordError(f"{name}: events[{i}] is of table {e.table!r}, the record's is {table!r}")
        if e.id != i + 1:
            raise RecordError(f"{name}: events[{i}] is numbered {e.id}, expected {i + 1} "
                              f"(a record holds its table's whole log)")
        events.append(e)
    try:
        settings = Settings.from_dict(data["match"]["settings"])
    except (SettingsError, TypeError) as exc:
        raise RecordError(f"{name}: match.settings: {exc}") from None
    replayed = _replayed(table, events, settings)
    for key in ("deals", "rulings"):
        if replayed[key] != data[key]:
            raise RecordError(f"{name}: {_first_difference(key, data[key], replayed[key])} is not "
                              f"what its events give; the file was changed after it was written")
    return DealRecordFile(table, tuple(events), data)


def _replayed(table: str, events: list[Event], settings: Settings) -> dict[str, Any]:
    t = Table(table, settings)
    t.replay(events)
    # through JSON, as the file holds it (tuples become lists, enums strings)
    out: dict[str, Any] = json.loads(json.dumps(record_of(t), ensure_ascii=False))
    return out


def _first_difference(key: str, given: list[Any], made: list[Any]) -> str:
    for i, (a, b) in enumerate(zip(given, made)):
        if a != b:
            return f"{key}[{i}]" + (f" (deal {b.get('deal')})" if key == "deals" else "")
    return f"{key} (it holds {len(given)}, its events give {len(made)})"


def write_record(record: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``record`` as UTF-8 JSON (whole, then renamed: never half a file)."""
    write_whole(path, json.dumps(record, ensure_ascii=False, indent=1) + "\n")


def export_record(store: EventLog, table: str, settings: Settings | None = None) -> dict[str, Any]:
    """The deal record of ``table``'s log in ``store``, judged as a venue judges it
    (the log's own settings event, else ``settings``)."""
    t = Table(table, settings)
    t.replay(store.stream(table))
    out: dict[str, Any] = json.loads(json.dumps(record_of(t), ensure_ascii=False))
    return out


def import_record(store: EventLog, record: DealRecordFile) -> int:
    """Store a checked record's events in ``store``, which must not hold its table
    yet (every event keeps its number, so a ``ref`` stays right); how many."""
    if store.count(record.table):
        raise RecordError(f"the log already holds events of table {record.table}; import into "
                          f"a new file (numbers and refs must not shift)")
    stored = 0
    for e in record.events:
        if store.append(e) is not None:
            stored += 1
    return stored
