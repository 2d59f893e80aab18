#!/usr/bin/env python3
"""The demo's `login` and `login-success` screens, in Python.

Written from docs/protocol.md alone (framing, Hello with the spawn token,
Place/Update/PlacementChanged/Dismiss answered by Ack, Output as JSON, Ping,
Shutdown). flowd spawns one process per screen: the launcher app's factory
runs `python3 scripts/screens/login_screen.py` with the connected socket on
FLOWD_SOCKET_FD, the one-time FLOWD_TOKEN and FLOWD_SCREEN_KIND.

How it acts (docs/demo.md):
  DEMO_SCREENS_SCRIPT=FILE  headless: runs the file's steps for its own kind,
                            in order, each once its screen is visible and
                            matches (the demo-screens script format);
  FLOWD_DEMO_TTY=1          (scripts/demo, interactive) draws itself on
                            /dev/tty while visible and takes the keys there:
                            1-9 press, e edit, b back, c close modal, q quit;
  neither                   only logs what it is told.

`python3 login_screen.py --check` exits 0 if the protobuf package (>= 4.21,
< 5; the generated code in flowd/v1/ is from protoc 3.21) can be imported,
else prints why and exits 3. The package is looked up normally and in
.build-python/site of the repository (where scripts/demo installs it).
"""

import json
import os
import re
import signal
import socket
import struct
import sys

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

KIND = os.environ.get("FLOWD_SCREEN_KIND", "login")
MAX_FRAME = 1 << 20


def log(text):
    print(f"[python {KIND} pid {os.getpid()}] {text}", file=sys.stderr, flush=True)


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


def parse_script(text, kind):
    """Steps `(line, title, body, action, argument)` of `kind`, in file order."""
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
        if step_kind == kind:
            steps.append((number, title, body, rest[0][1], argument))
    return steps


# --- The connection ---------------------------------------------------------

class Connection:
    """Frames (uint32 little-endian length + Envelope) on the inherited socket."""

    def __init__(self, fd):
        self.sock = socket.socket(fileno=fd)
        self.seq = 0
        self.buffer = b""

    def send(self, body, message, reply_to=0):
        self.seq += 1
        envelope = envelope_pb2.Envelope(seq=self.seq, reply_to=reply_to)
        getattr(envelope, body).CopyFrom(message)
        data = envelope.SerializeToString()
        self.sock.sendall(struct.pack("<I", len(data)) + data)

    def frames(self):
        """Reads what is available; returns the complete envelopes (None at end of stream)."""
        chunk = self.sock.recv(65536)
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


class LoginScreen:
    def __init__(self, connection, steps, tty):
        self.connection = connection
        self.steps = steps
        self.tty = tty
        self.screen = None
        self.editing = None
        self.status = ""

    # Sending.
    def output(self, value):
        payload = screen_pb2.Payload(content_type="application/json", data=json.dumps(value).encode())
        self.connection.send("output", screen_pb2.Output(screen_id=self.screen.id, payload=payload))

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
        self.connection.send("user_navigation", navigation)

    # Receiving.
    def handle(self, envelope):
        """Applies one frame; returns False once the session is over."""
        body = envelope.WhichOneof("body")
        if body == "place":
            self.screen = Screen(envelope.place)
            log(f"+ {self.screen.kind} \"{self.screen.state.get('title', '')}\" visible={self.placement_text()}")
            self.ack(envelope.place.screen_id, envelope.place.serial)
        elif body == "update":
            if self.screen and self.screen.id == envelope.update.screen_id:
                self.screen.state = json.loads(envelope.update.state.data or b"{}")
                log(f"~ updated: {self.screen.state.get('body', '')} [{self.screen.state.get('text', '')}]")
            self.ack(envelope.update.screen_id, envelope.update.serial)
        elif body == "placement_changed":
            if self.screen and self.screen.id == envelope.placement_changed.screen_id:
                self.screen.placement = envelope.placement_changed.placement
                log(f"~ {self.placement_text()}")
            self.ack(envelope.placement_changed.screen_id, envelope.placement_changed.serial)
        elif body == "dismiss":
            log(f"- dismissed ({screen_pb2.Dismiss.Reason.Name(envelope.dismiss.reason)})")
            self.screen = None
            self.ack(envelope.dismiss.screen_id, envelope.dismiss.serial)
        elif body == "ping":
            self.connection.send("pong", control_pb2.Pong(nonce=envelope.ping.nonce), reply_to=envelope.seq)
        elif body == "error":
            error = envelope.error
            log(f"! flowd: {error.message}")
            self.status = error.message
            if error.fatal:
                return False
        elif body == "shutdown":
            log(f"session ended: {control_pb2.Shutdown.Reason.Name(envelope.shutdown.reason)}")
            return False
        return True

    def ack(self, screen_id, serial):
        self.connection.send("ack", screen_pb2.Ack(screen_id=screen_id, serial=serial))

    def placement_text(self):
        return "visible" if self.screen and self.screen.placement.visible else "hidden"

    @property
    def visible(self):
        return self.screen is not None and self.screen.placement.visible

    # Headless: the script's steps for our kind, in order.
    def run_steps(self):
        while self.steps and self.visible:
            line, title, body, action, argument = self.steps[0]
            state = self.screen.state
            if title and title not in state.get("title", ""):
                return
            if body and body not in state.get("body", ""):
                return
            self.steps.pop(0)
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
                log(f"script line {line}: {action} does not apply to {KIND}")
                sys.exit(1)

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


def main():
    fd, token = os.environ.get("FLOWD_SOCKET_FD"), os.environ.get("FLOWD_TOKEN")
    if not fd or not token:
        sys.exit("login_screen.py: FLOWD_SOCKET_FD and FLOWD_TOKEN are not set; flowd starts this screen (docs/demo.md)")
    steps = []
    script = os.environ.get("DEMO_SCREENS_SCRIPT")
    if script:
        with open(script, encoding="utf-8") as file:
            steps = parse_script(file.read(), KIND)
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
    connection = Connection(int(fd))
    hello = handshake_pb2.Hello(min_version=1, max_version=1, role=handshake_pb2.ROLE_SCREEN_HOST,
                                token=token, name=f"login_screen.py ({KIND})", pid=os.getpid())
    connection.send("hello", hello)
    screen = LoginScreen(connection, steps, tty)
    try:
        import select
        welcomed = False
        while True:
            readers = [connection.sock] + ([tty] if tty is not None and screen.visible else [])
            ready, _, _ = select.select(readers, [], [])
            if tty in ready and screen.visible:
                screen.key(os.read(tty, 1))
                screen.draw()
            if connection.sock not in ready:
                continue
            envelopes = connection.frames()
            if envelopes is None:
                log("session ended: connection closed")
                return
            for envelope in envelopes:
                if not welcomed:
                    if envelope.WhichOneof("body") != "welcome":
                        log(f"flowd refused the handshake: {envelope.error.message}")
                        sys.exit(1)
                    welcomed = True
                    log(f"connected to {envelope.welcome.server}, app {envelope.welcome.app}")
                    continue
                if not screen.handle(envelope):
                    return
            screen.run_steps()
            if tty is not None and screen.visible:
                screen.draw()
    finally:
        if saved is not None:
            import termios
            termios.tcsetattr(tty, termios.TCSAFLUSH, saved)


if __name__ == "__main__":
    main()
