"""Simulator scripts and the device side's own duties (HELLO, heartbeats, resends)."""

import os
import select

import pytest

from hardware.protocol import Frame, FrameParser
from hardware.simulator import ScriptError, SimulatedDevice, parse_script

from .helpers import wait_for

DEMO = """
# two devices
device P01 E noise=0.1
device BOX SN corrupt=0.05 ack_loss=0.1
0.5  P01 pass E
0.2  BOX count N 9      # out of order: sorted by time
1    BOX clear N
2    BOX unplug
3    BOX replug
4    end
"""


def test_parse_a_script():
    s = parse_script(DEMO, "demo.sim")
    assert [(d.device, d.seats, d.noise, d.corrupt, d.ack_loss) for d in s.devices] == [
        ("P01", "E", 0.1, 0.0, 0.0), ("BOX", "SN", 0.0, 0.05, 0.1)]
    assert [(st.t, st.device, st.action, st.args) for st in s.steps] == [
        (0.2, "BOX", "count", ("N", 9)), (0.5, "P01", "pass", ("E",)), (1.0, "BOX", "clear", ("N",)),
        (2.0, "BOX", "unplug", ()), (3.0, "BOX", "replug", ()), (4.0, "", "end", ())]
    assert s.end == 4.0


@pytest.mark.parametrize("text, message", [
    ("# empty\n", "no 'device ID SEATS' line"),
    ("0 P01 pass E", "line 1: expected a device id (known: none)"),
    ("device P01", "line 1: 'device' needs an id and seats"),
    ("device P01 EX", "line 1: bad seats 'EX'"),
    ("device P01 E loud=1", "line 1: unknown option 'loud=1'"),
    ("device P01 E noise=2", "line 1: a rate must be a number from 0 to 1"),
    ("device P01 E\ndevice P01 S", "line 2: device P01 declared twice"),
    ("device P01 E\nsoon P01 pass E", "line 2: a step starts with a time"),
    ("device P01 E\n-1 P01 pass E", "line 2: time must be >= 0"),
    ("device P01 E\n1 P02 pass E", "line 2: expected a device id"),
    ("device P01 E\n1 P01 jump", "line 2: unknown action 'jump'"),
    ("device P01 E\n1 P01 pass S", "line 2: device P01 has no seat 'S'"),
    ("device P01 E\n1 P01 count E 11", "line 2: count must be 1..10"),
    ("device P01 E\n1 P01 pass", "line 2: pass takes 1 argument(s), got 0"),
])
def test_script_errors_name_the_line(text, message):
    with pytest.raises(ScriptError) as info:
        parse_script(text, "s")
    assert message in str(info.value)


def test_device_says_hello_beats_and_resends_until_acknowledged():
    """Read the device with plain os calls, as a minimal host would."""
    with SimulatedDevice("P07", "W", heartbeat=0.2, resend_after=0.05, resend_max=0.1) as dev:
        fd = os.open(dev.path, os.O_RDWR | os.O_NOCTTY)
        try:
            parser, seen = FrameParser(), []

            def read_until(cond):
                def step():
                    if select.select([fd], [], [], 0.02)[0]:
                        seen.extend(x for x in parser.feed(os.read(fd, 4096)) if isinstance(x, Frame))
                    return cond()
                return wait_for(step, timeout=3)

            def hellos():
                return [f for f in seen if f.kind == "HELLO"]

            assert read_until(lambda: len(hellos()) >= 2)            # resent: nobody acked
            assert hellos()[0] == Frame("P07", 1, "HELLO", ("sim-1.0", "W", dev.boot))
            assert read_until(lambda: sum(f.kind == "HB" for f in seen) >= 2)
            os.write(fd, Frame("P07", 1, "ACK").encode())
            assert wait_for(lambda: dev.acked == [1])
            press = dev.press_pass("W")
            assert read_until(lambda: press in seen)
            os.write(fd, press.ack().encode())
            assert wait_for(lambda: dev.pending == 0)
            with pytest.raises(ScriptError, match="no button for seat 'E'"):
                dev.press_pass("E")
        finally:
            os.close(fd)
