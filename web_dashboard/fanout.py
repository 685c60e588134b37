"""One serialisation per change, shared by every viewer of a live page.

A *channel* is one live page's message: a table's referee state
(``("table", T)``), its public state (``("public", T)``: the overlay's,
:func:`web_dashboard.overlay.overlay_state`) or the head
referee's overview (``("overview",)``). While a channel has subscribers, a
single render thread per app rebuilds its server-sent-event message once
each time one of its tables changes, and every subscriber sends those same
bytes. The referee's channels are rendered (and their subscribers woken)
before the public ones, so a crowd of overlay viewers never delays the
referee. With no subscribers left the render thread ends.

Subscribers are either threads (the development server and the test client:
:meth:`Fanout.wait`) or the async server's connections (listeners added with
:meth:`Fanout.add_listener` are called with the channel's key after each new
message; see :mod:`web_dashboard.serving`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from flask import Flask

Key = tuple[str, ...]
log = logging.getLogger(__name__)

# referee pages first: their subscribers are woken before the public ones
_PRIORITY = {"table": 0, "overview": 1, "public": 2}


def sse(event: str, data: Any, ident: int | None = None) -> bytes:
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


class Channel:
    """The latest message of one live page and who is reading it."""

    def __init__(self, key: Key, mutex: threading.Lock) -> None:
        self.key = key
        # one per channel (on the fan-out's lock): a change wakes only the
        # threads reading this page, not every stream of the venue
        self.cond = threading.Condition(mutex)
        # (message number, message), replaced whole so that a reader without
        # the lock never pairs one message's number with another's bytes
        self.latest: tuple[int, bytes] = (0, b"")
        self.versions: tuple[int, ...] | None = None
        self.subscribers = 0
        self.lock = threading.Lock()  # one render at a time per channel


class Fanout:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.live = app.extensions["guandan_venue"]
        self._lock = threading.Lock()
        self._channels: dict[Key, Channel] = {}
        self._listeners: list[Callable[[Key], None]] = []
        self._thread: threading.Thread | None = None
        self.renders = 0              # serialisations made (tests count them)

    # ------------------------------------------------------------ channels
    def tables_of(self, key: Key) -> list[str]:
        return self.live.tables if key[0] == "overview" else [key[1]]

    def _render(self, key: Key) -> bytes:
        # imported here: views imports this module's users
        from web_dashboard.overlay import overlay_state
        from web_dashboard.views import overview_state, table_state
        # a request context for url_for (evidence links); no session is read
        with self.app.test_request_context("/"):
            if key[0] == "overview":
                data: Any = overview_state()
            elif key[0] == "public":
                data = overlay_state(key[1])
            else:
                data = table_state(key[1], public=key[0] == "public")
        return sse("state", data)

    def _refresh(self, ch: Channel) -> bool:
        """Render ``ch`` if a table moved since its message; True if it did."""
        with ch.lock:
            versions = tuple(self.live.version(t) for t in self.tables_of(ch.key))
            if versions == ch.versions:
                return False
            message = self._render(ch.key)
            with self._lock:
                ch.versions = versions
                ch.latest = (ch.latest[0] + 1, message)
                self.renders += 1
                ch.cond.notify_all()
        for listener in list(self._listeners):
            listener(ch.key)
        return True

    # ---------------------------------------------------------- subscribers
    def subscribe(self, key: Key) -> Channel:
        """Count a reader of ``key`` and bring its message up to date (renders
        at most once however many subscribe together)."""
        with self._lock:
            ch = self._channels.get(key)
            if ch is None:
                ch = self._channels[key] = Channel(key, self._lock)
            ch.subscribers += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="dashboard-fanout",
                                                daemon=True)
                self._thread.start()
        self._refresh(ch)
        return ch

    def unsubscribe(self, ch: Channel) -> None:
        with self._lock:
            ch.subscribers -= 1
            if not ch.subscribers and self._channels.get(ch.key) is ch:
                # a page nobody reads is rendered again on its next subscriber
                del self._channels[ch.key]

    def wait(self, ch: Channel, seen: int, timeout: float) -> tuple[int, bytes]:
        """For a thread: block until ``ch`` has a message after ``seen`` (or
        ``timeout``); returns the latest message number and message."""
        with ch.cond:
            ch.cond.wait_for(lambda: ch.latest[0] != seen, timeout)
            return ch.latest

    def add_listener(self, listener: Callable[[Key], None]) -> None:
        """Call ``listener(key)`` (from the render thread) after each new message."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[Key], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def subscribers(self) -> int:
        with self._lock:
            return sum(ch.subscribers for ch in self._channels.values())

    # --------------------------------------------------------- render loop
    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    channels = [ch for ch in self._channels.values() if ch.subscribers]
                    if not channels:
                        self._thread = None
                        return
                start = self.live.generation
                for ch in sorted(channels, key=lambda c: _PRIORITY[c.key[0]]):
                    if ch.key[0] == "public" and self.live.generation != start:
                        break   # a new change: the referee's pages first again
                    try:
                        self._refresh(ch)
                    except Exception:   # one page's fault must not stop every stream
                        log.exception("cannot render live page %s", ch.key)
                else:
                    # ``start`` was read before rendering: a change meanwhile is not missed
                    self.live.wait_generation(start, 1.0)
        finally:
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = None


def fanout(app: Flask) -> Fanout:
    """The app's fan-out (made on first use)."""
    f = app.extensions.get("guandan_fanout")
    if f is None:
        f = app.extensions["guandan_fanout"] = Fanout(app)
    return f
