"""``guandan-ref judge``: judge one play from the command line."""

from __future__ import annotations

import json

from commands import EXIT_NO, EXIT_OK, UsageError
from referee.cards import CardError


def register(sub) -> None:
    p = sub.add_parser(
        "judge", help="judge one play",
        description="Judge one play: print a JSON object with legal, kind, reason and the "
                    "reading used. Exit 0 legal, 1 illegal, 2 bad input.")
    p.add_argument("--level", required=True, help="the deal's level, 2..10, J, Q, K, A")
    p.add_argument("--play", required=True,
                   help='the cards in the order laid, left to right, e.g. "H2 S3 D3"')
    p.add_argument("--prev", default=None, help="the play it must beat, if any")
    p.set_defaults(func=run)


def run(args) -> int:
    from referee import judge

    try:
        verdict = judge(args.play, args.level, args.prev)
    except CardError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps(verdict.to_dict(), ensure_ascii=False))
    return EXIT_OK if verdict.legal else EXIT_NO
