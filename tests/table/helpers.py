"""A small script driver for table scenarios: events in, decisions collected."""

from __future__ import annotations

from referee.settings import Settings
from referee.table import Table

# 27 cards per seat in four plays: three 8-card bombs and a triple (level 2 deals).
DUMPS = {
    "S": ["S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4", "S5 S5 H5 H5 D5 D5 C5 C5", "S6 H6 D6"],
    "N": ["S7 S7 H7 H7 D7 D7 C7 C7", "S8 S8 H8 H8 D8 D8 C8 C8", "S9 S9 H9 H9 D9 D9 C9 C9", "S6 C6 C6"],
    "E": ["ST ST HT HT DT DT CT CT", "SJ SJ HJ HJ DJ DJ CJ CJ", "SQ SQ HQ HQ DQ DQ CQ CQ", "H6 D6", "SK"],
    "W": ["SK HK HK DK DK CK CK", "SA SA HA HA DA DA CA CA", "S2 S2 D2 D2 C2 C2", "LJ LJ BJ BJ", "H2 H2"],
}


class Script:
    def __init__(self, settings: Settings | None = None, table: str = "T01") -> None:
        self.table = Table(table, settings)
        self.t = 0.0
        self.out: list = []

    def ev(self, type_: str, dt: float = 1.0, **fields) -> list:
        self.t += dt
        ds = self.table.feed_dict({"t": self.t, "type": type_, **fields})
        self.out.extend(ds)
        return ds

    def start(self, deal: int = 1, level: str = "2", leader: str | None = "S", **kw) -> list:
        if leader is not None:
            kw["leader"] = leader
        return self.ev("deal_start", dt=30.0, deal=deal, level=level, **kw)

    def play(self, seat: str, cards: str, **kw) -> list:
        return self.ev("play", seat=seat, cards=cards.split(), **kw)

    def pass_(self, seat: str, **kw) -> list:
        return self.ev("pass", seat=seat, **kw)

    def report(self, seat: str, count: int, **kw) -> list:
        return self.ev("report", dt=0.5, seat=seat, count=count, **kw)

    def referee(self, action: str, **kw) -> list:
        return self.ev("referee", action=action, **kw)

    def passes(self, *seats: str) -> list:
        out = []
        for s in seats:
            out += self.pass_(s)
        return out

    def pass_round(self) -> list:
        """Everyone whose turn it is passes until the trick ends (or the deal does)."""
        out = []
        deal = self.table.deal
        while deal.phase == "play" and deal.standing is not None:
            out += self.pass_(deal.turn)
        return out

    def dump_out(self, seat: str, reports: bool = True) -> list:
        """``seat`` leads its dump plays (27 cards); the others pass after each."""
        out = []
        left = 27
        for cards in DUMPS[seat]:
            out += self.play(seat, cards)
            left -= len(cards.split())
            if 0 < left <= 10 and reports:
                out += self.report(seat, left)
            out += self.pass_round()
        return out


def types(ds) -> list[str]:
    return [d.type for d in ds]


def violations(ds) -> list[tuple[str, str, str | None]]:
    return [(d.seat, d.code, d.penalty) for d in ds if d.type == "violation"]


def of_type(ds, t: str) -> list:
    return [d for d in ds if d.type == t]
