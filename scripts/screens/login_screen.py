#!/usr/bin/env python3
"""The demo's `login` and `login-success` screens, in Python.

Written from docs/protocol.md alone (framing, Hello with the spawn token,
Place/Update/PlacementChanged/Dismiss answered by Ack, Output as JSON, Ping,
Shutdown, resuming after a drop). Two ways to run:

  spawned   flowd spawns one process per screen: the launcher app's factory
            runs `python3 scripts/screens/login_screen.py` with the connected
            socket on FLOWD_SOCKET_FD, the one-time FLOWD_TOKEN and
            FLOWD_SCREEN_KIND. It ends with its screen.
  attached  `login_screen.py --socket PATH` (or $FLOWD_SOCKET when
            FLOWD_SOCKET_FD is unset) connects to flowd's named socket and
            provides both login kinds for as long as flowd runs. When the
            connection drops (end of stream, a reset, Shutdown(HUNG)) it
            connects again with the resume token of its latest Welcome
            (docs/protocol.md §19): 25 ms doubling to 500 ms between tries,
            giving up after the Welcome's resume grace plus 1 s (exit 1).
            Resumed, it forgets its screens and serves the Places that
            follow; refused (RESUME_REFUSED), it starts fresh without a token.

How it acts (docs/demo.md):
  DEMO_SCREENS_SCRIPT=FILE  headless: runs the file's steps for its own kind,
                            in order, each once its screen is visible and
                            matches (the demo-screens script format);
  FLOWD_DEMO_TTY=1          (scripts/demo, interactive) draws itself on
                            /dev/tty while visible and takes the keys there:
                            1-9 press, e edit, b back, c close modal, q quit
                            (spawned: asks flowd, its parent, to stop;
                            attached: leaves flowd);
  neither                   only logs what it is told.

`python3 login_screen.py --check` exits 0 if the protobuf package (>= 4.21,
< 5; the generated code in flowd/v1/ is from protoc 3.21) can be imported,
else prints why and exits 3. The package is looked up normally and in
.build-python/site of the repository (where scripts/demo installs it).
"""

import json
import os
import random
import re
import select
import signal
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.join(HERE, "..", "..", ".build-python", "site"))


def check_protobuf():
    """None if the protobuf package fits the generated code, else why not."""
    try:
        import google.protobuf
    except ImportError:
        return "the Python package protobuf is not installed (python3 -m pip install 'protobuf>=4.21,<5')"
    version = tuple(int(part) for part in re.findall(r"\d+", google.protobuf.__version__)[:2])
    if not (4, 21) <= version < (5, 0):
        return f"protobuf {google.protobuf.__version__} is installed; the generated code needs >=4.21,<5"
    return None


if "--check" in sys.argv[1:]:
    problem = check_protobuf()
    print(problem or "ok", file=sys.stderr if problem else sys.stdout)
    sys.exit(3 if problem else 0)

from flowd.v1 import control_pb2, envelope_pb2, handshake_pb2, screen_pb2  # noqa: E402

KINDS = ["login", "login-success"]
KIND = os.environ.get("FLOWD_SCREEN_KIND", "login")
MAX_FRAME = 1 << 20
# Who this process is in its log lines: the spawned kind, or "attached".
LABEL = KIND


def log(text):
    print(f"[python {LABEL} pid {os.getpid()}] {text}", file=sys.stderr, flush=True)


# --- The script format (docs/demo.md), only the steps for our kind ---------

TOKEN = re.compile(r'\s*(?:"([^"]*)"|(#.*)|([^\s"#]+)|(\S))')


def words(line, number):
    """The words of one line: ("quoted", text) or ("bare", text); `#` starts a comment."""
    found = []
    for quoted, comment, bare, stray in TOKEN.findall(line):
        if comment:
            break
        if stray:
            raise ValueError(f"script line {number}: a quote is not closed")
        found.append(("quoted", quoted) if bare == "" else ("bare", bare))
    return found


def parse_script(text, kinds):
    """Steps `(line, kind, title, body, action, argument)` of the `kinds`, in file order."""
    steps = []
    for number, line in enumerate(text.splitlines(), 1):
        rest = words(line, number)
        if not rest:
            continue
        if len(rest) < 3 or rest[0] != ("bare", "on") or rest[1][0] != "bare":
            raise ValueError(f'script line {number}: expected `on KIND ["TITLE"] [body "TEXT"] ACTION`')
        step_kind, rest = rest[1][1], rest[2:]
        title = body = None
        if rest and rest[0][0] == "quoted":
            title, rest = rest[0][1], rest[1:]
        if rest and rest[0] == ("bare", "body"):
            if len(rest) < 2 or rest[1][0] != "quoted":
                raise ValueError(f'script line {number}: `body` takes a "TEXT" in quotes')
            body, rest = rest[1][1], rest[2:]
        if not rest or rest[0][0] != "bare":
            raise ValueError(f"script line {number}: missing action after `on {step_kind}`")
        argument = rest[1][1] if len(rest) > 1 else None
        if step_kind in kinds:
            steps.append((number, step_kind, title, body, rest[0][1], argument))
    return steps


# --- The connection ---------------------------------------------------------

class ConnectionLost(ConnectionError):
    """The socket broke while sending: the daemon is gone or cut this connection off."""


class Refused(Exception):
    """flowd answered Hello with an Error (e.g. RESUME_REFUSED) instead of Welcome."""

    def __init__(self, error):
        super().__init__(error.message)
        self.error = error


class Connection:
    """Frames (uint32 little-endian length + Envelope) on a connected stream socket."""

    def __init__(self, sock):
        self.sock = sock
        self.seq = 0
        self.buffer = b""

    @classmethod
    def inherited(cls, fd):
        return cls(socket.socket(fileno=fd))

    @classmethod
    def attach(cls, path):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        return cls(sock)

    def send(self, body, message, reply_to=0):
        self.seq += 1
        envelope = envelope_pb2.Envelope(seq=self.seq, reply_to=reply_to)
        getattr(envelope, body).CopyFrom(message)
        data = envelope.SerializeToString()
        try:
            self.sock.sendall(struct.pack("<I", len(data)) + data)
        except (BrokenPipeError, ConnectionResetError) as error:
            raise ConnectionLost(f"sending {body}: {error}") from error

    def frames(self):
        """Reads what is available; returns the complete envelopes (None at end of stream or a reset)."""
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            return None
        if not chunk:
            return None
        self.buffer += chunk
        envelopes = []
        while len(self.buffer) >= 4:
            (length,) = struct.unpack("<I", self.buffer[:4])
            if length == 0 or length > MAX_FRAME:
                raise RuntimeError(f"bad frame length {length}")
            if len(self.buffer) < 4 + length:
                break
            envelope = envelope_pb2.Envelope()
            envelope.ParseFromString(self.buffer[4:4 + length])
            self.buffer = self.buffer[4 + length:]
            envelopes.append(envelope)
        return envelopes

    def handshake(self, hello, timeout=5.0):
        """Sends Hello, waits for Welcome (None: for ever); returns it and the frames that came after
        it. Raises Refused for an Error, ConnectionLost if the socket ends or nothing comes in time."""
        self.send("hello", hello)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready:
                raise ConnectionLost(f"no Welcome within {timeout} s")
            envelopes = self.frames()
            if envelopes is None:
                raise ConnectionLost("closed before Welcome")
            if not envelopes:
                continue
            first = envelopes[0]
            body = first.WhichOneof("body")
            if body == "welcome":
                return first.welcome, envelopes[1:]
            raise Refused(first.error if body == "error" else control_pb2.Error(message=f"flowd answered Hello with {body}"))

    def close(self):
        self.sock.close()


class Screen:
    """The one screen this process hosts."""

    def __init__(self, place):
        self.id = place.screen_id
        self.kind = place.kind
        self.state = json.loads(place.state.data or b"{}")
        self.placement = place.placement

    @property
    def in_modal(self):
        return any(element.presented for element in self.placement.path)

    @property
    def can_go_back(self):
        path = self.placement.path
        return len(path) >= 2 and path[-2].kind == screen_pb2.NODE_KIND_STACK and path[-1].index > 0


class LoginHost:
    """The login screens this process hosts: one when spawned, any number attached."""

    def __init__(self, connection, steps, tty, attached=False):
        self.connection = connection
        self.steps = steps
        self.tty = tty
        self.attached = attached
        self.screens = {}
        self.editing = None
        self.status = ""
        # Input keys (docs/protocol.md §20): every output and navigation gets one and is kept until
        # the Pong of the Ping sent after it confirms it; after a drop the rest is sent again.
        self.key_base = random.getrandbits(62) + 1
        self.next_input = 1
        self.unconfirmed = []  # (number, body name, message)

    @property
    def screen(self):
        """The visible screen, else the one placed last (the only one, when spawned)."""
        visible = [screen for screen in self.screens.values() if screen.placement.visible]
        if visible:
            return visible[-1]
        return next(reversed(self.screens.values()), None)

    # Sending.
    def send_input(self, body, message):
        """Sends an output or navigation with its key, then a Ping whose Pong confirms it."""
        number = self.next_input
        self.next_input += 1
        message.key = self.key_base + number
        self.connection.send(body, message)
        self.unconfirmed.append((number, body, message))
        self.connection.send("ping", control_pb2.Ping(nonce=number))

    def resend_unconfirmed(self):
        """On a new connection: the inputs no Pong confirmed, again with their keys (flowd applies each once)."""
        if self.unconfirmed:
            log(f"sending again {len(self.unconfirmed)} input(s) flowd had not confirmed")
        for number, body, message in self.unconfirmed:
            self.connection.send(body, message)
            self.connection.send("ping", control_pb2.Ping(nonce=number))

    def output(self, value):
        payload = screen_pb2.Payload(content_type="application/json", data=json.dumps(value).encode())
        self.send_input("output", screen_pb2.Output(screen_id=self.screen.id, payload=payload))

    def press(self, index):
        log(f"press {index + 1} \"{self.screen.state['buttons'][index]}\"")
        self.output({"didPressButton": {"index": index}})

    def enter_text(self, text):
        log(f"type \"{text}\"")
        self.output({"didEnterText": {"_0": text}})

    def navigate(self, action):
        log(action.replace("_", " "))
        navigation = screen_pb2.UserNavigation(screen_id=self.screen.id)
        getattr(navigation, action).SetInParent()
        self.send_input("user_navigation", navigation)

    # Receiving.
    def handle(self, envelope):
        """Applies one frame; returns None while the session goes on, else how it ended:
        "hung" (Shutdown(HUNG): resume), "shutdown" (any other Shutdown) or "fatal"."""
        body = envelope.WhichOneof("body")
        if body == "place":
            screen = Screen(envelope.place)
            self.screens[screen.id] = screen
            log(f"+ {screen.kind} \"{screen.state.get('title', '')}\" visible={self.placement_text(screen)}")
            self.ack(envelope.place.screen_id, envelope.place.serial)
        elif body == "update":
            screen = self.screens.get(envelope.update.screen_id)
            if screen:
                screen.state = json.loads(envelope.update.state.data or b"{}")
                log(f"~ updated: {screen.state.get('body', '')} [{screen.state.get('text', '')}]")
            self.ack(envelope.update.screen_id, envelope.update.serial)
        elif body == "placement_changed":
            screen = self.screens.get(envelope.placement_changed.screen_id)
            if screen:
                screen.placement = envelope.placement_changed.placement
                log(f"~ {self.placement_text(screen)}")
            self.ack(envelope.placement_changed.screen_id, envelope.placement_changed.serial)
        elif body == "dismiss":
            log(f"- dismissed ({screen_pb2.Dismiss.Reason.Name(envelope.dismiss.reason)})")
            self.screens.pop(envelope.dismiss.screen_id, None)
            self.ack(envelope.dismiss.screen_id, envelope.dismiss.serial)
        elif body == "ping":
            self.connection.send("pong", control_pb2.Pong(nonce=envelope.ping.nonce), reply_to=envelope.seq)
        elif body == "pong":
            confirmed = envelope.pong.nonce
            self.unconfirmed = [entry for entry in self.unconfirmed if entry[0] > confirmed]
        elif body == "error":
            error = envelope.error
            log(f"! flowd: {error.message}")
            self.status = error.message
            if error.fatal:
                return "fatal"
        elif body == "shutdown":
            reason = envelope.shutdown.reason
            log(f"session ended: {control_pb2.Shutdown.Reason.Name(reason)}")
            return "hung" if reason == control_pb2.Shutdown.REASON_HUNG else "shutdown"
        return None

    def ack(self, screen_id, serial):
        self.connection.send("ack", screen_pb2.Ack(screen_id=screen_id, serial=serial))

    def forget(self, why):
        """Drops every screen of a connection that is gone (§19: resumed ones are placed again)."""
        for screen in self.screens.values():
            log(f"- {screen.kind} forgotten ({why})")
        self.screens = {}
        self.editing = None

    @staticmethod
    def placement_text(screen):
        return "visible" if screen and screen.placement.visible else "hidden"

    @property
    def visible(self):
        return self.screen is not None and self.screen.placement.visible

    # Headless: the script's steps for our kind, in order.
    def run_steps(self):
        while self.steps and self.visible:
            line, kind, title, body, action, argument = self.steps[0]
            state = self.screen.state
            if kind != self.screen.kind:
                return
            if title and title not in state.get("title", ""):
                return
            if body and body not in state.get("body", ""):
                return
            log(f"[line {line}] {action} {argument or ''}".rstrip())
            buttons = state.get("buttons", [])
            if action == "press":
                if argument.isdigit():
                    index = int(argument) - 1
                else:
                    matches = [i for i, label in enumerate(buttons) if label == argument] or \
                              [i for i, label in enumerate(buttons) if argument in label]
                    index = matches[0] if matches else -1
                if not 0 <= index < len(buttons):
                    log(f"script line {line}: no button {argument} in {buttons}")
                    sys.exit(1)
                self.press(index)
            elif action == "type":
                self.enter_text(argument)
            elif action == "back":
                self.navigate("back")
            elif action == "close":
                self.navigate("close_modal")
            elif action != "expect":
                log(f"script line {line}: {action} does not apply to {kind}")
                sys.exit(1)
            # Done only once sent: a step whose output a drop lost runs again after the resume.
            self.steps.pop(0)

    # Interactive: draw on the terminal, read its keys while visible.
    def draw(self):
        state = self.screen.state
        place = " › ".join(part for part in ["modal" if self.screen.in_modal else "",
                                             f"stack depth {self.screen.placement.path[-1].index + 1}"] if part)
        header = f"flowd demo · {self.screen.kind} (Python, pid {os.getpid()})"
        lines = [(header + " " * max(1, 80 - len(header) - len(place)) + place)[:80], "",
                 "  " + state.get("title", ""), "", "  " + state.get("body", ""), ""]
        lines += [f"  [{i + 1}] {label}" for i, label in enumerate(state.get("buttons", []))]
        count = len(state.get("buttons", []))
        keys = ["1 press" if count == 1 else f"1-{count} press"]
        if state.get("field") is not None:
            text = self.editing if self.editing is not None else state.get("text", "")
            lines += ["", f"  {state['field']}: {text}" + ("_" if self.editing is not None else "")]
            keys.append("e edit")
        if self.screen.can_go_back:
            keys.append("b back")
        if self.screen.in_modal:
            keys.append("c close modal")
        keys.append("q quit")
        if self.editing is not None:
            keys = ["editing: type, Enter sends, Esc cancels"]
        lines += ["", "─" * 80, "keys: " + " · ".join(keys)]
        if self.status:
            lines.append(self.status[:80])
        os.write(self.tty, ("\x1b[H\x1b[2J" + "\r\n".join(lines)).encode())

    def key(self, byte):
        self.status = ""
        if self.editing is not None:
            if byte in (b"\r", b"\n"):
                text, self.editing = self.editing, None
                self.enter_text(text)
            elif byte == b"\x1b":
                self.editing = None
            elif byte in (b"\x7f", b"\x08"):
                self.editing = self.editing[:-1]
            elif byte >= b" ":
                self.editing += byte.decode(errors="ignore")
            return
        buttons = self.screen.state.get("buttons", [])
        if byte in (b"q", b"\x03", b"\x04"):
            if self.attached:
                log("quit: leaving flowd")
                self.connection.send("shutdown", control_pb2.Shutdown())
                sys.exit(0)
            log("quit: asking flowd (the parent) to stop")
            os.kill(os.getppid(), signal.SIGTERM)
        elif byte.isdigit() and 0 < int(byte) <= len(buttons):
            self.press(int(byte) - 1)
        elif byte == b"e" and self.screen.state.get("field") is not None:
            self.editing = self.screen.state.get("text", "")
        elif byte == b"b" and self.screen.can_go_back:
            self.navigate("back")
        elif byte == b"c" and self.screen.in_modal:
            self.navigate("close_modal")


class Resumer:
    """Brings an attached host back after a drop (docs/protocol.md §19): connects again with the
    resume token of the latest Welcome, 25 ms doubling to 500 ms between tries, until the
    Welcome's resume grace plus a margin has passed."""

    FIRST_DELAY, MAX_DELAY, MARGIN = 0.025, 0.5, 1.0

    def __init__(self, path, hello):
        self.path = path
        self.hello = hello
        self.token = ""
        self.grace = 0.0

    def welcomed(self, welcome):
        self.token = welcome.resume_token
        self.grace = welcome.resume_grace_ms / 1000

    def reconnect(self, host):
        """Returns a new connection and the frames after its Welcome; exits 1 if no try succeeds in time."""
        deadline = time.monotonic() + self.grace + self.MARGIN
        wait, attempts = self.FIRST_DELAY, 0
        while True:
            time.sleep(wait)
            attempts += 1
            hello = handshake_pb2.Hello()
            hello.CopyFrom(self.hello)
            hello.resume_token = self.token
            connection = None
            try:
                connection = Connection.attach(self.path)
                welcome, pending = connection.handshake(hello)
            except Refused as refused:
                connection.close()
                if refused.error.code != control_pb2.ERROR_CODE_RESUME_REFUSED:
                    log(f"flowd refused the host: {refused.error.message}")
                    sys.exit(1)
                log(f"flowd refused to resume ({refused.error.message}); starting fresh without a token")
                host.forget("connection lost")
                self.token, wait = "", 0
                continue
            except OSError as error:  # nobody listens yet, the handshake broke (ConnectionLost too)
                if connection is not None:
                    connection.close()
                left = deadline - time.monotonic()
                if left <= 0:
                    log(f"gave up reconnecting to {self.path} after {attempts} tries: {error}")
                    sys.exit(1)
                wait = min(max(wait * 2, self.FIRST_DELAY), self.MAX_DELAY, left)
                continue
            host.forget("resumed" if welcome.resumed else "connection lost")
            self.welcomed(welcome)
            log(f"reconnected as connection {welcome.connection_id} after {attempts} tr{'y' if attempts == 1 else 'ies'}; "
                + ("resumed" if welcome.resumed else "a fresh start"))
            return connection, pending


def serve(connection, host, envelopes):
    """Serves one connection, starting with frames already read; returns how it ended: "closed"
    (end of stream or a reset), "hung", "shutdown" or "fatal". Raises ConnectionLost when a send
    finds the socket broken."""
    while True:
        for envelope in envelopes:
            ended = host.handle(envelope)
            if ended:
                return ended
        host.run_steps()
        if host.tty is not None and host.visible:
            host.draw()
        readers = [connection.sock] + ([host.tty] if host.tty is not None and host.visible else [])
        ready, _, _ = select.select(readers, [], [])
        if host.tty is not None and host.tty in ready and host.visible:
            host.key(os.read(host.tty, 1))
            host.draw()
        envelopes = []
        if connection.sock in ready:
            envelopes = connection.frames()
            if envelopes is None:
                return "closed"


def run_spawned(fd, token, steps, tty):
    """One screen on the inherited socket, until flowd ends the session."""
    connection = Connection.inherited(int(fd))
    hello = handshake_pb2.Hello(min_version=1, max_version=1, role=handshake_pb2.ROLE_SCREEN_HOST,
                                token=token, name=f"login_screen.py ({KIND})", pid=os.getpid())
    try:
        welcome, pending = connection.handshake(hello, timeout=None)
    except Refused as refused:
        log(f"flowd refused the handshake: {refused.error.message}")
        sys.exit(1)
    except ConnectionLost:
        log("session ended: connection closed")
        return
    log(f"connected to {welcome.server}, app {welcome.app}")
    if serve(connection, LoginHost(connection, steps, tty), pending) == "closed":
        log("session ended: connection closed")


def run_attached(path, steps, tty):
    """Both login kinds on flowd's named socket, resuming after drops, until flowd ends the session."""
    hello = handshake_pb2.Hello(min_version=1, max_version=1, role=handshake_pb2.ROLE_SCREEN_HOST,
                                name="login_screen.py (attached)", provides=KINDS, pid=os.getpid())
    try:
        connection = Connection.attach(path)
        welcome, pending = connection.handshake(hello)
    except (OSError, Refused) as error:
        sys.exit(f"login_screen.py: cannot connect to flowd at {path}: {error}")
    log(f"connected to {welcome.server}, app {welcome.app}, as connection {welcome.connection_id}")
    host = LoginHost(connection, steps, tty, attached=True)
    resumer = Resumer(path, hello)
    resumer.welcomed(welcome)
    while True:
        try:
            ended = serve(connection, host, pending)
        except ConnectionLost as lost:
            log(f"connection lost: {lost}")
            ended = "closed"
        connection.close()
        if ended == "closed":
            log("connection closed")
        if ended not in ("closed", "hung") or not resumer.token:
            sys.exit(1 if ended == "fatal" else 0)
        log(f"reconnecting to {path} to resume {len(host.screens)} screen(s)")
        connection, pending = resumer.reconnect(host)
        host.connection = connection
        host.resend_unconfirmed()


def socket_option():
    """The PATH of `--socket PATH`, if given."""
    args = sys.argv[1:]
    if "--socket" not in args:
        return None
    index = args.index("--socket")
    if index + 1 >= len(args):
        sys.exit("login_screen.py: --socket needs a PATH")
    return args[index + 1]


def main():
    global LABEL
    fd, token = os.environ.get("FLOWD_SOCKET_FD"), os.environ.get("FLOWD_TOKEN")
    path = socket_option() or (None if fd else os.environ.get("FLOWD_SOCKET"))
    if not path and (not fd or not token):
        sys.exit("login_screen.py: FLOWD_SOCKET_FD and FLOWD_TOKEN are not set; flowd starts this screen, "
                 "or attach it with --socket PATH (docs/demo.md)")
    if path:
        LABEL = "attached"
    steps = []
    script = os.environ.get("DEMO_SCREENS_SCRIPT")
    if script:
        with open(script, encoding="utf-8") as file:
            steps = parse_script(file.read(), KINDS if path else [KIND])
    tty, saved = None, None
    if not script and os.environ.get("FLOWD_DEMO_TTY"):
        try:
            import termios
            import tty as ttymodule
            tty = os.open("/dev/tty", os.O_RDWR)
            saved = termios.tcgetattr(tty)
            ttymodule.setraw(tty)
        except (OSError, ImportError):
            tty = None

    # SIGTERM (flowd outlived by us) ends the loop through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        if path:
            run_attached(path, steps, tty)
        else:
            run_spawned(fd, token, steps, tty)
    finally:
        if saved is not None:
            import termios
            termios.tcsetattr(tty, termios.TCSAFLUSH, saved)


if __name__ == "__main__":
    main()
