#!/usr/bin/env python3
"""The demo's `login` and `login-success` screens, in Python, on the flowd_screens library
(Sources/python/flowd-screens, docs/screens-python.md). Their states and outputs are the demo's
protobuf messages flowd.demo.v1.CardState and CardOutput (proto/flowd/demo/v1/cards.proto), with
the classes scripts/generate-proto writes next to this file (cards_pb2.py). Two ways to run:

  spawned   flowd spawns one process per screen: the launcher app's factory
            runs `python3 scripts/screens/login_screen.py` with the connected
            socket on FLOWD_SOCKET_FD, the one-time FLOWD_TOKEN and
            FLOWD_SCREEN_KIND. It ends with its screen.
  attached  `login_screen.py --socket PATH` (or $FLOWD_SOCKET when
            FLOWD_SOCKET_FD is unset) connects to flowd's named socket and
            provides both login kinds for as long as flowd runs. The library
            reconnects and resumes after a drop (docs/protocol.md §19); giving
            up on it exits 1.

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

`python3 login_screen.py --check` exits 0 if flowd_screens, the protobuf
package it needs (>=4.21,<7) and cards_pb2 can be imported, else prints why and
exits 3. The library and protobuf are looked up normally, then in this
checkout: the library's source folder and .build-python/site (where
scripts/demo installs protobuf); cards_pb2 in this file's folder.
"""

import importlib
import json
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
# The checkout's library comes first: this screen goes with the library of its checkout.
sys.path.insert(0, os.path.join(ROOT, "Sources", "python", "flowd-screens"))
sys.path.append(os.path.join(ROOT, ".build-python", "site"))

if "--check" in sys.argv[1:]:
    try:
        importlib.import_module("flowd_screens")  # first: it says which protobuf to install
    except ImportError as error:
        print(error, file=sys.stderr)
        sys.exit(3)
    try:
        importlib.import_module("cards_pb2")
    except ImportError as error:
        print(f"cannot import cards_pb2, the demo's card messages, from {HERE}: {error}; "
              "scripts/generate-proto writes it from proto/flowd/demo/v1/cards.proto", file=sys.stderr)
        sys.exit(3)
    print("ok")
    sys.exit(0)

from flowd_screens import DismissReason, ExitReason, FlowdError, ScreenHost, errors  # noqa: E402
from flowd_screens.reconnect import GaveUp  # noqa: E402

from cards_pb2 import CardOutput, CardState, DidEnterText, DidPressButton  # noqa: E402

KINDS = ["login", "login-success"]
KIND = os.environ.get("FLOWD_SCREEN_KIND", "login")
# Who this process is in its log lines: the spawned kind, or "attached".
LABEL = KIND


def log(text):
    print(f"[python {LABEL} pid {os.getpid()}] {text}", file=sys.stderr, flush=True)


def field_text(state):
    """The text field's value in a CardState ("" when it has none)."""
    return state.text if state.HasField("text") else ""


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


class LoginScreens:
    """The login screens of one host (one when spawned, any number attached): what they log,
    the script's steps, and the terminal while one of them is visible."""

    def __init__(self, host, steps, tty, attached):
        self.host = host
        self.steps = steps
        self.tty = tty
        self.tty_input = None
        self.attached = attached
        self.editing = None
        self.replaces = False  # editing starts with the field's text selected
        self.status = ""
        self.gave_up = False
        for kind in KINDS:
            host.register(kind, self.placed, state=CardState, output=CardOutput)
        host.on_error = self.error
        host.on_reconnect = self.reconnect_event

    @property
    def screen(self):
        """The visible screen, else the one placed last (the only one, when spawned)."""
        screens = list(self.host.screens.values())
        visible = [screen for screen in screens if screen.placement.visible]
        return (visible or screens or [None])[-1]

    @property
    def visible(self):
        return self.screen is not None and self.screen.placement.visible

    # What flowd does to the screens.
    def placed(self, screen):
        log(f"+ {screen.kind} \"{screen.state.title}\" visible={self.visibility(screen)}")
        # A line half typed when this host's process (or the one before it) died: flowd kept it.
        if screen.saved_state:
            try:
                self.editing = json.loads(screen.saved_state)["editing"]
                self.replaces = False
                log(f"~ editing again what was typed: {self.editing!r}")
            except (ValueError, KeyError, TypeError):
                log("! the saved state is not this screen's; ignored")

        @screen.on_update
        def updated(state):
            log(f"~ updated: {state.body} [{field_text(state)}]")

        @screen.on_placement_changed
        def moved(change):
            log(f"~ {self.visibility(screen)}")

        @screen.on_dismiss
        def dismissed(dismissal):
            if dismissal.reason in (DismissReason.RESUMED, DismissReason.CONNECTION_LOST):
                why = "resumed" if dismissal.reason == DismissReason.RESUMED else "connection lost"
                log(f"- {screen.kind} forgotten ({why})")
                self.editing = None
            else:
                log(f"- dismissed ({dismissal.reason.name})")

    @staticmethod
    def visibility(screen):
        return "visible" if screen.placement.visible else "hidden"

    def error(self, error):
        log(f"! flowd: {error.message}")
        self.status = error.message

    def reconnect_event(self, event):
        log(str(event))
        self.gave_up = self.gave_up or isinstance(event, GaveUp)

    # Answers.
    def press(self, index):
        log(f"press {index + 1} \"{self.screen.state.buttons[index]}\"")
        self.screen.send(CardOutput(did_press_button=DidPressButton(index=index)))

    def enter_text(self, text):
        log(f"type \"{text}\"")
        self.screen.send(CardOutput(did_enter_text=DidEnterText(text=text)))

    def back(self):
        log("back")
        self.screen.back()

    def close_modal(self):
        log("close modal")
        self.screen.close_modal()

    def serve(self):
        """Until the session ends: frames, then the script's steps, then the terminal."""
        while True:
            reason = self.host.poll_once(None)
            if reason is not None:
                return reason
            try:
                self.run_steps()
            except errors.Reconnecting:
                pass  # the step runs again once the screen is back
            self.follow_tty()

    def follow_tty(self):
        """Reads the terminal's keys only while visible: a spawned login-success shares it with login."""
        if self.tty is None:
            return
        if self.visible:
            self.draw()
            if self.tty_input is None:
                self.tty_input = self.host.add_input(self.tty, self.read_key)
        elif self.tty_input is not None:
            self.host.remove_input(self.tty_input)
            self.tty_input = None

    def read_key(self):
        try:
            self.key(os.read(self.tty, 1))
        except errors.Reconnecting as reconnecting:
            self.status = reconnecting.message

    # Headless: the script's steps for our kind, in order.
    def run_steps(self):
        while self.steps and self.visible:
            line, kind, title, body, action, argument = self.steps[0]
            state = self.screen.state
            if kind != self.screen.kind:
                return
            if title and title not in state.title:
                return
            if body and body not in state.body:
                return
            log(f"[line {line}] {action} {argument or ''}".rstrip())
            buttons = list(state.buttons)
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
                self.back()
            elif action == "close":
                self.close_modal()
            elif action != "expect":
                log(f"script line {line}: {action} does not apply to {kind}")
                sys.exit(1)
            # Done only once sent: a step whose output a drop lost runs again after the resume.
            self.steps.pop(0)

    # Interactive: draw on the terminal, as wide as it is, read its keys while visible.
    def draw(self):
        state = self.screen.state
        try:
            width = max(20, os.get_terminal_size(self.tty).columns)
        except OSError:
            width = 80
        place = " › ".join(part for part in ["modal" if self.screen.placement.in_modal else "",
                                             f"stack depth {self.screen.placement.path[-1].index + 1}"] if part)
        header = f"flowd demo · {self.screen.kind} (Python, pid {os.getpid()})"
        lines = [(header + " " * max(1, width - len(header) - len(place)) + place)[:width], "",
                 "  " + state.title, "", "  " + state.body, ""]
        lines += [f"  [{i + 1}] {label}" for i, label in enumerate(state.buttons)]
        count = len(state.buttons)
        keys = ["1 press" if count == 1 else f"1-{count} press"]
        if state.HasField("field"):
            value = self.editing if self.editing is not None else field_text(state)
            lines += ["", f"  {state.field}: {value}" + ("_" if self.editing is not None else "")]
            keys.append("e edit")
        if self.screen.placement.can_go_back:
            keys.append("b back")
        if self.screen.placement.in_modal:
            keys.append("c close modal")
        keys.append("q quit")
        if self.editing is not None:
            keys = ["editing: typing replaces it, Backspace edits it, Enter sends, Esc cancels" if self.replaces
                    else "editing: type, Enter sends, Backspace erases, Esc cancels"]
        lines += ["", "─" * width, "keys: " + " · ".join(keys)]
        # The lines scripts/demo gives every screen host (how to attach flowctl), as the Swift screens show them.
        note = os.environ.get("FLOWD_DEMO_NOTE", "")
        for line in note.split("\n") if note else []:
            lines.append(line[:width])
        if self.status:
            lines.append(self.status[:width])
        os.write(self.tty, ("\x1b[H\x1b[2J" + "\r\n".join(lines)).encode())

    def save_editing(self):
        """Saves the line being typed with flowd (docs/protocol.md §19): a new process of this screen
        gets it back, so a crash loses nothing typed. Nothing saved when not editing."""
        screen = self.screen
        if screen is None:
            return
        try:
            screen.save_state(b"" if self.editing is None else json.dumps({"editing": self.editing}).encode())
        except FlowdError as error:
            log(f"! cannot save the line being typed: {error}")

    def key(self, byte):
        self.status = ""
        if self.editing is not None:
            self.edit_key(byte)
            self.save_editing()
            return
        self.command_key(byte)
        if self.editing is not None:
            self.save_editing()

    def edit_key(self, byte):
        if self.editing is not None:
            if byte in (b"\r", b"\n"):
                text, self.editing = self.editing, None
                self.enter_text(text)
            elif byte == b"\x1b":
                self.editing = None
            elif byte in (b"\x7f", b"\x08"):
                self.replaces = False
                self.editing = self.editing[:-1]
            elif byte >= b" ":
                if self.replaces:  # the field's text was selected: typing replaces it
                    self.editing, self.replaces = "", False
                self.editing += byte.decode(errors="ignore")

    def command_key(self, byte):
        buttons = self.screen.state.buttons
        if byte in (b"q", b"\x03", b"\x04"):
            if self.attached:
                log("quit: leaving flowd")
                self.host.close()
                sys.exit(0)
            log("quit: asking flowd (the parent) to stop")
            os.kill(os.getppid(), signal.SIGTERM)
        elif byte.isdigit() and 0 < int(byte) <= len(buttons):
            self.press(int(byte) - 1)
        elif byte == b"e" and self.screen.state.HasField("field"):
            self.editing = field_text(self.screen.state)
            self.replaces = bool(self.editing)
        elif byte == b"b" and self.screen.placement.can_go_back:
            self.back()
        elif byte == b"c" and self.screen.placement.in_modal:
            self.close_modal()


def socket_option():
    """The PATH of `--socket PATH`, if given."""
    args = sys.argv[1:]
    if "--socket" not in args:
        return None
    index = args.index("--socket")
    if index + 1 >= len(args):
        sys.exit("login_screen.py: --socket needs a PATH")
    return args[index + 1]


def open_tty():
    """The terminal in raw mode and its saved settings, or (None, None)."""
    try:
        import termios
        import tty as ttymodule
        tty = os.open("/dev/tty", os.O_RDWR)
        saved = termios.tcgetattr(tty)
        ttymodule.setraw(tty)
        return tty, saved
    except (OSError, ImportError):
        return None, None


def run(path, steps, tty):
    """Serves until the session ends; returns the exit status."""
    try:
        if path:
            host = ScreenHost.connect(path, name="login_screen.py (attached)", provides=KINDS)
        else:
            host = ScreenHost.from_environment(name=f"login_screen.py ({KIND})")
    except FlowdError as error:
        log(f"cannot connect to flowd{f' at {path}' if path else ''}: {error}")
        return 1
    log(f"connected to {host.daemon.server}, app {host.daemon.app}, as connection {host.daemon.connection_id}")
    screens = LoginScreens(host, steps, tty, attached=bool(path))
    try:
        reason = screens.serve()
    except FlowdError as error:
        log(f"session ended: {error}")
        return 1
    shutdown = f" {host.shutdown_reason.name}" if reason == ExitReason.SHUTDOWN else ""
    log(f"session ended: {reason.value}{shutdown}")
    return 1 if screens.gave_up else 0


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
    tty, saved = open_tty() if not script and os.environ.get("FLOWD_DEMO_TTY") else (None, None)

    # SIGTERM (flowd outlived by us) ends the loop through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        sys.exit(run(path, steps, tty))
    finally:
        if saved is not None:
            import termios
            termios.tcsetattr(tty, termios.TCSAFLUSH, saved)


if __name__ == "__main__":
    main()
