"""DeviceHost, the protocol's host side without I/O: dedupe, binding checks, liveness.

Times are given explicitly (``now``), so these tests are deterministic.
"""

from hardware.protocol import Frame
from hardware.reader import DeviceHost
from referee.events import Event

PORT = "/dev/ttyUSB0"


def hello(dev="P01", boot="B1", seats="ESWN"):
    return Frame(dev, 1, "HELLO", ("1.0", seats, boot))


def make_host(binding, sink, problems=None):
    return DeviceHost(binding, sink, on_problem=(problems.append if problems is not None else None),
                      clock=lambda: 50.0)


def test_events_carry_source_time_uid_and_device(binding, sink):
    host = make_host(binding, sink)
    assert host.on_frame(hello(), PORT, 0.0) == Frame("P01", 1, "ACK")
    host.on_frame(Frame("P01", 2, "PASS", ("E",)), PORT, 0.1)
    host.on_frame(Frame("P01", 3, "COUNT", ("S", "9")), PORT, 0.2)
    host.on_frame(Frame("P01", 4, "CLEAR", ("S",)), PORT, 0.3)
    status, *presses = sink.events
    assert status.type == "device_status" and status.get("online") is True
    assert [(e.type, e.seat, e.count, e.uid) for e in presses] == [
        ("pass", "E", None, "P01:B1:2"), ("report", "S", 9, "P01:B1:3"),
        ("report_clear", "S", None, "P01:B1:4")]
    assert status.uid == "P01:online:50.000000"
    for e in sink.events:
        assert (e.source, e.table, e.t, e.get("device")) == ("device", "T01", 50.0, "P01")
        assert Event.from_json(e.to_json()) == e   # a valid event per referee.events


def test_resends_are_acked_but_emitted_once(binding, sink):
    host = make_host(binding, sink)
    host.on_frame(hello(), PORT, 0.0)
    frame = Frame("P01", 2, "PASS", ("E",))
    acks = [host.on_frame(frame, PORT, 0.1 * i) for i in range(4)]
    assert acks == [frame.ack()] * 4
    assert len(sink.presses()) == 1 and host.stats.duplicates == 3


def test_dedupe_survives_a_port_change_but_not_a_reboot(binding, sink):
    host = make_host(binding, sink)
    host.on_frame(hello(boot="B1"), PORT, 0.0)
    host.on_frame(Frame("P01", 2, "PASS", ("E",)), PORT, 0.1)
    host.port_lost(PORT)
    host.on_frame(Frame("P01", 2, "PASS", ("E",)), "/dev/ttyUSB1", 1.0)   # replugged elsewhere
    assert len(sink.presses()) == 1
    host.on_frame(hello(boot="B2"), "/dev/ttyUSB1", 2.0)                 # power cycle
    host.on_frame(Frame("P01", 2, "PASS", ("W",)), "/dev/ttyUSB1", 2.1)  # same seq, new boot
    assert [p[3] for p in sink.presses()] == ["P01:B1:2", "P01:B2:2"]


def test_a_heartbeat_with_a_new_boot_also_starts_a_new_history(binding, sink):
    host = make_host(binding, sink)
    host.on_frame(Frame("P01", 0, "HB", ("B1",)), PORT, 0.0)
    host.on_frame(Frame("P01", 2, "PASS", ("E",)), PORT, 0.1)
    host.on_frame(Frame("P01", 3, "HB", ("B2",)), PORT, 0.2)
    host.on_frame(Frame("P01", 2, "PASS", ("E",)), PORT, 0.3)
    assert len(sink.presses()) == 2


def test_events_wait_unanswered_until_the_boot_is_known(binding, sink):
    host = make_host(binding, sink)      # a restarted host: the device is mid-session
    frame = Frame("P01", 40, "PASS", ("N",))
    assert host.on_frame(frame, PORT, 0.0) is None
    assert sink.presses() == [] and host.stats.waiting_boot == 1
    assert host.on_frame(Frame("P01", 40, "HB", ("B1",)), PORT, 0.5) is None   # HB: no ACK
    assert host.on_frame(frame, PORT, 0.6) == frame.ack()
    assert [p[3] for p in sink.presses()] == ["P01:B1:40"]


def test_unknown_device_is_acked_reported_once_and_emits_nothing(binding, sink):
    problems = []
    host = make_host(binding, sink, problems)
    assert host.on_frame(hello(dev="X9"), PORT, 0.0) == Frame("X9", 1, "ACK")
    for seq in (2, 3):
        assert host.on_frame(Frame("X9", seq, "PASS", ("E",)), PORT, 0.1) is not None
    assert sink.events == []
    assert problems == [f"unknown device X9 on {PORT}: not in the binding file"]
    assert host.stats.rejected_events == 2


def test_event_for_a_seat_or_job_not_bound_is_reported_not_emitted(binding, sink):
    problems = []
    host = make_host(binding, sink, problems)
    host.on_frame(hello(dev="P02", seats="E"), PORT, 0.0)
    host.on_frame(Frame("P02", 2, "COUNT", ("S", "5")), PORT, 0.1)   # seat S is not P02's
    host.on_frame(Frame("P02", 3, "PASS", ("E",)), PORT, 0.2)        # P02 serves count only
    host.on_frame(Frame("P02", 4, "COUNT", ("E", "5")), PORT, 0.3)
    assert [p[:3] for p in sink.presses()] == [("report", "E", 5)]
    assert len(problems) == 2
    assert "COUNT for seat S" in problems[0] and "PASS for seat E" in problems[1]


def test_hello_announcing_fewer_seats_than_bound_is_reported(binding, sink):
    problems = []
    make_host(binding, sink, problems).on_frame(hello(seats="E"), PORT, 0.0)
    assert problems == ["device P01 serves seats E but the binding gives it ESWN"]


def test_silence_turns_a_device_offline_after_3_2_seconds(binding, sink):
    host = make_host(binding, sink)
    host.on_frame(hello(), PORT, 10.0)
    host.on_frame(Frame("P01", 1, "HB", ("B1",)), PORT, 11.0)
    assert host.check_silence(14.15) == []
    assert host.check_silence(14.25) == ["P01"]
    assert host.check_silence(20.0) == []          # reported once
    status = sink.of("device_status")
    assert [(e.get("online"), e.get("reason")) for e in status] == [(True, "heard"), (False, "silent")]
    host.on_frame(Frame("P01", 1, "HB", ("B1",)), PORT, 21.0)
    assert sink.of("device_status")[-1].get("online") is True


def test_port_lost_turns_its_devices_offline_at_once(binding, sink):
    host = make_host(binding, sink)
    host.on_frame(hello(), PORT, 0.0)
    host.on_frame(hello(dev="P02", seats="E"), "/dev/ttyUSB1", 0.0)
    assert host.port_lost(PORT) == ["P01"]
    assert sink.of("device_status")[-1].get("reason") == "port lost"
    assert host.snapshot()["P02"]["online"] is True


def test_one_id_on_two_ports_is_reported(binding, sink):
    problems = []
    host = make_host(binding, sink, problems)
    host.on_frame(hello(), PORT, 0.0)
    host.on_frame(Frame("P01", 1, "HB", ("B1",)), "/dev/ttyUSB1", 0.5)
    assert problems and "heard on both" in problems[0]
