#!/usr/bin/env python3
"""The GTK 4 host of the demo (Sources/c/flowd-gtk, docs/native.md) under Xvfb: it walks the whole
demo walkthrough by pressing its widgets, and after every step its widget tree must say what
`flowctl tree --json` says (the same screens, in the same stacks, tab bars and modal windows, the
same one visible). Then: a cut connection resumes onto the same screen, and a killed spawned GTK
process is restarted with its screen. scripts/test runs it.

    python3 Tests/GTK/gtk_tests.py --bin .build/debug --gtk .build/c/flowd-gtk/flowd-gtk [--screenshots docs/native]
"""

import argparse
import base64
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from flowd_process import FlowdProcess  # noqa: E402

WALK = os.path.join(ROOT, "scripts", "demo-walkthrough.txt")


@contextlib.contextmanager
def flowd(context, arguments, environment):
    """flowd ARGUMENTS on a socket in a new short directory, killed and removed afterwards."""
    directory = tempfile.mkdtemp(prefix="fgk-", dir="/tmp")
    daemon = FlowdProcess(context.flowd, arguments, directory, environment=environment)
    try:
        yield daemon
    finally:
        daemon.close()
        shutil.rmtree(directory, ignore_errors=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Display:
    """A private Xvfb; its number from -displayfd."""

    def __init__(self):
        read, write = os.pipe()
        self.process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                                        pass_fds=[write], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(read, 16)
            if not chunk:
                raise RuntimeError("Xvfb did not start")
            number += chunk
        os.close(read)
        self.name = ":" + number.decode().strip()

    def close(self):
        self.process.terminate()
        self.process.wait()


class Gtk:
    """flowd-gtk with its test channel (--control): one command, one answer."""

    def __init__(self, binary, socket_path, display, log_path):
        environment = dict(os.environ, DISPLAY=display, GSK_RENDERER="cairo", GTK_A11Y="none", NO_AT_BRIDGE="1")
        self.log = open(log_path, "w")
        self.process = subprocess.Popen([binary, "--socket", socket_path, "--control"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, env=environment, text=True, bufsize=1)

    def send(self, line):
        """The lines of the answer, the last one being `ok ...` (raises on `error ...`)."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            answer = self.process.stdout.readline()
            if not answer:
                raise AssertionError(f"flowd-gtk ended while answering {line!r} (exit {self.process.wait()})")
            answer = answer.rstrip("\n")
            lines.append(answer)
            if answer == "ok" or answer.startswith("ok ") or answer.startswith("error "):
                break
        if lines[-1].startswith("error "):
            raise AssertionError(f"{line!r}: {lines[-1]}")
        return lines

    def front(self):
        """(id, kind, title, body) of the screen in front."""
        self.send("sync")
        answer = self.send("front")[-1]
        match = re.fullmatch(r'ok (\d+) (\S+) "(.*)" "(.*)"', answer, re.S)
        check(match, f"front: {answer}")
        return int(match[1]), match[2], match[3], match[4]

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


# ---- The widget tree against flowctl tree ---------------------------------------------------------

def tree_screens(tree):
    """{screen id: (kind, modal root, containers since it)} and the visible screen, from flowctl's JSON."""
    found, visible = {}, []

    def walk(node, root, containers):
        kind = node.get("kind")
        node_id = int(node["id"])
        if kind in ("NODE_KIND_STACK", "NODE_KIND_TAB_BAR"):
            containers = containers + [node_id]
        if kind == "NODE_KIND_SCREEN":
            screen = node.get("screen", {})
            found[node_id] = (screen.get("kind"), root, containers)
            if screen.get("visible"):
                visible.append(node_id)
        for child in node.get("children", []):
            walk(child, root, containers)
        presented = node.get("presented")
        if presented:
            walk(presented, int(presented["id"]), [])

    walk(tree["window"], 0, [])
    return found, visible


def dump_screens(lines):
    """The same from flowd-gtk's `dump`, and the front screen of its front window."""
    found, front = {}, None
    root, stack = 0, []
    for line in lines[:-1]:
        window = re.match(r'window (?:modal |display \S+ )?(\d+)(?: in \d+)? ".*" back=\w+ front=(\d+)', line)
        if window:
            root, front, stack = int(window[1]), int(window[2]), []
            continue
        depth = (len(line) - len(line.lstrip(" "))) // 2
        text = line.strip().removeprefix("* ")
        stack = stack[:depth - 1]
        container = re.match(r"(stack|tabs) (\d+)", text)
        if container:
            stack.append(int(container[2]))
            continue
        screen = re.match(r'screen (\d+) (\S+)', text)
        if screen:
            found[int(screen[1])] = (screen[2], root, list(stack))
    return found, front


def agree(gtk, bin_dir, socket_path, where):
    """The GTK widgets show what flowd's model holds."""
    gtk.send("sync")
    tree = json.loads(subprocess.run([os.path.join(bin_dir, "flowctl"), "tree", "--json", "--socket", socket_path],
                                     check=True, capture_output=True, text=True).stdout)
    model, visible = tree_screens(tree)
    drawn, front = dump_screens(gtk.send("dump"))
    check(drawn == model, f"{where}: the widgets\n  {drawn}\nand flowd's tree\n  {model}\ndiffer")
    check(visible == [front], f"{where}: flowd shows {visible}, the front window {front}")


# ---- The walk ---------------------------------------------------------------------------------------

STEP = re.compile(r'on (\S+)(?: "([^"]*)")?(?: body "([^"]*)")? (press|type|back|tab|close|expect)(?: (.*))?$')


def walk(gtk, bin_dir, socket_path, screenshots, shots):
    """Every step of scripts/demo-walkthrough.txt, by the widgets; the tree compared after each."""
    steps = 0
    for number, line in enumerate(open(WALK, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        step = STEP.match(line)
        check(step, f"walkthrough line {number}: {line}")
        kind, title, body, action, argument = step.groups()
        deadline = time.monotonic() + 10
        while True:  # the screen the step is for, once flowd placed it
            _, front_kind, front_title, front_body = gtk.front()
            if front_kind == kind and (title is None or front_title == title) and (body is None or front_body.startswith(body)):
                break
            check(time.monotonic() < deadline, f"line {number} ({line}): in front is {front_kind} {front_title!r} {front_body!r}")
            time.sleep(0.05)
        name = shots.get(line)
        if screenshots and name:
            gtk.send(f"shot {os.path.join(screenshots, name)}")
        if action == "press":
            gtk.send("press " + shlex.split(argument)[0])
        elif action == "type":
            gtk.send("type " + shlex.split(argument)[0])
        elif action == "back":
            gtk.send("back")
        elif action == "tab":
            gtk.send("tab " + argument)
        elif action == "close":
            gtk.send("close")  # the modal window's close button
        steps += 1
        if line.startswith("on menu press \"Quit\""):
            break
        agree(gtk, bin_dir, socket_path, f"after line {number} ({line})")
    return steps


# Screenshots for docs/native.md, taken before the step's action.
SHOTS = {
    'on tutorial "Welcome" press "Next"': "gtk-tutorial.png",
    'on student-name "Edit Ann" press "Edit age"': "gtk-student-editor.png",
    'on directory-detail "Party" body "In Events" tab 1': "gtk-contacts-events-tab.png",
    'on directory "Contacts" press "Ann"': "gtk-contacts-modal-tabs.png",
    'on menu press "Onboarding tutorial"': "gtk-menu.png",
}


def test_walk(context):
    with flowd(context, ["serve", "--app", "launcher"], {"FLOWD_PYTHON_SCREENS": "0"}) as daemon:
        gtk = Gtk(context.gtk, daemon.socket_path, context.display, os.path.join(daemon.directory, "gtk.log"))
        try:
            agree(gtk, context.bin, daemon.socket_path, "at the start")
            shots = dict(SHOTS) if context.screenshots else {'on tutorial "Welcome" press "Next"': "tutorial.png"}
            target = context.screenshots or daemon.directory
            steps = walk(gtk, context.bin, daemon.socket_path, target, shots)
            check(steps > 50, f"only {steps} steps walked")
            check(daemon.process.wait(15) == 0, "flowd exits 0 after the launcher's Quit")
            check(gtk.process.wait(10) == 0, "flowd-gtk exits 0 when flowd ends the session")
            png = os.path.join(target, "tutorial.png" if not context.screenshots else "gtk-tutorial.png")
            with open(png, "rb") as file:
                check(file.read(8) == b"\x89PNG\r\n\x1a\n", f"{png} is a PNG")
            print(f"  walked {steps} steps of {os.path.relpath(WALK, ROOT)}; the widgets agreed with flowctl tree after each")
        finally:
            gtk.close()


def open_editor_of_ann(gtk):
    """From the launcher's menu, the student editor's "Edit Ann": returns the front screen then."""
    gtk.front()
    gtk.send("press Student editor")
    gtk.front()
    gtk.send("press Ann (20)")
    front = gtk.front()
    check(front[1:3] == ("student-name", "Edit Ann"), f"in front: {front}")
    return front


def test_text_typed_without_enter_goes_before_a_press(context):
    """The rule of every card host (docs/demo.md, "Screen contracts"): a name typed into the login's field
    without Enter is sent before the press of Log in, so the login takes it; a second press does not send
    it again; a field left as it was sends nothing (the profile keeps its name)."""
    with flowd(context, ["serve", "--app", "launcher"], {"FLOWD_PYTHON_SCREENS": "0"}) as daemon:
        gtk = Gtk(context.gtk, daemon.socket_path, context.display, os.path.join(daemon.directory, "gtk.log"))
        try:
            gtk.front()
            gtk.send("press Log in")
            check(gtk.front()[1] == "login", f"the login in front: {gtk.front()}")
            gtk.send("fill bob")  # typed, no Enter
            gtk.send("press Log in")
            deadline = time.monotonic() + 15
            while (front := gtk.front())[1:3] != ("login-success", "Welcome, bob"):
                check(front[3] != "Enter a user name first.", "the press went without the typed name")
                check(time.monotonic() < deadline, f"in front: {front}")
                time.sleep(0.05)
            outputs = subprocess.run([os.path.join(context.bin, "flowctl"), "history", "--json", "--socket", daemon.socket_path],
                                     check=True, capture_output=True, text=True).stdout
            texts = [json.loads(base64.b64decode(i["payload"]["data"])) for i in json.loads(outputs)["inputs"]
                     if i.get("screenKind") == "login" and i.get("kind") == "output"]
            check(texts == [{"didEnterText": {"text": "bob"}}, {"didPressButton": {"index": 0}}],
                  f"the login's outputs: the text, then the press: {texts}")
            print("  'bob' typed without Enter went as didEnterText before Log in's press: Welcome, bob")
        finally:
            gtk.close()


def test_a_cut_connection_resumes_onto_the_same_screen(context):
    with flowd(context, ["serve", "--app", "launcher"], {"FLOWD_PYTHON_SCREENS": "0"}) as daemon:
        log = os.path.join(daemon.directory, "gtk.log")
        gtk = Gtk(context.gtk, daemon.socket_path, context.display, log)
        try:
            before = open_editor_of_ann(gtk)
            gtk.send("cut")
            deadline = time.monotonic() + 10
            while not daemon.wait_for_log("screen host resumed", 0.1):
                check(time.monotonic() < deadline, "flowd did not log the resume")
            after = gtk.front()
            check(after == before, f"after the cut: {after}, before: {before}")
            agree(gtk, context.bin, daemon.socket_path, "after the resume")
            with open(log, encoding="utf-8") as file:
                text = file.read()
            check("resumed, its screens follow" in text, text)
            gtk.send("escape")  # Escape on a pushed screen is back
            check(gtk.front()[1:3] == ("students", "Students"), "Escape went back to the list")
            print("  the cut connection resumed: the same screen in front, the widgets as flowd's tree; Escape went back")
        finally:
            gtk.close()


def test_a_killed_spawned_gtk_host_comes_back_with_its_screen(context):
    # A spawned screen gets only what flowd is told to pass (docs/daemon.md, Screen factories): the display and GTK's settings.
    with flowd(context, ["serve", "--app", "tutorial", "--spawn-screens", context.gtk,
                         "--screen-env", "DISPLAY,XAUTHORITY,XDG_RUNTIME_DIR,GSK_RENDERER,GTK_A11Y"],
               {"DISPLAY": context.display, "GSK_RENDERER": "cairo", "GTK_A11Y": "none"}) as daemon:
        deadline = time.monotonic() + 20
        while "drew screen 2 (tutorial) 'Welcome'" not in daemon.log:
            check(time.monotonic() < deadline, f"the spawned flowd-gtk did not draw its screen:\n{daemon.log}")
            time.sleep(0.05)
        tree = json.loads(subprocess.run([os.path.join(context.bin, "flowctl"), "tree", "--json", "--socket", daemon.socket_path],
                                         check=True, capture_output=True, text=True).stdout)
        pids = [int(c["pid"]) for c in tree.get("connections", []) if c.get("role") == "screen-host"]
        check(len(pids) == 1, f"one spawned host: {tree.get('connections')}")
        os.kill(pids[0], signal.SIGKILL)
        while daemon.log.count("drew screen 2 (tutorial) 'Welcome'") < 2:
            check(time.monotonic() < deadline, f"no new process drew the screen:\n{daemon.log}")
            time.sleep(0.05)
        # flowd's own line for it (its fields sorted by key, then the message): screen 2, the tutorial's,
        # restarted once, by its first attempt.
        restarts = re.findall(r"^\S+ notice flowd: attempt=(\d+) kind=tutorial policy=\S+ screen=#2 \[FlowDaemon\] "
                              r"screen process crashed; restarting it$", daemon.log, re.MULTILINE)
        check(restarts == ["1"], f"flowd's restart line for screen 2, once, its first attempt: {restarts}\n{daemon.log}")
        print("  a SIGKILLed spawned flowd-gtk was restarted by flowd and drew screen 2 again")


def test_a_crashed_daemon_comes_back_with_the_same_screens(context):
    """flowd journals into a file and is SIGKILLed with the student editor open; a new flowd on the
    same socket and journal restores it: flowd-gtk's token is refused (another run), it connects
    again fresh, and the restored screens come back into its windows with the same ids."""
    directory = tempfile.mkdtemp(prefix="fgk-", dir="/tmp")
    socket_path, journal = os.path.join(directory, "flowd.sock"), os.path.join(directory, "launcher.journal")

    def start(name):
        log = os.path.join(directory, name)
        process = subprocess.Popen([context.flowd, "serve", "--app", "launcher", "--socket", socket_path, "--state", journal],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(log, "w"),
                                   env=dict(os.environ, FLOWD_PYTHON_SCREENS="0"))
        deadline = time.monotonic() + 30
        while "listening on" not in open(log, encoding="utf-8").read():
            check(process.poll() is None and time.monotonic() < deadline, f"flowd did not start: {open(log).read()}")
            time.sleep(0.05)
        return process, log

    first, _ = start("flowd-1.log")
    gtk = Gtk(context.gtk, socket_path, context.display, os.path.join(directory, "gtk.log"))
    second = None
    try:
        before = open_editor_of_ann(gtk)
        gtk.send("sync")  # the press is journaled once its Pong came (docs/protocol.md section 10)
        first.kill()
        first.wait()
        if os.path.exists(socket_path):
            os.unlink(socket_path)
        second, log = start("flowd-2.log")
        deadline = time.monotonic() + 15
        while (after := gtk.front()) != before:
            check(time.monotonic() < deadline, f"after the restart in front: {after}, before: {before}")
            time.sleep(0.1)
        check("restored the app" in open(log, encoding="utf-8").read(), "the new flowd restored from the journal")
        agree(gtk, context.bin, socket_path, "after flowd's restart")
        with open(os.path.join(directory, "gtk.log"), encoding="utf-8") as file:
            text = file.read()
        check("refused to resume" in text and "a fresh start" in text, text)
        print("  flowd SIGKILLed and restarted on its journal: flowd-gtk came back to the same screen, with the same id")
    finally:
        gtk.close()
        for process in (first, second):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(directory, ignore_errors=True)


def desktop_windows(lines):
    """flowd-gtk's `dump` as its desktop windows: [(flowd window id, 0 for the main one; display; modal root;
    front screen; the screens in it)]."""
    windows = []
    for line in lines[:-1]:
        window = re.match(r'window (modal |display (\S+) )?(\d+)(?: in (\d+))? ".*" back=\w+ front=(\d+)', line)
        if window:
            display = window[2]
            flowd_window = int(window[3]) if display else int(window[4] or 0)
            root = int(window[3]) if window[1] == "modal " else 0
            windows.append((flowd_window, display, root, int(window[5]), set()))
            continue
        screen = re.match(r'\s*(?:\* )?screen (\d+) ', line)
        if screen and windows:
            windows[-1][4].add(int(screen[1]))
    return windows


def till_windows(gtk, bin_dir, socket_path):
    """The till with `gtk` (flowd-gtk or flowd-qt, attached) on flowd's socket: one desktop window per
    flowd window, each as flowctl tree; the Pay prompt in the customer's; its close button closes it."""
    flowctl = os.path.join(bin_dir, "flowctl")

    def agree_windows(where):
        gtk.send("sync")
        tree = json.loads(subprocess.run([flowctl, "tree", "--json", "--socket", socket_path], check=True, capture_output=True, text=True).stdout)
        drawn = desktop_windows(gtk.send("dump"))
        main, visible = tree_screens(tree)
        shown = {screen for window in drawn if window[0] == 0 for screen in window[4]}
        check(shown == set(main), f"{where}: the main desktop window shows {shown}, flowd's main window holds {set(main)}")
        check([window[3] for window in drawn if window[0] == 0][-1:] == visible, f"{where}: in front of the main window: {drawn}, flowd: {visible}")
        others = tree.get("otherWindows") or []
        for other in others:
            window = int(other["window"]["id"])
            held, _ = tree_screens({"window": other["window"]})
            mine = [w for w in drawn if w[0] == window]
            check(mine and mine[0][1] == other.get("display") and mine[0][2] == 0,
                  f"{where}: no desktop window for flowd's window {window} on {other.get('display')}: {drawn}")
            check(set().union(*(w[4] for w in mine)) == set(held), f"{where}: window {window} shows {[w[4] for w in mine]}, flowd holds {set(held)}")
            check(mine[-1][3] == int(other.get("visibleScreen", 0)), f"{where}: in front of window {window}: {mine[-1][3]}, flowd: {other.get('visibleScreen')}")
        check(len([w for w in drawn if w[2] == 0]) == 1 + len(others), f"{where}: {len(others)} other windows in flowd, desktop windows {drawn}")
        return tree

    def inject(screen, index):
        subprocess.run([flowctl, "inject", str(screen), json.dumps({"didPressButton": {"index": index}}), "--socket", socket_path],
                       check=True, capture_output=True)

    deadline = time.monotonic() + 10
    while len(desktop_windows(gtk.send("dump"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    tree = agree_windows("at the start")
    check(len(tree.get("otherWindows") or []) == 1, f"the till opened the customer's window: {tree.get('otherWindows')}")
    till = tree_screens(tree)[1][0]
    welcome = int(tree["otherWindows"][0]["visibleScreen"])
    inject(till, 0)  # scan an apple
    inject(till, 3)  # take the payment: the Pay prompt on the customer's display
    deadline = time.monotonic() + 10
    while int((tree := agree_windows("the pay prompt"))["otherWindows"][0]["visibleScreen"]) == welcome:
        check(time.monotonic() < deadline, "the Pay prompt did not show")
        time.sleep(0.05)
    pay = int(tree["otherWindows"][0]["visibleScreen"])
    check(tree_screens(tree)[1] == [till], "the till stays in front of the main window")
    inject(pay, 0)  # the customer pays
    deadline = time.monotonic() + 10
    while int((tree := agree_windows("paid"))["otherWindows"][0]["visibleScreen"]) != welcome:
        check(time.monotonic() < deadline, "the customer's window did not go back to its welcome")
        time.sleep(0.05)
    gtk.send("close-window")  # the customer's window's close button
    deadline = time.monotonic() + 10
    while agree_windows("closed").get("otherWindows"):
        check(time.monotonic() < deadline, "flowd did not close the customer's window")
        time.sleep(0.05)


def test_each_flowd_window_is_a_desktop_window(context):
    """The till (a flow opens the customer's window on the display `customer`) with flowd-gtk attached
    under Xvfb: one desktop window for the cashier's main window and one for the customer's, each with
    the screens flowctl tree has in that window and its visible one in front; the Pay prompt shows in
    the customer's window only; the close button of the customer's window is the user closing it
    (CloseWindow), and flowd closes it: one desktop window is left."""
    with flowd(context, ["serve", "--app", "till"], {}) as daemon:
        gtk = Gtk(context.gtk, daemon.socket_path, context.display, os.path.join(daemon.directory, "gtk.log"))
        try:
            till_windows(gtk, context.bin, daemon.socket_path)
            print("  the till's two flowd windows were two desktop windows, each as flowctl tree; closing the customer's closed it")
        finally:
            gtk.close()


def test_a_state_that_is_not_a_card_is_refused_and_the_host_carries_on(context):
    """The test plays flowd on a socket pair: a Place whose state is JSON, not a CardState, is answered
    with a non-fatal BAD_PAYLOAD naming the kind, and not acked; the host stays up and draws the next."""
    for path in (os.path.join(ROOT, ".build-python", "site"), os.path.join(ROOT, "Sources", "python", "flowd-screens")):
        if path not in sys.path:
            sys.path.insert(0, path)
    from flowd_screens.proto import envelope_pb2

    ours, theirs = socket.socketpair()
    environment = dict(os.environ, DISPLAY=context.display, GSK_RENDERER="cairo", GTK_A11Y="none",
                       FLOWD_SOCKET_FD=str(theirs.fileno()), FLOWD_TOKEN="a-token")
    process = subprocess.Popen([context.gtk], pass_fds=[theirs.fileno()], env=environment, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    theirs.close()
    ours.settimeout(10)
    buffer = b""

    def read_envelope():
        nonlocal buffer
        while len(buffer) < 4 or len(buffer) < 4 + struct.unpack("<I", buffer[:4])[0]:
            chunk = ours.recv(65536)
            check(chunk, "flowd-gtk closed the connection")
            buffer += chunk
        length = struct.unpack("<I", buffer[:4])[0]
        envelope = envelope_pb2.Envelope.FromString(buffer[4:4 + length])
        buffer = buffer[4 + length:]
        return envelope

    def send(envelope):
        data = envelope.SerializeToString()
        ours.sendall(struct.pack("<I", len(data)) + data)

    try:
        check(read_envelope().WhichOneof("body") == "hello", "a Hello first")
        welcome = envelope_pb2.Envelope(seq=1, reply_to=1)
        welcome.welcome.version = 1
        welcome.welcome.server = "a test playing flowd"
        send(welcome)
        place = envelope_pb2.Envelope(seq=2)
        place.place.screen_id, place.place.kind, place.place.serial = 7, "tutorial", 1
        place.place.state.content_type, place.place.state.data = "application/json", b'{"title":"not a card"}'
        step = place.place.placement.path.add()
        step.kind, step.id = 1, 1
        step = place.place.placement.path.add()
        step.kind, step.id = 4, 7
        place.place.placement.visible = True
        send(place)
        answer = read_envelope()
        check(answer.WhichOneof("body") == "error", f"an Error, not {answer.WhichOneof('body')}")
        check(answer.error.code == 10 and not answer.error.fatal and answer.error.screen_id == 7 and answer.error.serial == 1,
              f"BAD_PAYLOAD for screen 7 serial 1: {answer.error}")
        check('kind "tutorial"' in answer.error.message, answer.error.message)
        ping = envelope_pb2.Envelope(seq=3)
        ping.ping.nonce = 42
        send(ping)
        pong = read_envelope()
        check(pong.WhichOneof("body") == "pong" and pong.pong.nonce == 42, f"the host carries on: {pong}")
        check(process.poll() is None, "flowd-gtk is still running")
        print("  a JSON state was refused with BAD_PAYLOAD naming the kind, not acked; the host answered the next Ping")
    finally:
        ours.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the folder with flowd and flowctl")
    parser.add_argument("--gtk", required=True, help="the flowd-gtk binary")
    parser.add_argument("--screenshots", help="save the walk's screenshots into this folder (docs/native)")
    arguments = parser.parse_args()

    class Context:
        pass

    context = Context()
    context.bin = os.path.abspath(arguments.bin)
    context.flowd = os.path.join(context.bin, "flowd")
    context.gtk = os.path.abspath(arguments.gtk)
    context.screenshots = os.path.abspath(arguments.screenshots) if arguments.screenshots else None
    if context.screenshots:
        os.makedirs(context.screenshots, exist_ok=True)
    display = Display()
    context.display = display.name
    failed = 0
    tests = [test_walk, test_text_typed_without_enter_goes_before_a_press, test_a_cut_connection_resumes_onto_the_same_screen, test_a_killed_spawned_gtk_host_comes_back_with_its_screen,
             test_a_crashed_daemon_comes_back_with_the_same_screens, test_a_state_that_is_not_a_card_is_refused_and_the_host_carries_on,
             test_each_flowd_window_is_a_desktop_window]
    try:
        for test in tests:
            started = time.monotonic()
            try:
                test(context)
                print(f"ok   {test.__name__} ({time.monotonic() - started:.1f} s)")
            except Exception:  # noqa: BLE001 - every failure is reported, then the next test runs
                failed += 1
                print(f"FAIL {test.__name__}")
                traceback.print_exc()
    finally:
        display.close()
    print(f"{len(tests) - failed} of {len(tests)} GTK tests passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
