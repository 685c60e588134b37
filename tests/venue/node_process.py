"""A table node in a process of its own, for the kill -9 tests
(tests/venue/test_faults.py): it referees the first ``upto`` events of a
JSON-lines feed into its SQLite log and publishes the log to Redis, then
keeps publishing until killed. Started again, it replays its log and feeds
on from the first event (by uid) its log lacks, as a table goes on after a
crash of its node.

    python -m tests.venue.node_process LOG REDIS_URL FEED UPTO
"""

import json
import logging
import sys
import threading
import time

from services.live import LiveVenue
from services.venue import Venue
from venue.publisher import Publisher


def main(log_path: str, redis_url: str, feed_path: str, upto: int) -> None:
    # the publisher's warnings (Redis lost entries: sending again) go to stderr for the test
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    live = LiveVenue(Venue(log_path))
    publisher = Publisher(log_path, redis_url, node="node-K", check_interval=0.1)
    stop = threading.Event()
    threading.Thread(target=publisher.run, args=(stop, 0.01, 0.1), daemon=True).start()
    with open(feed_path, encoding="utf-8") as f:
        feed = [json.loads(line) for line in f][:upto]
    have = {e.get("uid") for t in live.tables for e in live.events(t)}
    for event in feed:
        if event["uid"] not in have:
            live.submit(event)
            time.sleep(0.002)        # a table's pace, so a kill lands mid-feed
    print("fed", flush=True)
    stop.wait()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
