"""The binding file: device id -> table and seats; problems are named, never guessed."""

import pytest

from hardware.binding import BindingError, DeviceBinding, binding_toml, load_binding, parse_binding


def test_load_a_binding_file(tmp_path):
    path = tmp_path / "devices.toml"
    path.write_text('ports = ["/dev/ttyUSB0"]\n\n'
                    '[devices.P01]\ntable = "T01"\nseats = "E"\n\n'
                    '[devices.BOX2]\ntable = "T02"\nseats = ["S", "N"]\nserves = ["count"]\n')
    b = load_binding(path)
    assert b.ports == ("/dev/ttyUSB0",)
    assert b.device("P01") == DeviceBinding("P01", "T01", ("E",), ("pass", "count"))
    assert b.device("BOX2").serves == ("count",)
    assert b.device("BOX2").accepts("COUNT", "N") and b.device("BOX2").accepts("CLEAR", "S")
    assert not b.device("BOX2").accepts("PASS", "N")
    assert not b.device("P01").accepts("PASS", "S")
    assert b.device("P99") is None


def test_written_binding_reads_back(tmp_path):
    devices = [DeviceBinding("P01", "T01", ("E",)), DeviceBinding("BOX", 'T "2"', ("S", "N"), ("count",))]
    path = tmp_path / "b.toml"
    path.write_text(binding_toml(devices))
    assert list(load_binding(path).devices.values()) == devices


def test_a_seat_claimed_twice_for_the_same_job_names_both_devices():
    with pytest.raises(BindingError, match=r"seat E at table T01 \(pass\) is claimed by both A and B"):
        parse_binding({"devices": {"A": {"table": "T01", "seats": "E"},
                                   "B": {"table": "T01", "seats": "E", "serves": ["pass"]}}})


def test_one_seat_may_have_a_pass_device_and_a_count_device_and_tables_are_separate():
    b = parse_binding({"devices": {"A": {"table": "T01", "seats": "E", "serves": ["pass"]},
                                   "B": {"table": "T01", "seats": "E", "serves": ["count"]},
                                   "C": {"table": "T02", "seats": "E"}}})
    assert len(b.devices) == 3


@pytest.mark.parametrize("doc, message", [
    ({"devices": {"P01": {"seats": "E"}}}, "device P01: missing 'table'"),
    ({"devices": {"P01": {"table": "T01"}}}, "device P01: missing 'seats'"),
    ({"devices": {"P01": {"table": "T01", "seats": "EX"}}}, "device P01: bad seat(s) 'X'"),
    ({"devices": {"P01": {"table": "T01", "seats": "EE"}}}, "a seat is listed twice"),
    ({"devices": {"P01": {"table": "T01", "seats": 3}}}, "'seats' must be"),
    ({"devices": {"P01": {"table": "T01", "seats": "E", "serves": ["beep"]}}}, "'serves' must be"),
    ({"devices": {"P01": {"table": "T01", "seats": "E", "seat": "S"}}}, "unknown key(s) seat"),
    ({"devices": {"bad id!": {"table": "T01", "seats": "E"}}}, "device bad id!: bad device id"),
    ({"device": {}}, "unknown top-level key(s): device"),
    ({"ports": "/dev/ttyUSB0"}, "'ports' must be a list"),
])
def test_bad_bindings_are_named(doc, message):
    with pytest.raises(BindingError) as info:
        parse_binding(doc)
    assert message in str(info.value)


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[devices.P01\n")
    with pytest.raises(BindingError, match=r"bad\.toml: not valid TOML"):
        load_binding(bad)
    with pytest.raises(BindingError, match=r"missing\.toml: cannot read"):
        load_binding(tmp_path / "missing.toml")
