"""The lifecycle shared by the protocol-faithful test servers (the OpenAI-compatible one, the
WordPress one): a real threaded HTTP server on a free loopback port, in a background thread, so
that other processes can use it too."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietThreadingHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # idle keep-alive connections of a client pool must not block stop()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timeout) closes its socket: not worth a traceback."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class LoopbackServer:
    """Subclasses set ``handler_class``; each request handler reaches the server as ``self.app``.
    ``_stopping`` is set on stop, so that handlers delaying an answer can wake up."""

    handler_class: type[BaseHTTPRequestHandler]

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self):
        handler = type("Handler", (self.handler_class,), {"app": self})
        self._httpd = QuietThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"
