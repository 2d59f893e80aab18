"""A screen process's connection to flowd, shaped like ScreenKit's ScreenHost (docs/screenkit.md):
the handshake, a handler per screen kind, acks sent for you, outputs and user navigation with input
keys, a Ping barrier, and, for hosts on the named socket, reconnecting and resuming after a drop.

Blocking and single-threaded: `run()` (or `poll_once`) waits with select(2) on the socket and the
descriptors added with `add_input`, and calls every handler on the calling thread."""

import enum
import logging
import os
import select
import time
from dataclasses import dataclass

from . import errors, payloads
from .connection import Connection, default_socket_path, hello
from .inputs import UnconfirmedInputs
from .proto import control_pb2, screen_pb2
from .reconnect import Dropped, GaveUp, Reconnected, ReconnectPolicy, Redialer, Resent, ResumeRefused
from .screen import Dismissal, DismissReason, HostedScreen

log = logging.getLogger("flowd_screens")


class ExitReason(enum.Enum):
    """Why `run()` returned."""

    SHUTDOWN = "shutdown"  # flowd sent Shutdown; see `shutdown_reason`
    ONLY_SCREEN_DISMISSED = "only screen dismissed"  # a spawned host's screen is gone
    CONNECTION_CLOSED = "connection closed"  # end of stream (a reconnecting host: once it gave up)
    STOPPED = "stopped"  # `stop()` or `close()` was called


class ShutdownReason(enum.Enum):
    """The reason of flowd's Shutdown (docs/protocol.md §11)."""

    UNSPECIFIED = 0
    DAEMON_EXITING = 1
    APP_FINISHED = 2
    SCREEN_DISMISSED = 3
    PROTOCOL_ERROR = 4
    HUNG = 5


@dataclass(frozen=True)
class DaemonInfo:
    """What flowd said in its (latest) Welcome."""

    version: int
    connection_id: int
    server: str
    app: str
    max_frame_size: int
    resume_grace: float  # seconds flowd keeps this host's screens after a drop
    resumed: bool

    @classmethod
    def from_welcome(cls, welcome):
        return cls(welcome.version, welcome.connection_id, welcome.server, welcome.app,
                   welcome.max_frame_size, welcome.resume_grace_ms / 1000, welcome.resumed)


@dataclass
class _Registration:
    handler: object
    decode: object
    state: type = None  # a generated protobuf message class, or None for JSON states
    output: type = None  # the same for outputs (checked by `HostedScreen.send`)


@dataclass
class _Tracked:
    """What the host knows about a screen id on the current connection."""

    kind: str
    last_serial: int
    hosted: bool = False  # a handler accepted it
    dismiss_serial: int = None


class ScreenHost:
    """Hosts screens for flowd. Make one with `connect()` (the named socket; reconnects by itself) or
    `from_environment()` (spawned by flowd), `register` a handler per kind, then `run()`."""

    def __init__(self, connection, welcome, pending, name, spawned, redialer=None):
        self.name = name
        self.is_spawned = spawned
        #: Ack every Place/Update/PlacementChanged/Dismiss right after its callback returned.
        self.auto_ack = True
        #: Seconds a host whose last screen was dismissed waits for flowd's Shutdown.
        self.shutdown_grace = 2.0
        #: End `run()` once the last screen's dismissal is acked (spawned hosts do).
        self.ends_when_last_screen_dismissed = spawned
        #: Non-fatal errors (a DaemonError such as InvalidNavigation or BadPayload, refused Places, ...).
        self.on_error = lambda error: log.warning("%s", error)
        #: What reconnecting goes through (Dropped, ResumeRefused, Reconnected, Resent, GaveUp).
        self.on_reconnect = lambda event: log.info("%s", event)
        self.shutdown_reason = None
        self.shutdown_message = None
        #: The live screens by id.
        self.screens = {}
        self.daemon = DaemonInfo.from_welcome(welcome)
        self._connection = connection
        self._pending = list(pending)
        self._tracked = {}
        self._handlers = {}
        self._unconfirmed = UnconfirmedInputs()
        #: The last state saved for each live screen: sent again after a resume (a SaveState is not
        #: acknowledged: one written just before a drop may be lost) and given to the screen when flowd
        #: places it again, newer than that Place's, built before the resume.
        self._saved_states = {}
        self._next_nonce = 0
        self._barriers = set()
        self._pongs = set()
        self._inputs = {}
        self._next_input_id = 1
        self._redial = redialer
        self._reconnecting = False
        self._exit = None
        self._failure = None
        self._had_screen = False
        self._grace_deadline = None
        if redialer:
            redialer.welcomed(welcome)

    # --- Making a host ------------------------------------------------------------------------

    @classmethod
    def connect(cls, path=None, name="python screens", provides=(), reconnect=ReconnectPolicy(), handshake_timeout=5.0):
        """Connects to flowd's named socket (default: as flowd chooses it, docs/protocol.md §1) and
        provides `provides` kinds. Reconnects and resumes after a drop unless `reconnect` is None.
        Raises ConnectError, HandshakeError, or the daemon's refusal (e.g. Unauthorized)."""
        path = path or default_socket_path()
        connection = Connection.attach(path)
        try:
            welcome, pending = connection.handshake(hello(name, provides), timeout=handshake_timeout)
        except BaseException:
            connection.close()
            raise
        redialer = Redialer(path, name, provides, reconnect) if reconnect else None
        return cls(connection, welcome, pending, name, spawned=False, redialer=redialer)

    @classmethod
    def from_environment(cls, name=None, environ=None, handshake_timeout=None):
        """The host of a process flowd spawned: FLOWD_SOCKET_FD, FLOWD_TOKEN (docs/protocol.md §15).
        Raises SpawnEnvironmentError if they are missing or wrong."""
        environ = os.environ if environ is None else environ
        fd, token = environ.get("FLOWD_SOCKET_FD", ""), environ.get("FLOWD_TOKEN", "")
        if not fd.isdigit() or not token:
            raise errors.SpawnEnvironmentError(
                "FLOWD_SOCKET_FD and FLOWD_TOKEN are not set (or not a descriptor number): flowd sets them "
                "when it spawns a screen; to connect by hand use ScreenHost.connect(path, provides=[...])")
        connection = Connection.inherited(int(fd))
        name = name or f"python {environ.get('FLOWD_SCREEN_KIND', 'screen')}"
        try:
            welcome, pending = connection.handshake(hello(name, token=token), timeout=handshake_timeout)
        except BaseException:
            connection.close()
            raise
        return cls(connection, welcome, pending, name, spawned=True)

    @staticmethod
    def spawned_by_flowd(environ=None):
        """True if this process was spawned by flowd (FLOWD_SOCKET_FD is set)."""
        return bool((os.environ if environ is None else environ).get("FLOWD_SOCKET_FD"))

    # --- Handlers -------------------------------------------------------------------------------

    def register(self, kind, handler=None, decode=None, *, state=None, output=None):
        """Hosts screens of `kind`: `handler(screen)` gets each placed HostedScreen and usually sets its
        callbacks. `state`, `output`: generated protobuf message classes when the app's module carries
        its State and Output as protobuf (`state=cards_pb2.CardState`): states arrive as messages of
        `state` (parsed from `application/protobuf; proto=NAME`, or from JSON with json_format), and
        `send` refuses messages of another type than `output`. Without them states are JSON values.
        `decode(value)`, if given, turns the JSON value or message into what `screen.state` holds (e.g.
        a dataclass). A state that does not decode is refused with BAD_PAYLOAD. Registering a kind
        again replaces it. Without `handler`, returns a decorator."""
        state = payloads.message_class(state, "state", kind)
        output = payloads.message_class(output, "output", kind)
        if handler is None:
            return lambda function: self.register(kind, function, decode, state=state, output=output) or function
        self._handlers[kind] = _Registration(handler, decode, state, output)
        return None

    @property
    def registered_kinds(self):
        return sorted(self._handlers)

    # --- State ----------------------------------------------------------------------------------

    @property
    def is_reconnecting(self):
        """True while the connection is down and the host tries to get a new one."""
        return self._reconnecting

    @property
    def exit_reason(self):
        """Why the session ended, once it has; None while it runs or reconnects."""
        return self._exit

    def _over(self):
        return self._exit is not None or self._failure is not None

    def _outcome(self):
        if self._failure is not None:
            raise self._failure
        return self._exit

    # --- Loop -----------------------------------------------------------------------------------

    def run(self):
        """Serves screens until the session ends; returns an ExitReason, or raises the fatal error that
        ended it (a fatal DaemonError, a broken socket, a bad frame). The socket is closed then."""
        while True:
            reason = self.poll_once(None)
            if reason is not None:
                return reason

    def poll_once(self, timeout=None):
        """One step of `run()`: handles the frames already received, or waits up to `timeout` seconds
        (None: no limit, 0: do not wait) for the socket or an input. Returns the ExitReason once the
        session is over, None while it goes on (also while reconnecting)."""
        if self._over():
            return self._outcome()
        if self._reconnecting:
            self._reconnect_step(timeout, poll_inputs=True)
            return self._outcome()
        if self._pending:
            self._handle_pending()
            return self._outcome()
        if self._grace_expired():
            return self._outcome()
        wait = timeout
        if self._grace_deadline is not None:
            left = max(0.0, self._grace_deadline - time.monotonic())
            wait = left if wait is None else min(wait, left)
        readers = [self._connection.sock] + [fd for fd, _ in self._inputs.values()]
        ready, _, _ = select.select(readers, [], [], wait)
        if self._connection.sock in ready:
            self._read()
        self._run_inputs(ready)
        self._grace_expired()
        return self._outcome()

    def ping(self, timeout=5.0):
        """A barrier: sends Ping and handles incoming frames (running callbacks, acking) until flowd's
        Pong. Afterwards every consequence of what was sent before has been handled. Across a
        reconnection it pings again on the new connection. Raises PingTimeout, ConnectionClosed if the
        session ends first, and what `run()` raises."""
        deadline = time.monotonic() + timeout
        nonce, pinged_on = None, None
        while True:
            if pinged_on is not None and pinged_on is not self._connection:
                nonce = None  # the old connection's Pong will never come
            if nonce is None and not self._reconnecting and not self._over():
                nonce = self._new_nonce()
                self._barriers.add(nonce)
                try:
                    self._send("ping", control_pb2.Ping(nonce=nonce))
                    pinged_on = self._connection
                except (errors.Reconnecting, errors.ConnectionClosed):
                    nonce = None
            if nonce is not None and nonce in self._pongs:
                self._pongs.discard(nonce)
                self._barriers.discard(nonce)
                return
            if self._pending and not self._over():
                self._handle_pending()
                continue
            if self._over():
                self._outcome()
                raise errors.ConnectionClosed(f"the session ended ({self._exit.value}) before flowd's Pong", fatal=True)
            left = deadline - time.monotonic()
            if left <= 0:
                raise errors.PingTimeout(f"flowd did not answer Ping {nonce} within {timeout} s")
            if self._reconnecting:
                self._reconnect_step(left, poll_inputs=False)
            elif select.select([self._connection.sock], [], [], left)[0]:
                self._read()

    def stop(self):
        """Ends `run()` after the current callback, with STOPPED; a reconnecting host stops trying."""
        self._redial, self._reconnecting = None, False
        if not self._over():
            self._exit = ExitReason.STOPPED

    def close(self):
        """Says Shutdown to flowd (nothing is held for a resumption: its screens go to the next host of their kinds) and closes."""
        if not self._over() and not self._reconnecting:
            self._connection.say_goodbye()
        self.stop()
        self._connection.close()

    def add_input(self, fd, handler):
        """Polls descriptor (or file object) `fd` alongside the socket; `handler()` runs when it is
        readable (also while reconnecting). Returns an id for `remove_input`."""
        input_id = self._next_input_id
        self._next_input_id += 1
        self._inputs[input_id] = (fd, handler)
        return input_id

    def remove_input(self, input_id):
        self._inputs.pop(input_id, None)

    # --- Sending --------------------------------------------------------------------------------

    def ack(self, screen_id, serial):
        """Acks `serial` of a screen (and earlier ones). Sent as given; needed only with auto_ack off."""
        self._send("ack", screen_pb2.Ack(screen_id=screen_id, serial=serial))
        tracked = self._tracked.get(screen_id)
        if tracked and tracked.dismiss_serial is not None and serial >= tracked.dismiss_serial:
            del self._tracked[screen_id]
            self._check_last_screen_gone()

    def _send(self, body, message, reply_to=0):
        if self._reconnecting:
            raise errors.Reconnecting(f"cannot send {body}: the connection to flowd dropped and the host is "
                                      "reconnecting; nothing was sent (the screens are placed again once it resumed)")
        if self._over():
            raise errors.ConnectionClosed(f"cannot send {body}: the session with flowd has ended", fatal=True)
        try:
            return self._connection.send(body, message, reply_to)
        except errors.ConnectionClosed:
            self._write_failed()
            return self._send(body, message, reply_to)  # raises Reconnecting or ConnectionClosed

    def _send_input(self, body, message):
        """An output or navigation: sent with its key, then a Ping whose Pong confirms it."""
        number = self._unconfirmed.keyed(message)
        self._send(body, message)
        self._unconfirmed.sent(number, body, message)
        self._confirm()

    def _save_state(self, screen_id, data):
        """Sends a SaveState; while reconnecting, keeps the last one per screen for after the resume."""
        self._saved_states[screen_id] = data  # empty too: a clear is sent again after a resume
        try:
            self._send("save_state", screen_pb2.SaveState(screen_id=screen_id, data=data))
        except errors.Reconnecting:
            pass  # sent once the host resumed

    def _confirm(self):
        nonce = self._new_nonce()
        try:
            self._send("ping", control_pb2.Ping(nonce=nonce))
            self._unconfirmed.pinged(nonce)
        except (errors.Reconnecting, errors.ConnectionClosed):
            pass  # the inputs stay unconfirmed and are sent again after the resume

    def _new_nonce(self):
        self._next_nonce += 1
        return self._next_nonce

    def _refuse(self, code, message, screen_id, serial):
        """A non-fatal Error about a command this host could not apply."""
        error = control_pb2.Error(code=code, message=message, fatal=False, screen_id=screen_id, serial=serial)
        try:
            self._send("error", error)
        except (errors.Reconnecting, errors.ConnectionClosed):
            pass

    def _auto_ack(self, screen_id, serial):
        if self.auto_ack:
            try:
                self.ack(screen_id, serial)
            except (errors.Reconnecting, errors.ConnectionClosed):
                pass  # dropped meanwhile: a resumed screen comes back with a new Place

    # --- Receiving ------------------------------------------------------------------------------

    def _read(self):
        try:
            envelopes = self._connection.read()
        except errors.FlowdError as error:
            self._fail(error)
            return
        if envelopes is None:
            self._dropped("connection closed")
            return
        self._pending.extend(envelopes)
        self._handle_pending()

    def _handle_pending(self):
        while self._pending and not self._over() and not self._reconnecting:
            envelope = self._pending.pop(0)
            try:
                self._handle(envelope)
            except (errors.Reconnecting, errors.ConnectionClosed):
                pass  # a send found the connection gone; the state says what follows

    def _handle(self, envelope):
        body = envelope.WhichOneof("body")
        if body == "place":
            self._place(envelope.place)
        elif body == "update":
            self._update(envelope.update)
        elif body == "placement_changed":
            change = envelope.placement_changed
            screen = self._command(change.screen_id, change.serial, "PlacementChanged")
            if screen:
                screen._moved(change.serial, change.change, change.placement)
                self._auto_ack(screen.id, change.serial)
        elif body == "dismiss":
            self._dismiss(envelope.dismiss)
        elif body == "ping":
            self._send("pong", control_pb2.Pong(nonce=envelope.ping.nonce), reply_to=envelope.seq)
        elif body == "pong":
            nonce = envelope.pong.nonce
            self._unconfirmed.ponged(nonce)
            if nonce in self._barriers:
                self._pongs.add(nonce)
        elif body == "error":
            self._error(errors.DaemonError.from_wire(envelope.error))
        elif body == "shutdown":
            self._shutdown(envelope.shutdown)
        elif body != "link_opened":
            self.on_error(errors.ProtocolViolation(f"flowd sent {body}, which a screen host never receives; ignored"))

    def _place(self, place):
        screen_id, serial = place.screen_id, place.serial
        if screen_id in self._tracked:
            self.on_error(errors.ProtocolViolation(
                f"flowd placed screen {screen_id} (kind {place.kind!r}) again; the second Place is ignored",
                screen_id=screen_id, serial=serial))
            return
        tracked = self._tracked[screen_id] = _Tracked(place.kind, serial)
        registration = self._handlers.get(place.kind)
        if registration is None:
            refusal = errors.KindNotRegistered(
                f"flowd placed a screen of kind {place.kind!r}, which this host has no handler for "
                f"(registered: {', '.join(self.registered_kinds) or 'none'}); refused with UNKNOWN_KIND",
                screen_id=screen_id, serial=serial)
            self._refuse(control_pb2.ERROR_CODE_UNKNOWN_KIND, refusal.message, screen_id, serial)
            self.on_error(refusal)
            return
        try:
            state = self._decode(registration, place.kind, place.state, screen_id, serial)
        except errors.StateNotDecoded as refusal:
            self._refuse(control_pb2.ERROR_CODE_BAD_PAYLOAD, refusal.message, screen_id, serial)
            self.on_error(refusal)
            return
        screen = HostedScreen(self, place, state, registration.output)
        self.screens[screen_id] = screen
        tracked.hosted = True
        self._had_screen = True
        registration.handler(screen)
        self._auto_ack(screen_id, serial)

    def _command(self, screen_id, serial, name):
        """The hosted screen a command is about, or None (refused: dropped; the daemon's rules broken: reported)."""
        tracked = self._tracked.get(screen_id)
        if tracked is None or serial <= tracked.last_serial:
            problem = "which it never placed here" if tracked is None else f"with serial {serial}, not above {tracked.last_serial}"
            self.on_error(errors.ProtocolViolation(f"flowd sent {name} for screen {screen_id} {problem}; ignored",
                                                   screen_id=screen_id, serial=serial))
            return None
        tracked.last_serial = serial
        if not tracked.hosted or tracked.dismiss_serial is not None:
            return None
        return self.screens.get(screen_id)

    def _update(self, update):
        screen = self._command(update.screen_id, update.serial, "Update")
        if screen is None:
            return
        try:
            state = self._decode(self._handlers.get(screen.kind), screen.kind, update.state, screen.id, update.serial)
        except errors.StateNotDecoded as refusal:  # the screen keeps its state; not acked
            self._refuse(control_pb2.ERROR_CODE_BAD_PAYLOAD, refusal.message, screen.id, update.serial)
            self.on_error(refusal)
            return
        screen._updated(update.serial, state)
        self._auto_ack(screen.id, update.serial)

    def _dismiss(self, dismiss):
        screen_id, serial = dismiss.screen_id, dismiss.serial
        tracked = self._tracked.get(screen_id)
        if tracked is None or not tracked.hosted or tracked.dismiss_serial is not None:
            # Refused, unknown or dismissed already: nothing to remove; the ack lets flowd finish unwinding.
            self._tracked.pop(screen_id, None)
            self._send("ack", screen_pb2.Ack(screen_id=screen_id, serial=serial))
            return
        tracked.last_serial = max(tracked.last_serial, serial)
        tracked.dismiss_serial = serial
        screen = self.screens.pop(screen_id, None)
        self._saved_states.pop(screen_id, None)
        if screen:
            screen._dismissed(Dismissal(DismissReason.from_wire(dismiss.reason), dismiss.animated), serial)
        self._auto_ack(screen_id, serial)

    def _error(self, error):
        if error.fatal:
            self._fail(error)
            return
        if error.code == errors.ErrorCode.ACK_TIMEOUT and error.screen_id in self._tracked:
            tracked = self._tracked.pop(error.screen_id)
            screen = self.screens.pop(error.screen_id, None)
            self._saved_states.pop(error.screen_id, None)
            if screen and tracked.hosted and tracked.dismiss_serial is None:
                screen._dismissed(Dismissal(DismissReason.ACK_TIMEOUT, False))
            self._check_last_screen_gone()
        self.on_error(error)

    def _shutdown(self, shutdown):
        try:
            reason = ShutdownReason(shutdown.reason)
        except ValueError:
            reason = ShutdownReason.UNSPECIFIED
        self.shutdown_reason, self.shutdown_message = reason, shutdown.message
        if reason == ShutdownReason.HUNG and self._dropped("hung"):
            return
        awaiting = self._grace_deadline is not None
        self._end(ExitReason.ONLY_SCREEN_DISMISSED if reason == ShutdownReason.SCREEN_DISMISSED or awaiting
                  else ExitReason.SHUTDOWN)

    @staticmethod
    def _decode(registration, kind, payload, screen_id, serial):
        state, decode = (registration.state, registration.decode) if registration else (None, None)
        return payloads.decode_state(state, decode, kind, payload, screen_id, serial)

    # --- Endings --------------------------------------------------------------------------------

    def _check_last_screen_gone(self):
        if (self.ends_when_last_screen_dismissed and self._had_screen and self._grace_deadline is None
                and not any(tracked.hosted for tracked in self._tracked.values())):
            self._grace_deadline = time.monotonic() + self.shutdown_grace

    def _grace_expired(self):
        if self._grace_deadline is not None and not self._over() and time.monotonic() >= self._grace_deadline:
            self._end(ExitReason.ONLY_SCREEN_DISMISSED)
            return True
        return False

    def _end(self, reason):
        if not self._over():
            self._exit = reason
        self._pending = []
        self._connection.close()

    def _fail(self, error):
        if not self._over():
            self._failure = error
        self._pending = []
        self._connection.close()

    def _write_failed(self):
        """flowd closed the connection under a write. If it said why first (a fatal Error, a Shutdown),
        that ends the session as it would have when read; otherwise it is a drop."""
        for envelope in self._connection.read_rest():
            body = envelope.WhichOneof("body")
            if body == "error" and envelope.error.fatal:
                self._fail(errors.DaemonError.from_wire(envelope.error))
                return
            if body == "shutdown":
                self._shutdown(envelope.shutdown)
                return
        self._dropped("connection closed")

    def _dropped(self, why):
        """The connection is gone (end of stream, a reset, Shutdown(HUNG)). A host that can resume starts
        reconnecting (True); otherwise the session ends."""
        self._connection.close()
        if self._over() or self._reconnecting:
            return self._reconnecting
        if self._redial is None or not self._redial.can_resume:
            awaiting = self._grace_deadline is not None
            self._end(ExitReason.ONLY_SCREEN_DISMISSED if awaiting else
                      ExitReason.SHUTDOWN if why == "hung" else ExitReason.CONNECTION_CLOSED)
            return False
        self.on_reconnect(Dropped(why, len(self.screens), self._redial.path))
        self._reconnecting = True
        self._redial.start(time.monotonic())
        # The old connection's rules, buffered frames and pongs mean nothing on the next one.
        self._tracked, self._pending, self._pongs, self._grace_deadline = {}, [], set(), None
        return True

    # --- Reconnecting ---------------------------------------------------------------------------

    def _reconnect_step(self, timeout, poll_inputs):
        """One try if it is due, else a wait of at most `timeout` (None: until the try is due)."""
        redial = self._redial
        due = redial.next_try - time.monotonic()
        if due > 0:
            wait = due if timeout is None else min(timeout, due)
            fds = [fd for fd, _ in self._inputs.values()] if poll_inputs else []
            if fds:
                self._run_inputs(select.select(fds, [], [], wait)[0])
            else:
                time.sleep(wait)
            return
        try:
            connection, welcome, pending = redial.attempt()
        except errors.ResumeRefused as refusal:
            self._forget(DismissReason.CONNECTION_LOST)
            self._saved_states = {}  # a fresh start: flowd's saved states are the screens' now
            self.on_reconnect(ResumeRefused(refusal.message))
            return
        except (errors.DaemonError, errors.UntrustedServer) as error:  # refused again the next time
            self._redial, self._reconnecting = None, False
            self._fail(error)
            return
        except errors.FlowdError as error:
            if redial.failed(time.monotonic()):
                return
            self.on_reconnect(GaveUp(redial.attempts, error))
            self._redial, self._reconnecting = None, False
            self._end(ExitReason.CONNECTION_CLOSED)
            return
        self._reconnecting = False
        self._forget(DismissReason.RESUMED if welcome.resumed else DismissReason.CONNECTION_LOST)
        if not welcome.resumed:
            self._saved_states = {}
        self._connection, self._pending = connection, list(pending)
        self.daemon = DaemonInfo.from_welcome(welcome)
        self.on_reconnect(Reconnected(welcome.connection_id, welcome.resumed, redial.attempts))
        self._resend_unconfirmed()

    def _forget(self, reason):
        """Tells every screen of the old connection it is gone (newest first), without acks."""
        gone = sorted(self.screens.values(), key=lambda screen: screen.id, reverse=True)
        self.screens = {}
        for screen in gone:
            screen._dismissed(Dismissal(reason, False))

    def _resend_unconfirmed(self):
        """Sends again, with their keys, the inputs no Pong confirmed (docs/protocol.md §20): flowd drops
        those it applied and applies the others. They follow the Hello, so the screens are placed again."""
        self._unconfirmed.connection_changed()
        for screen_id, data in list(self._saved_states.items()):
            self._save_state(screen_id, data)
        entries = list(self._unconfirmed.entries)
        if not entries:
            return
        self.on_reconnect(Resent(len(entries)))
        try:
            for _, body, message in entries:
                self._send(body, message)
        except (errors.Reconnecting, errors.ConnectionClosed):
            return
        self._confirm()

    def _run_inputs(self, ready):
        for fd, handler in list(self._inputs.values()):
            if fd in ready:
                handler()
