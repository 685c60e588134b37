"""The event format's reference (docs/events.md) and its JSON Schema
(docs/events.schema.json) against the code: the documented examples are
valid, what the code makes is valid, and what the code refuses the schema
refuses too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from referee.events import Event, EventError
from referee.settings import Settings
from referee.simulation import FAULTS, simulate_match
from referee.table import Table

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCHEMA = json.loads((DOCS / "events.schema.json").read_text(encoding="utf-8"))
Draft202012Validator.check_schema(SCHEMA)


def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": SCHEMA["$defs"]})


EVENT = _validator("event")
DECISION = _validator("decision")


def _errors(validator: Draft202012Validator, obj: object) -> list[str]:
    return [e.message for e in validator.iter_errors(obj)]


def _doc_examples() -> list[dict]:
    """Every JSON object on a line of its own in the page's ```json blocks."""
    text = (DOCS / "events.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    return [json.loads(line) for block in blocks for line in block.splitlines() if line.strip()]


def test_every_documented_example_is_valid_and_accepted():
    examples = _doc_examples()
    assert len(examples) >= 12
    for obj in examples:
        if "events" in obj:              # a decision: it lists the events it came from
            assert _errors(DECISION, obj) == [], obj
        else:
            assert _errors(EVENT, obj) == [], obj
            assert Event.from_dict(obj).to_dict()["type"] == obj["type"]


def test_every_documented_type_is_in_the_schema_and_the_code():
    from referee.decisions import DECISION_TYPES
    from referee.events import EVENT_FIELDS
    assert set(SCHEMA["$defs"]["event"]["properties"]["type"]["enum"]) == set(EVENT_FIELDS)
    assert set(SCHEMA["$defs"]["decision"]["properties"]["type"]["enum"]) == set(DECISION_TYPES)
    text = (DOCS / "events.md").read_text(encoding="utf-8")
    for name in [*EVENT_FIELDS, *DECISION_TYPES]:
        assert f"`{name}`" in text, f"{name} is not documented in docs/events.md"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_what_the_code_makes_is_valid(seed):
    events = simulate_match(seed=seed, faults=FAULTS, settings=Settings.parse_format("deals:2"))
    events += [
        {"t": 9000.0, "type": "referee", "action": "late", "side": "EW", "minutes": 3},
        {"t": 9001.0, "type": "referee", "action": "penalty", "side": "NS", "penalty": "warning",
         "code": "signalling"},
        {"t": 9002.0, "type": "referee", "action": "void", "ref": 5},
        {"t": 9003.0, "type": "referee", "action": "sign", "side": "NS", "name": "Li"},
        {"t": 9004.0, "type": "device_status", "device": "P01", "online": False},
        {"t": 9005.0, "type": "device_status", "device": "P01", "online": True},
    ]
    table = Table("T01")
    kinds = set()
    for i, d in enumerate(events, start=1):
        event = Event.from_dict(d).with_id(i)
        assert _errors(EVENT, event.to_dict()) == [], event
        for decision in table.feed(event):
            out = decision.to_dict()
            assert _errors(DECISION, out) == [], out
            kinds.add(out["type"])
    # the run must have made the kinds that carry the most fields
    assert {"violation", "penalty", "deal_end", "turn", "correction", "device_offline"} <= kinds


BAD_EVENTS = [
    {"t": 1, "type": "shuffle"},                                   # unknown type
    {"t": "soon", "type": "tick"},                                 # t not a number
    {"type": "tick"},                                              # no t
    {"t": 1, "type": "play", "seat": "S"},                         # no cards
    {"t": 1, "type": "play", "seat": "X", "cards": ["S3"]},        # bad seat
    {"t": 1, "type": "pass", "seat": "S", "source": "telepathy"},  # bad source
    {"t": 1, "type": "report", "seat": "S", "count": "nine"},      # count not an integer
    {"t": 1, "type": "play", "seat": "S", "cards": [3]},           # a card that is not a code
    {"t": 1, "type": "play", "seat": "S", "cards": ["S3"], "confidence": "high"},
    {"t": 1, "type": "deal_start", "level": "2"},                  # no deal number
    {"t": 1, "type": "device_status", "device": "P01"},            # online missing
    {"t": 1, "type": "referee"},                                   # no action
]


@pytest.mark.parametrize("bad", BAD_EVENTS, ids=lambda d: json.dumps(d))
def test_what_the_code_refuses_the_schema_refuses(bad):
    with pytest.raises(EventError):
        Event.from_dict(bad)
    assert _errors(EVENT, bad) != []


# Refused at the edge although JSON Schema cannot say it (JSON has no NaN) or
# the schema leaves the field open: every one must be an EventError naming the field.
EDGE_BAD = [
    ({"t": float("nan"), "type": "tick"}, "'t'"),
    ({"t": float("inf"), "type": "tick"}, "'t'"),
    ({"t": -1, "type": "tick"}, "'t'"),
    ({"t": 1, "type": "referee", "action": "late", "side": "EW", "minutes": float("nan")}, "'minutes'"),
    ({"t": 1, "type": "referee", "action": "sign", "side": "NS", "name": "x" * 5000}, "'name'"),
    ({"t": 1, "type": "referee", "action": "sign", "side": "NS", "name": "Li\x00"}, "'name'"),
    ({"t": 1, "type": "referee", "action": "sign", "side": "NS", "name": {"a": {"b": {"c": {"d": {}}}}}},
     "'name"),
    ({"t": 1, "type": "report", "seat": "S", "count": 999}, "'count'"),
    ({"t": 1, "type": "play", "seat": "S", "cards": ["S3"] * 29}, "'cards'"),
    ({"t": 1, "type": "play", "seat": "S", "cards": ["S3"], "confidence": 1.5}, "'confidence'"),
    ({"t": 1, "type": "tribute", "seat": "S", "card": 0}, "'card'"),
    ({"t": 1, "type": "tick", "table": ""}, "'table'"),
    ({"t": 1, "type": "tick", "uid": "u" * 300}, "'uid'"),
    ({"t": 1, "type": "tick", "id": 0}, "'id'"),
]


@pytest.mark.parametrize("bad,field", EDGE_BAD, ids=[str(i) for i in range(len(EDGE_BAD))])
def test_edge_refuses_non_finite_oversized_and_out_of_range_values(bad, field):
    with pytest.raises(EventError, match=field):
        Event.from_dict(bad)


@pytest.mark.parametrize("line", ['{"t": NaN, "type": "tick"}', '{"t": Infinity, "type": "tick"}',
                                  '{"t": 1, "type": "referee", "action": "late", "side": "EW", '
                                  '"minutes": -Infinity}'])
def test_json_lines_with_nan_or_infinity_are_refused(line):
    with pytest.raises(EventError, match="not a number"):
        Event.from_json(line)


def test_a_good_event_with_every_bounded_field_at_its_limit_is_accepted():
    e = Event.from_dict({"t": 0, "type": "play", "seat": "S", "cards": ["S3"] * 28, "confidence": 1,
                         "uid": "u" * 200, "table": "T" * 200, "zone": "S-play"})
    assert len(e.cards) == 28 and e.confidence == 1.0


def test_every_code_of_the_engine_is_documented():
    from referee.codes import Confirm, Note, Violation
    text = (DOCS / "events.md").read_text(encoding="utf-8")
    missing = [c.value for enum in (Violation, Note, Confirm) for c in enum if f"`{c.value}`" not in text]
    assert missing == []


SETTINGS_NAMES_BAD = [
    {"players": {"X": "Li"}},                  # not a seat
    {"players": {"N": ""}},                    # empty name
    {"players": ["Li", "Wang"]},               # not by seat
    {"captains": {"N": "Li"}},                 # a seat where a side is wanted
    {"captains": {"NS": "x" * 201}},           # too long
]


@pytest.mark.parametrize("names", SETTINGS_NAMES_BAD, ids=lambda d: json.dumps(d)[:40])
def test_settings_players_and_captains_are_named_per_seat_and_side(names):
    bad = {"t": 0, "type": "settings", "settings": {}, **names}
    field = next(iter(names))
    with pytest.raises(EventError, match=field[:-1]):
        Event.from_dict(bad)
    assert _errors(EVENT, bad) != []


def test_settings_players_and_captains_reach_the_table_snapshot():
    good = {"t": 0, "type": "settings", "settings": {}, "teams": {"NS": "Red", "EW": "Blue"},
            "players": {"N": "Zhang", "S": "Li", "E": "Wang", "W": "Liu"},
            "captains": {"NS": "Li", "EW": "Wang"}}
    assert _errors(EVENT, good) == []
    table = Table("T01")
    (note,) = table.feed(Event.from_dict(good).with_id(1))
    assert _errors(DECISION, note.to_dict()) == []
    snap = table.snapshot()
    assert snap["players"]["S"] == "Li" and snap["captains"] == {"NS": "Li", "EW": "Wang"}
    assert note.extra["players"] == good["players"]


def test_every_doubt_the_camera_gives_is_in_the_schema_and_an_unread_play_is_valid():
    from vision.reading import tracker
    from vision.reading.detector import ZoneRead
    codes = {tracker.THIRD_COPY, tracker.JOKER_NO_COMBINATION, tracker.NO_COMBINATION, tracker.LEFT_OUT,
             tracker.UNREAD}
    assert set(SCHEMA["$defs"]["event"]["properties"]["doubt"]["enum"]) == codes
    tr = tracker.ZoneTracker("S")
    (play,) = [e for k in range(20) for e in tr.update(0.1 * k, ZoneRead(unread=True))]
    out = Event.from_dict(play.to_dict()).with_id(1).to_dict()
    assert out["cards"] == [] and out["doubt"] == "unread" and _errors(EVENT, out) == []
