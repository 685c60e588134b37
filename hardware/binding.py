"""Which device serves which table and seats: the binding file (TOML).

A device is named by the id it sends in every frame. The binding never
guesses: a device missing from the file, or a seat two devices claim for
the same job, is an error that names them.

Example file::

    ports = ["/dev/serial/by-id/usb-GD_pass_box-if00"]   # optional

    [devices.P01]
    table = "T01"
    seats = "E"                 # or ["E"]; a table box: "ESWN"
    serves = ["pass", "count"]  # optional; default both

>>> b = parse_binding({"devices": {"P01": {"table": "T01", "seats": "E"},
...                                "BOX2": {"table": "T02", "seats": "ESWN",
...                                         "serves": ["count"]}}})
>>> b.device("P01").table, b.device("BOX2").seats
('T01', ('E', 'S', 'W', 'N'))
>>> b.device("P99") is None
True
>>> parse_binding({"devices": {"A": {"table": "T01", "seats": "E"},
...                            "B": {"table": "T01", "seats": "EN"}}})
Traceback (most recent call last):
...
hardware.binding.BindingError: seat E at table T01 (pass) is claimed by both A and B; seat E at table T01 (count) is claimed by both A and B
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .protocol import DEVICE_ID, SEATS

JOBS = ("pass", "count")              # count covers COUNT and CLEAR
KIND_JOB = {"PASS": "pass", "COUNT": "count", "CLEAR": "count"}


class BindingError(ValueError):
    """A bad binding file; the message lists every problem found."""


@dataclass(frozen=True)
class DeviceBinding:
    device: str
    table: str
    seats: tuple[str, ...]
    serves: tuple[str, ...] = JOBS

    def accepts(self, kind: str, seat: str) -> bool:
        """Whether an event of ``kind`` for ``seat`` is this device's to send."""
        return seat in self.seats and KIND_JOB.get(kind) in self.serves


@dataclass(frozen=True)
class Binding:
    devices: Mapping[str, DeviceBinding] = field(default_factory=dict)
    ports: tuple[str, ...] = ()

    def device(self, device_id: str) -> DeviceBinding | None:
        return self.devices.get(device_id)


def _seats(value: Any, where: str, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        value = list(value)
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        problems.append(f"{where}: 'seats' must be a string like \"ES\" or a list of seats")
        return ()
    bad = [s for s in value if s not in SEATS]
    if bad:
        problems.append(f"{where}: bad seat(s) {', '.join(map(repr, bad))} (expected E S W N)")
    if len(set(value)) != len(value):
        problems.append(f"{where}: a seat is listed twice in {value!r}")
    return tuple(s for s in value if s in SEATS)


def parse_binding(data: Mapping[str, Any]) -> Binding:
    """Check a decoded TOML document; raise :class:`BindingError`."""
    problems: list[str] = []
    unknown = sorted(set(data) - {"devices", "ports"})
    if unknown:
        problems.append(f"unknown top-level key(s): {', '.join(unknown)} (expected devices, ports)")
    ports = data.get("ports", [])
    if not isinstance(ports, list) or not all(isinstance(p, str) and p for p in ports):
        problems.append("'ports' must be a list of port paths")
        ports = []
    devices_in = data.get("devices", {})
    if not isinstance(devices_in, Mapping):
        raise BindingError("'devices' must be a table of [devices.<id>] sections")
    devices: dict[str, DeviceBinding] = {}
    claims: dict[tuple[str, str, str], str] = {}
    for dev_id, spec in devices_in.items():
        where = f"device {dev_id}"
        if not DEVICE_ID.match(dev_id):
            problems.append(f"{where}: bad device id (1-16 of A-Z a-z 0-9 _ -)")
            continue
        if not isinstance(spec, Mapping):
            problems.append(f"{where}: expected a [devices.{dev_id}] section")
            continue
        extra = sorted(set(spec) - {"table", "seats", "serves"})
        if extra:
            problems.append(f"{where}: unknown key(s) {', '.join(extra)} (expected table, seats, serves)")
        table = spec.get("table")
        if not isinstance(table, str) or not table:
            problems.append(f"{where}: missing 'table' (a table name such as \"T01\")")
            continue
        if "seats" not in spec:
            problems.append(f"{where}: missing 'seats'")
            continue
        seats = _seats(spec["seats"], where, problems)
        serves = spec.get("serves", list(JOBS))
        if (not isinstance(serves, list) or not serves
                or not all(isinstance(j, str) and j in JOBS for j in serves)):
            problems.append(f"{where}: 'serves' must be a list from {list(JOBS)}, got {serves!r}")
            continue
        for seat in seats:
            for job in serves:
                key = (table, seat, job)
                if key in claims:
                    problems.append(f"seat {seat} at table {table} ({job}) is claimed by both "
                                    f"{claims[key]} and {dev_id}")
                else:
                    claims[key] = dev_id
        devices[dev_id] = DeviceBinding(dev_id, table, seats, tuple(j for j in JOBS if j in serves))
    if problems:
        raise BindingError("; ".join(problems))
    return Binding(devices, tuple(ports))


def load_binding(path: str | Path) -> Binding:
    """Read and check a binding file; errors name the file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BindingError(f"{path}: cannot read ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BindingError(f"{path}: not valid TOML ({exc})") from None
    try:
        return parse_binding(data)
    except BindingError as exc:
        raise BindingError(f"{path}: {exc}") from None


def binding_toml(devices: list[DeviceBinding]) -> str:
    """Write a binding file for ``devices`` (the simulator offers one).

    >>> print(binding_toml([DeviceBinding("P01", "T01", ("E",))]), end="")
    [devices.P01]
    table = "T01"
    seats = "E"
    serves = ["pass", "count"]
    """
    out = []
    for d in devices:
        serves = ", ".join(f'"{j}"' for j in d.serves)
        out.append(f'[devices.{d.device}]\ntable = {json.dumps(d.table)}\n'
                   f'seats = "{"".join(d.seats)}"\nserves = [{serves}]\n')
    return "\n".join(out)
