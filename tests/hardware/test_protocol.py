"""The frame format and the streaming parser, including a fuzz of noise between frames."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hardware.protocol import (MAX_FRAME, Frame, FrameParser, ProtocolError, Reject, checksum,
                               decode_line)

# -- strategies -------------------------------------------------------------

device_ids = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
                     min_size=1, max_size=16)
seats = st.sampled_from("ESWN")
seqs = st.integers(1, 65535)
boots = st.integers(0, 2**32 - 1).map(lambda n: f"{n:X}")


@st.composite
def frames(draw):
    kind = draw(st.sampled_from(["HELLO", "HB", "PASS", "COUNT", "CLEAR", "ACK"]))
    device, seq = draw(device_ids), draw(seqs)
    if kind == "HELLO":
        served = "".join(draw(st.permutations("ESWN"))[:draw(st.integers(1, 4))])
        fields = (draw(st.from_regex(r"[A-Za-z0-9._+-]{1,16}", fullmatch=True)), served, draw(boots))
    elif kind == "HB":
        fields = (draw(boots),)
    elif kind == "COUNT":
        fields = (draw(seats), str(draw(st.integers(1, 10))))
    elif kind in ("PASS", "CLEAR"):
        fields = (draw(seats),)
    else:
        fields = ()
    return Frame(device, seq, kind, fields)


# -- encoding and decoding --------------------------------------------------

def test_known_frame_and_checksum():
    assert checksum(b"GD,P01,7,PASS,E") == 0x31
    assert Frame("P01", 7, "PASS", ("E",)).encode() == b"$GD,P01,7,PASS,E*31\r\n"
    assert decode_line(b"$GD,P01,7,PASS,E*31\n") == Frame("P01", 7, "PASS", ("E",))  # bare LF
    lower_hex = b"$GD,BOX-2,12,COUNT,N,10*%02x\r\n" % checksum(b"GD,BOX-2,12,COUNT,N,10")
    f = decode_line(lower_hex)
    assert (f.device, f.seq, f.seat, f.count) == ("BOX-2", 12, "N", 10)


@given(frames())
def test_every_valid_frame_round_trips(frame):
    line = frame.encode()
    assert len(line) <= MAX_FRAME
    assert decode_line(line) == frame
    assert FrameParser().feed(line) == [frame]


def _line(body: str) -> bytes:
    raw = body.encode()
    return b"$%s*%02X\r\n" % (raw, checksum(raw))


@pytest.mark.parametrize("line, message", [
    (b"$GD,P01,7,PASS,E*30\r\n", "bad checksum: frame says 30, content gives 31"),
    (b"$GD,P01,7,PASS,E\r\n", "no '*HH' checksum"),
    (b"$GD,P01,7,PASS,E*3G\r\n", "checksum is not two hex digits"),
    (_line("XX,P01,7,PASS,E"), "not a GD frame"),
    (_line("GD,P01,7"), "too few fields"),
    (_line("GD,P 1,7,PASS,E"), "bad device id"),
    (_line("GD,P01,x7,PASS,E"), "bad seq"),
    (_line("GD,P01,0,PASS,E"), "seq 0 out of range"),
    (_line("GD,P01,65536,PASS,E"), "out of range"),
    (_line("GD,P01,7,JUMP,E"), "unknown kind 'JUMP'"),
    (_line("GD,P01,7,PASS,X"), "PASS: bad seat 'X'"),
    (_line("GD,P01,7,PASS"), "PASS: expected 1 field(s) (seat), got 0"),
    (_line("GD,P01,7,PASS,E,"), "PASS: expected 1 field(s)"),
    (_line("GD,P01,7,COUNT,E,11"), "COUNT: bad count '11'"),
    (_line("GD,P01,7,COUNT,E,0"), "COUNT: bad count '0'"),
    (_line("GD,P01,7,HELLO,1.0,EE,1A"), "HELLO: bad seats 'EE'"),
    (_line("GD,P01,7,HB,1a2b"), "HB: bad boot '1a2b'"),
    (b"$GD,P01,7,PASS,\xc9*%02X\r\n" % checksum(b"GD,P01,7,PASS,\xc9"), "non-ASCII"),
])
def test_bad_lines_are_named(line, message):
    with pytest.raises(ProtocolError) as info:
        decode_line(line)
    assert message in str(info.value)


def test_heartbeat_may_carry_seq_zero_but_events_may_not():
    assert decode_line(_line("GD,P01,0,HB,1A")).seq == 0
    with pytest.raises(ProtocolError):
        decode_line(_line("GD,P01,0,HELLO,1.0,E,1A"))


# -- the streaming parser ---------------------------------------------------

def test_parser_reports_what_it_drops():
    p = FrameParser()
    good = Frame("P01", 3, "PASS", ("S",)).encode()
    out = p.feed(b"\x00\xffjunk" + good[:10] + good + b"$" + b"A" * 100 + good)
    kinds = [x.reason if isinstance(x, Reject) else "frame" for x in out]
    assert kinds == ["garbage", "truncated", "frame", "too long", "frame"]
    assert p.frames == 2 and p.rejects == {"garbage": 1, "truncated": 1, "too long": 1}


def test_parser_handles_a_frame_split_anywhere():
    line = Frame("P01", 9, "COUNT", ("W", "7")).encode()
    for cut in range(1, len(line)):
        p = FrameParser()
        assert p.feed(line[:cut]) == []
        assert p.feed(line[cut:]) == [Frame("P01", 9, "COUNT", ("W", "7"))]


def test_overlong_frame_without_end_is_dropped_as_it_grows():
    p = FrameParser()
    out = p.feed(b"$" + b"G" * (MAX_FRAME + 5))
    assert [x.reason for x in out] == ["too long"]
    assert p.feed(Frame("P01", 1, "PASS", ("E",)).encode())[-1] == Frame("P01", 1, "PASS", ("E",))


def _decodes_to_nothing(noise: bytes) -> bool:
    return not any(isinstance(x, Frame) for x in FrameParser().feed(noise + b"\n"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=120), frames()), min_size=1, max_size=12),
       st.binary(max_size=60), st.data())
def test_fuzz_noise_between_frames_never_raises_and_loses_no_frame(pairs, tail, data):
    for noise, _ in pairs:
        assume(_decodes_to_nothing(noise))   # the noise must not itself be a valid frame
    stream = b"".join(noise + frame.encode() for noise, frame in pairs) + tail
    # feed in random chunks, as a serial port delivers them
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    parser = FrameParser()
    got = []
    for a, b in zip([0] + cuts, cuts + [len(stream)]):
        got += [x for x in parser.feed(stream[a:b]) if isinstance(x, Frame)]
    assert got == [frame for _, frame in pairs]


def test_reset_drops_a_partial_frame_and_keeps_counts():
    p = FrameParser()
    p.feed(Frame("P01", 1, "PASS", ("E",)).encode() + b"$GD,P01,2,PA")
    p.reset()
    assert p.feed(b"SS,E*00\r\n") == [Reject("garbage", b"SS,E*00\r\n", "garbage")]
    assert p.frames == 1
