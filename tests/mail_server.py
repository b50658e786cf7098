"""A real SMTP server on loopback (aiosmtpd) for the notification email tests.

It keeps every message it accepts, refuses recipients at @refused.test with a
550 (a final refusal), and can be stopped and started again on the same port
(an outage the worker's retries must ride out).
"""

import logging
import socket
import threading
import time
from email import message_from_bytes, policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller

REFUSED_DOMAIN = "@refused.test"
# aiosmtpd logs every SMTP command at INFO.
logging.getLogger("mail.log").setLevel(logging.WARNING)


class _Handler:
    def __init__(self, server: "MailServer"):
        self.server = server

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.endswith(REFUSED_DOMAIN):
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.server.lock:
            self.server.messages.append(
                (list(envelope.rcpt_tos), message_from_bytes(envelope.content, policy=policy.default))
            )
        return "250 Message accepted"


class MailServer:
    def __init__(self):
        self.port = _free_port()
        self.messages: list[tuple[list[str], EmailMessage]] = []
        self.lock = threading.Lock()
        self._controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def start(self) -> "MailServer":
        """Listen (again) on the same port; nothing to do when it already listens."""
        if self._controller is None:
            self._controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)
            self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller:
            self._controller.stop()
            self._controller = None

    def clear(self) -> None:
        with self.lock:
            self.messages.clear()

    def received_by(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for to, m in self.messages if address in to]

    def wait_for(self, address: str, count: int = 1, timeout: float = 60) -> list[EmailMessage]:
        """The messages `address` received, once there are `count` of them (a state, not a sleep)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(found := self.received_by(address)) >= count:
                return found
            time.sleep(0.1)
        raise TimeoutError(f"{address} received {len(self.received_by(address))} message(s), not {count}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
