"""How a host that connected to the named socket comes back after its connection drops
(docs/protocol.md §19): it connects again with the resume token of its latest Welcome."""

import time
from dataclasses import dataclass
from typing import Optional

from . import errors
from .connection import Connection, hello


@dataclass(frozen=True)
class ReconnectPolicy:
    """Wait `initial_delay` seconds, try, and double the wait after each failed try up to `maximum_delay`.
    Give up `give_up_after` seconds after the drop; None: the daemon's resume grace
    (`Welcome.resume_grace_ms`) plus `margin` (past the grace the daemon has forgotten the screens)."""

    initial_delay: float = 0.025
    maximum_delay: float = 0.5
    give_up_after: Optional[float] = None
    margin: float = 1.0
    handshake_timeout: float = 5.0


# What a reconnecting host goes through, for `ScreenHost.on_reconnect`; `str()` is a log line.

@dataclass(frozen=True)
class Dropped:
    """The connection dropped (`reason`: "connection closed" or "hung") with `screens` screens."""

    reason: str
    screens: int
    path: str

    def __str__(self):
        return f"connection to flowd lost ({self.reason}) with {self.screens} screen(s); reconnecting to {self.path} to resume"


@dataclass(frozen=True)
class ResumeRefused:
    """flowd refused the token (RESUME_REFUSED): the host drops its old screens and connects again as a new host."""

    message: str

    def __str__(self):
        return f"flowd refused to resume ({self.message}); dropping the old screens and connecting again as a new host (flowd places the screens that wait for its kinds)"


@dataclass(frozen=True)
class Reconnected:
    """Connected again after `attempts` tries; `resumed`: flowd places the screens that still exist again."""

    connection_id: int
    resumed: bool
    attempts: int

    def __str__(self):
        tries = "try" if self.attempts == 1 else "tries"
        outcome = "resumed, its screens follow" if self.resumed else "a fresh start"
        return f"reconnected to flowd as connection {self.connection_id} after {self.attempts} {tries}; {outcome}"


@dataclass(frozen=True)
class Resent:
    """`inputs` outputs and navigation no Pong had confirmed were sent again with their keys."""

    inputs: int

    def __str__(self):
        return f"sent again {self.inputs} input(s) flowd had not confirmed; it applies each once"


@dataclass(frozen=True)
class GaveUp:
    """No try succeeded in time; `run()` returns CONNECTION_CLOSED."""

    attempts: int
    last_error: Exception

    def __str__(self):
        tries = "try" if self.attempts == 1 else "tries"
        return f"gave up reconnecting to flowd after {self.attempts} {tries}; last: {self.last_error}"


class Redialer:
    """The path, Hello and token to come back with, and the schedule of tries after a drop."""

    def __init__(self, path, name, provides, policy):
        self.path = path
        self.name = name
        self.provides = list(provides)
        self.policy = policy
        self.token = ""
        self.grace = 0.0
        self.next_try = None  # monotonic time of the next try while reconnecting, else None
        self.deadline = None
        self.delay = policy.initial_delay
        self.attempts = 0

    @property
    def can_resume(self):
        """False when the daemon keeps nothing for this host (no token): nothing to come back to."""
        return bool(self.token)

    def welcomed(self, welcome):
        self.token = welcome.resume_token
        self.grace = welcome.resume_grace_ms / 1000

    def start(self, now):
        limit = self.policy.give_up_after
        self.deadline = now + (self.grace + self.policy.margin if limit is None else limit)
        self.delay = self.policy.initial_delay
        self.next_try = now + self.delay
        self.attempts = 0

    def attempt(self):
        """One try: returns (connection, welcome, envelopes after it). Raises ResumeRefused (then the
        token is dropped: the next try is a fresh start, at once), another DaemonError, or
        ConnectError/HandshakeError (then `failed` says whether to try again)."""
        self.attempts += 1
        connection = Connection.attach(self.path)
        try:
            welcome, pending = connection.handshake(hello(self.name, self.provides, resume_token=self.token),
                                                    timeout=self.policy.handshake_timeout)
        except errors.ResumeRefused:
            connection.close()
            self.token = ""
            self.next_try = time.monotonic()
            raise
        except BaseException:
            connection.close()
            raise
        self.next_try = None
        self.welcomed(welcome)
        return connection, welcome, pending

    def failed(self, now):
        """A try failed; True if there is time for another (scheduled), False to give up."""
        if now >= self.deadline:
            self.next_try = None
            return False
        self.delay = min(self.delay * 2, self.policy.maximum_delay)
        self.next_try = min(now + self.delay, self.deadline)
        return True
