"""Serving the dashboard: uvicorn (asyncio) in production, Werkzeug's
development server only when asked for (``dev=True``).

The Flask app stays WSGI. Pages and actions run in a bounded pool of
threads (public pages in a pool of their own, so a crowd loading the
standings never queues the referee's action behind it). A live stream
passes through Flask once, for its access check, then is served here on the
event loop: each open stream is a coroutine waiting for its channel's shared
message (:mod:`web_dashboard.fanout`), not a thread. Measurements and the
reverse-proxy / TLS setup: ``docs/dashboard-serving.md``.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from tempfile import SpooledTemporaryFile
from typing import Any

from flask import Flask

from web_dashboard.fanout import Channel, Key, fanout
from web_dashboard.stream import ASYNC_STREAMS

PUBLIC_PREFIXES = ("/overlay/", "/standings", "/sheets/", "/static/")
DEFAULT_MAX_BODY = 16 * 1024 * 1024


class _Viewer:
    """One open stream on the loop: woken when its channel has a new message."""

    __slots__ = ("wake", "gone")

    def __init__(self) -> None:
        self.wake = asyncio.Event()
        self.gone = False


class DashboardASGI:
    """The Flask app as an ASGI application whose streams hold no thread."""

    def __init__(self, app: Flask, threads: int = 16, public_threads: int = 4) -> None:
        self.app = app
        self.fan = fanout(app)
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="dashboard")
        self.public_pool = ThreadPoolExecutor(public_threads, thread_name_prefix="dashboard-public")
        self.keepalive = float(app.config["SSE_KEEPALIVE"])
        self.max_body = int(app.config.get("MAX_CONTENT_LENGTH") or DEFAULT_MAX_BODY)
        self._viewers: dict[Key, set[_Viewer]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: Callable[[Key], None] | None = None
        self.closing = False

    # ----------------------------------------------------------- lifecycle
    def _bind(self) -> None:
        if self._loop is None:
            loop = self._loop = asyncio.get_running_loop()

            def listener(key: Key) -> None:   # render thread -> loop
                if not loop.is_closed():
                    loop.call_soon_threadsafe(self._wake, key)
            self._listener = listener
            self.fan.add_listener(listener)

    def _wake(self, key: Key) -> None:
        for v in self._viewers.get(key, ()):
            v.wake.set()

    def close(self) -> None:
        """On the loop: end every stream (the server is stopping)."""
        self.closing = True
        for viewers in self._viewers.values():
            for v in viewers:
                v.wake.set()

    def release(self) -> None:
        if self._listener is not None:
            self.fan.remove_listener(self._listener)
        self.pool.shutdown(wait=False)
        self.public_pool.shutdown(wait=False)

    # ------------------------------------------------------------ requests
    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return
        self._bind()
        body = SpooledTemporaryFile(max_size=65536)
        try:
            size = 0
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body:
                    await _plain(send, 413, b"Request Entity Too Large")
                    return
                body.write(chunk)
                if not message.get("more_body"):
                    break
            body.seek(0)
            handoff: list[tuple[Key, float]] = []
            environ = _environ(scope, body)
            environ[ASYNC_STREAMS] = lambda key, delay: handoff.append((key, delay))
            pool = self.public_pool if scope["path"].startswith(PUBLIC_PREFIXES) else self.pool
            loop = asyncio.get_running_loop()
            status, headers, chunks = await loop.run_in_executor(pool, self._call, environ)
        finally:
            body.close()
        if handoff and status == 200:
            # Flask's headers (cookies, security headers) less its empty body's length
            headers = [(k, v) for k, v in headers if k != b"content-length"]
            await self._stream(handoff[0][0], handoff[0][1], headers, pool, receive, send)
            return
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"".join(chunks)})

    def _call(self, environ: dict) -> tuple[int, list[tuple[bytes, bytes]], list[bytes]]:
        """Run the Flask app in a pool thread; the whole response (pages are small)."""
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None):
            started[:] = [int(status.split(" ", 1)[0]),
                          [(k.lower().encode("latin1"), v.encode("latin1")) for k, v in headers]]
            return lambda data: chunks.append(data)

        chunks: list[bytes] = []
        result = self.app(environ, start_response)
        try:
            chunks.extend(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        return started[0], started[1], chunks

    async def _stream(self, key: Key, delay: float, headers: list, pool: ThreadPoolExecutor,
                      receive: Callable, send: Callable) -> None:
        loop = asyncio.get_running_loop()
        # counts the viewer and renders at most once if the page is stale
        ch: Channel = await loop.run_in_executor(pool, self.fan.subscribe, key)
        viewer = _Viewer()
        self._viewers.setdefault(key, set()).add(viewer)

        async def watch() -> None:   # the only way to learn the browser left
            while (await receive())["type"] != "http.disconnect":
                pass
            viewer.gone = True
            viewer.wake.set()

        watcher = loop.create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b"retry: 1000\n\n", "more_body": True})
            seen = 0
            pending: deque[tuple[float, bytes]] = deque()
            while not viewer.gone and not self.closing:
                viewer.wake.clear()
                seq, message = ch.latest
                if seq != seen:
                    seen = seq
                    if delay:
                        pending.append((time.monotonic(), message))
                    else:
                        await send({"type": "http.response.body", "body": message, "more_body": True})
                now = time.monotonic()
                while pending and pending[0][0] + delay <= now:
                    await send({"type": "http.response.body", "body": pending.popleft()[1],
                                "more_body": True})
                if ch.latest[0] != seen:
                    continue
                timeout = self.keepalive if not pending else max(0.0, pending[0][0] + delay - now)
                # a timer rather than wait_for: no task per wait, with a crowd waiting
                timer = loop.call_later(timeout, viewer.wake.set)
                await viewer.wake.wait()
                timer.cancel()
                if (not pending and ch.latest[0] == seen and not viewer.gone and not self.closing
                        and time.monotonic() - now >= timeout - 0.005):
                    await send({"type": "http.response.body", "body": b": keepalive\n\n",
                                "more_body": True})
            if not viewer.gone:
                await send({"type": "http.response.body", "body": b""})
        finally:
            watcher.cancel()
            viewers = self._viewers.get(key)
            if viewers is not None:
                viewers.discard(viewer)
                if not viewers:
                    del self._viewers[key]
            self.fan.unsubscribe(ch)


async def _plain(send: Callable, status: int, text: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(text)).encode())]})
    await send({"type": "http.response.body", "body": text})


def _environ(scope: dict, body: Any) -> dict[str, Any]:
    """The WSGI environ of an ASGI HTTP scope (PEP 3333)."""
    root = scope.get("root_path", "").encode("utf8").decode("latin1")
    path = scope["path"].encode("utf8").decode("latin1")
    if root and path.startswith(root):
        path = path[len(root):]
    server = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"], "SCRIPT_NAME": root, "PATH_INFO": path,
        "QUERY_STRING": scope["query_string"].decode("latin1"),
        "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
        "SERVER_NAME": server[0], "SERVER_PORT": str(server[1] or 0),
        "wsgi.version": (1, 0), "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body, "wsgi.errors": sys.stderr, "wsgi.multithread": True,
        "wsgi.multiprocess": False, "wsgi.run_once": False,
    }
    if scope.get("client"):
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = scope["client"][0], str(scope["client"][1])
    for name, value in scope.get("headers", []):
        key = name.decode("latin1").upper().replace("-", "_")
        if key not in ("CONTENT_LENGTH", "CONTENT_TYPE"):
            key = "HTTP_" + key
        text = value.decode("latin1")
        environ[key] = f"{environ[key]},{text}" if key in environ else text
    return environ


class DashboardServer:
    """The dashboard on uvicorn, bound at once (``server_port`` is known before
    serving). Same calls as Werkzeug's server: :meth:`serve_forever` (in this
    thread or another) and :meth:`shutdown` (from another thread)."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 8000,
                 threads: int = 16) -> None:
        import uvicorn

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.socket.bind((host, port))
            # listening now: a client may connect before the loop runs
            self.socket.listen(2048)
        except OSError:
            self.socket.close()
            raise
        self.server_port: int = self.socket.getsockname()[1]
        self.asgi = DashboardASGI(app, threads=threads)
        asgi = self.asgi

        class Server(uvicorn.Server):
            async def shutdown(self, sockets=None):  # end the streams first
                asgi.close()
                await super().shutdown(sockets)

        # a reverse proxy's X-Forwarded-* are Flask's to trust (PROXY_FIX), not uvicorn's;
        # log_config=None: the host process keeps its own logging
        config = uvicorn.Config(asgi, lifespan="off", ws="none", proxy_headers=False,
                                access_log=False, log_config=None, log_level="warning",
                                timeout_graceful_shutdown=2, server_header=False)
        self.server = Server(config)
        self._done = threading.Event()

    def serve_forever(self) -> None:
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.asgi.release()
            self.socket.close()
            self._done.set()

    def shutdown(self, timeout: float = 10.0) -> None:
        loop = self.asgi._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.asgi.close)
            except RuntimeError:   # the loop closed meanwhile
                pass
        self.server.should_exit = True
        self._done.wait(timeout)


def make_server(app: Flask, host: str = "127.0.0.1", port: int = 8000, dev: bool = False):
    """A server for ``app`` with ``serve_forever``, ``shutdown`` and ``server_port``:
    uvicorn, or with ``dev`` Werkzeug's development server (a thread per connection)."""
    if dev:
        from werkzeug.serving import make_server as werkzeug_server
        return werkzeug_server(host, port, app, threaded=True)
    return DashboardServer(app, host, port)


def serve(app: Flask, host: str, port: int, dev: bool = False) -> None:
    """Serve in this thread until Ctrl-C / SIGTERM."""
    if dev:
        app.run(host=host, port=port, threaded=True, use_reloader=False)
        return
    make_server(app, host, port).serve_forever()
