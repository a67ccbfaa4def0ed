"""A real webhook receiver on loopback for the delivery tests: a threaded ``http.server`` that
verifies every request it gets with the independent Standard Webhooks implementation
(``standardwebhooks`` from PyPI), not with Inkwell's own signing code.

``answers`` says what it does with each request in turn (the last one repeats): a status code,
``(status, body)``, or ``("sleep", seconds)`` to answer 200 only after that long (a receiver that
times out). Every request is kept with its headers, its body and the verification's outcome.
"""

import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError


@dataclass
class Received:
    path: str
    headers: dict
    body: str
    verified: bool
    verification_error: str = ""

    @property
    def payload(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    url: str
    secrets: list[str]
    answers: list = field(default_factory=lambda: [200])
    requests: list[Received] = field(default_factory=list)

    def verify_with(self, *secrets: str) -> None:
        """The secrets this receiver accepts from now on (a receiver that has switched)."""
        self.secrets = list(secrets)

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            assert time.monotonic() < deadline, f"the receiver got {len(self.requests)} requests, not {count}, within {timeout} s"
            time.sleep(0.05)
        return self.requests


def _verify(secrets: list[str], body: str, headers: dict) -> tuple[bool, str]:
    error = "no secret"
    for secret in secrets:
        try:
            Webhook(secret).verify(body, headers)
            return True, ""
        except WebhookVerificationError as failure:
            error = str(failure)
    return False, error


@contextmanager
def webhook_receiver(*, secrets: list[str] | None = None, answers: list | None = None):
    state = Receiver(url="", secrets=list(secrets or []), answers=list(answers or [200]))

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            headers = {name.lower(): value for name, value in self.headers.items()}
            verified, error = _verify(state.secrets, body, headers)
            index = len(state.requests)
            state.requests.append(Received(self.path, headers, body, verified, error))
            answer = state.answers[min(index, len(state.answers) - 1)]
            if isinstance(answer, tuple) and answer[0] == "sleep":
                time.sleep(answer[1])
                answer = 200
            code, text = answer if isinstance(answer, tuple) else (answer, "ok" if 200 <= answer < 300 else "receiver says no")
            if 300 <= code < 400:
                self.send_response(code)
                self.send_header("Location", text)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = text.encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="webhook-receiver", daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/inkwell"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
