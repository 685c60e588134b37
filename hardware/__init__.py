"""Table hardware: serial pass / count-report devices and the speaker.

- ``protocol``: the GD frame format and a streaming parser (spec: PROTOCOL.md)
- ``binding``: which device serves which table and seats (a TOML file)
- ``reader``: the host side; ports read with pyserial, events out, ACKs back
- ``simulator``: devices on pseudo-terminals, for demos and tests
- ``audio``: countdown (读秒) beeps or spoken count, the violation alert
- ``knock``: optional knock-on-the-table pass detector (contact microphone)
"""
