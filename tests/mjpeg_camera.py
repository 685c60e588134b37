"""A network camera on loopback for the tests: a real HTTP MJPEG stream that can stall.

Many IP cameras and encoders serve ``multipart/x-mixed-replace`` JPEG
streams; OpenCV reads them through FFmpeg as it reads RTSP. Each
connection gets the frames given, then the stream stalls: the connection
stays open and nothing more is sent (a camera whose encoder hung, a switch
that dropped the link) until the camera is closed.
"""

from __future__ import annotations

import socket
import threading

import cv2
import numpy as np


class StallingCamera:
    """Serves ``frames`` (BGR pictures) to each connection, then sends nothing more."""

    def __init__(self, frames: list[np.ndarray]):
        self.jpegs = [cv2.imencode(".jpg", f)[1].tobytes() for f in frames]
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/video.mjpg"
        self.connections = 0
        self._closed = threading.Event()
        self._open: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self._open.append(conn)
            try:
                conn.recv(65536)        # the request; its path does not matter
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n")
                self._stream(conn)
            except OSError:
                pass                    # the reader gave up: it opens a new connection

    def _stream(self, conn: socket.socket) -> None:
        """One connection's pictures."""
        for jpg in self.jpegs:
            _send_part(conn, jpg)

    def close(self) -> None:
        self._closed.set()
        self.sock.close()
        for c in self._open:
            c.close()


class GatedCamera(StallingCamera):
    """Serves ``parts`` of a stream one after another (lists of BGR
    pictures): the first at once, each next one when its gate
    (:attr:`gates`, one fewer than the parts) is set; then nothing more."""

    def __init__(self, parts: list[list[np.ndarray]]):
        self.parts = [[cv2.imencode(".jpg", f)[1].tobytes() for f in part] for part in parts]
        self.gates = [threading.Event() for _ in parts[1:]]
        super().__init__([])

    def _stream(self, conn: socket.socket) -> None:
        for k, part in enumerate(self.parts):
            if k:
                self.gates[k - 1].wait()
            for jpg in part:
                _send_part(conn, jpg)

    def close(self) -> None:
        for gate in self.gates:     # (a connection waiting on one ends)
            gate.set()
        super().close()


def _send_part(conn: socket.socket, jpg: bytes) -> None:
    """One JPEG as a part of the multipart stream."""
    conn.sendall(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpg) + jpg + b"\r\n")
