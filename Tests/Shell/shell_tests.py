#!/usr/bin/env python3
"""flowd-shell (Sources/c/flowd-shell, docs/shell.md) headless, every process as an unprivileged
user (nobody, through setpriv, when run as root), as a device would run it: flowd spawns every
screen of the launcher as its own process (Tests/Shell/colour-screen.c), which fills its surface
with a colour made from its screen id and claims it with its display_token. After every step of
the walks the shell is synced, grim takes a screenshot, and the pixel in the middle of the
content area must be the colour of the screen `flowctl tree` says is visible. Then a screen
process, flowd and the shell are each SIGKILLed and the place is checked again; a forged claim is
refused and an unclaimed surface is never shown.

    python3 Tests/Shell/shell_tests.py --bin .build/debug --shell-build .build/c/flowd-shell [--keep DIR]
"""

import argparse
import json
import os
import queue
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

WIDTH, HEIGHT, HEADER, TABBAR, INSET = 800, 600, 56, 56, 32
NOBODY = 65534
# flowd-gtk under the shell: Wayland, cairo (no GL headless), no accessibility bus.
GTK_ENVIRONMENT = {"GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1"}


def colour_of(screen):
    """The colour colour-screen fills screen `screen` with (colour_of in colour-screen.c)."""
    h = (screen * 2654435761) & 0xFFFFFFFF
    return (0x40 + (h & 0xBF), 0x40 + ((h >> 8) & 0xBF), 0x40 + ((h >> 16) & 0xBF))


def read_png(path):
    """Width, height and a pixel function of an 8-bit RGB(A) PNG (what grim writes), zlib only."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, _depth, colour_type = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
    bpp = {2: 3, 6: 4}[colour_type]
    raw, stride, rows, prev, i = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        # Up (most rows, mostly all zero: the row above again) and Sub on their own; Average and
        # Paeth byte by byte below (all rows so took ~0.3 s a screenshot, 60 of them).
        if kind == 2:
            line = bytearray(prev) if not any(line) else bytearray((u + v) & 255 for u, v in zip(line, prev))
            kind = 0
        elif kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
            kind = 0
        for x in range(stride if kind else 0):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Lines:
    """A process's output lines, read on a thread, waited for by prefix."""

    def __init__(self, stream, log):
        self.queue = queue.Queue()
        self.all = []
        self.log = log

        def pump():
            for line in stream:
                self.log.write(line)
                self.log.flush()
                self.all.append(line.rstrip("\n"))
                self.queue.put(line.rstrip("\n"))
            self.queue.put(None)
        threading.Thread(target=pump, daemon=True).start()

    def wait(self, prefixes, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no line starting with {prefixes} in {timeout} s; last lines: {self.all[-8:]}")
            try:
                line = self.queue.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"the process ended before a line starting with {prefixes}; last lines: {self.all[-8:]}")
            if line.startswith(prefixes):
                return line


class Stack:
    """A directory nobody owns with the binaries, the runtime dir, flowd's state and screenshots;
    the shell, flowd, flowctl and grim run in it as nobody."""

    def __init__(self, options, name):
        self.options = options
        self.root = tempfile.mkdtemp(prefix="fsh-", dir="/tmp")
        os.chmod(self.root, 0o755)
        self.bin = os.path.join(self.root, "bin")
        os.mkdir(self.bin)
        for source in [os.path.join(options.bin, "flowd"), os.path.join(options.bin, "flowctl"),
                       os.path.join(options.shell_build, "flowd-shell"), os.path.join(options.shell_build, "colour-screen")] \
                + ([options.gtk] if options.gtk else []) + ([options.qt] if options.qt else []):
            shutil.copy2(source, self.bin)  # a checkout under /root is out of nobody's reach
        self.run = os.path.join(self.root, "run")
        self.state = os.path.join(self.root, "state")
        self.shots = os.path.join(self.root, "shots")
        for directory in (self.run, self.state, self.shots):
            os.mkdir(directory, 0o700)
            if os.geteuid() == 0:
                os.chown(directory, NOBODY, NOBODY)
        self.socket = os.path.join(self.run, "flowd.sock")
        self.prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if os.geteuid() == 0 else []
        self.environment = {"PATH": "/usr/bin:/bin", "HOME": self.run, "XDG_RUNTIME_DIR": self.run}
        self.logs = os.path.join(options.logs, name)
        os.makedirs(self.logs, exist_ok=True)
        self.shell = self.flowd = None
        self.shots_taken = 0
        self.wayland = "wayland-0"

    def start_shell(self, environment=None, extra=()):
        log = open(os.path.join(self.logs, "shell.log"), "a")
        environment = dict(self.environment, WLR_BACKENDS="headless", WLR_RENDERER="pixman", **(environment or {}))
        self.shell = subprocess.Popen(self.prefix + [os.path.join(self.bin, "flowd-shell"), "--socket", self.socket, "--control",
                                                     "--size", f"{WIDTH}x{HEIGHT}", *extra],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=environment, text=True, bufsize=1)
        self.shell_lines = Lines(self.shell.stdout, log)
        line = self.shell_lines.wait("flowd-shell: WAYLAND_DISPLAY=")
        self.wayland = line.split("=", 1)[1].split()[0]

    def start_flowd(self, app="launcher", spawned=True, extra=(), environment=None, screen="colour-screen"):
        self.flowd_log = open(os.path.join(self.logs, "flowd.log"), "a")
        environment = dict(self.environment, WAYLAND_DISPLAY=self.wayland, **(environment or {}))
        spawning = ["--spawn-screens", os.path.join(self.bin, screen), "--restart-screens", "20/10",
                    "--screen-env", ",".join(["WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", *sorted(set(environment) - set(self.environment) - {"WAYLAND_DISPLAY"})])]
        self.flowd = subprocess.Popen(self.prefix + [
            os.path.join(self.bin, "flowd"), "--app", app, "--socket", self.socket, "--state", os.path.join(self.state, "journal"),
            *(spawning if spawned else []), *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment, text=True, bufsize=1)
        self.flowd_lines = Lines(self.flowd.stderr, self.flowd_log)
        self.wait_flowd_ready()

    def wait_flowd_ready(self):
        deadline = time.monotonic() + 30
        while not any("listening on" in line for line in self.flowd_lines.all):
            check(time.monotonic() < deadline and self.flowd.poll() is None, f"flowd did not start: {self.flowd_lines.all[-5:]}")
            time.sleep(0.05)

    def command(self, text, answer=None, timeout=20):
        self.shell.stdin.write(text + "\n")
        self.shell.stdin.flush()
        return self.shell_lines.wait(answer, timeout) if answer else None

    def sync(self):
        line = self.command("sync", ("synced:", "sync timed out"))
        check(line.startswith("synced:"), line)
        return int(line.split("visible")[1])

    def flowctl(self, *arguments):
        result = subprocess.run(self.prefix + [os.path.join(self.bin, "flowctl"), *arguments, "--socket", self.socket],
                                capture_output=True, text=True, env=self.environment, timeout=30)
        check(result.returncode == 0, f"flowctl {' '.join(arguments)}: {result.stderr}")
        return result.stdout

    def tree(self):
        return json.loads(self.flowctl("tree", "--json"))

    def visible(self, tree=None):
        """The visible screen of flowctl tree: the front of the window's content and presentations."""
        tree = tree or self.tree()

        def front(node):
            leaf, presenter = node, None
            while True:
                if leaf.get("presented"):
                    presenter = leaf
                children = leaf.get("children") or []
                if leaf.get("kind") == "NODE_KIND_SCREEN" or not children:
                    break
                leaf = children[int(leaf.get("selectedTab", 0))] if leaf.get("kind") == "NODE_KIND_TAB_BAR" else children[-1]
            return front(presenter["presented"]) if presenter else leaf
        leaf = front(tree["window"])
        return int(leaf["id"]) if leaf.get("kind") == "NODE_KIND_SCREEN" else 0

    def screenshot(self, label):
        self.shots_taken += 1
        path = os.path.join(self.shots, f"{self.shots_taken:02d}-{label}.png")
        result = subprocess.run(self.prefix + ["grim", path], capture_output=True, text=True,
                                env=dict(self.environment, WAYLAND_DISPLAY=self.wayland), timeout=30)
        check(result.returncode == 0, f"grim: {result.stderr}")
        return read_png(path)

    def expect_place(self, label, modal=False):
        """After a step: the shell shows the screen flowd says is visible, in the content area."""
        shown = self.sync()
        visible = self.visible()
        check(shown == visible, f"{label}: the shell shows screen {shown}, flowctl tree says {visible}")
        width, height, pixel = self.screenshot(label)
        check((width, height) == (WIDTH, HEIGHT), f"{label}: a {width}x{height} screenshot")
        centre = pixel(WIDTH // 2, (HEIGHT + HEADER) // 2)
        check(centre == colour_of(visible), f"{label}: the content area shows #{bytes(centre).hex()}, "
              f"screen {visible}'s colour is #{bytes(colour_of(visible)).hex()}")
        header = pixel(WIDTH // 2, 4)
        check(header != centre and header != (0x14, 0x14, 0x17), f"{label}: no header drawn (#{bytes(header).hex()})")
        if modal:
            edge = pixel(8, HEADER + 8)
            check(edge != centre and max(edge) < 0x80, f"{label}: the modal's presenter is not dimmed around it (#{bytes(edge).hex()})")
        print(f"  ok  {label}: screen {visible} #{bytes(centre).hex()}")
        return visible

    def inject(self, index):
        self.flowctl("inject", json.dumps({"didPressButton": {"index": index}}))

    def close(self):
        for process in (self.shell, self.flowd):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        if self.options.keep:
            target = os.path.join(self.options.keep, os.path.basename(self.logs))
            shutil.copytree(self.shots, target, dirs_exist_ok=True)
        shutil.rmtree(self.root, ignore_errors=True)


def walk(stack):
    """The tutorial, the student editor and the tabbed modal app, by flowctl inject and the shell's back and tabs."""
    first_menu = stack.expect_place("menu")
    stack.inject(0)
    stack.expect_place("tutorial-welcome")
    stack.inject(1)
    stack.expect_place("tutorial-all-set")
    stack.command("click 40 28")  # the header's back
    stack.expect_place("back-to-welcome")
    stack.command("swipe begin")
    stack.command("swipe cancel")
    welcome = stack.expect_place("swipe-cancelled")
    # A pointer drag from the left edge: halfway, the menu under the welcome screen shows on the
    # left; let go early, it cancels.
    middle = (HEIGHT + HEADER) // 2
    stack.command(f"press 4 {middle}")
    stack.command(f"move 404 {middle}")
    _, _, pixel = stack.screenshot("dragged-halfway")
    check(pixel(100, middle) == colour_of(first_menu), f"the menu shows under the dragged screen: #{bytes(pixel(100, middle)).hex()}")
    check(pixel(WIDTH - 100, middle) == colour_of(welcome), f"the dragged screen is on the right: #{bytes(pixel(WIDTH - 100, middle)).hex()}")
    stack.command(f"move 150 {middle}")
    stack.command("release")
    check(stack.expect_place("drag-let-go-early") == welcome, "a drag let go early cancels")
    stack.command("key escape")
    menu = stack.expect_place("escape-to-menu")
    check(menu != welcome, "escape went back")
    stack.inject(4)
    stack.expect_place("students")
    stack.inject(0)
    student = stack.expect_place("student-ann")
    stack.inject(0)
    stack.expect_place("student-age")
    # A finger dragged from the left edge past a third of the width commits: back to Ann.
    stack.command(f"touch down 2 {middle}")
    stack.command(f"touch move 300 {middle}")
    stack.command(f"touch move 520 {middle}")
    stack.command("touch up")
    ann = stack.expect_place("touch-swipe-committed")
    check(ann == student, "the touch swipe went back to Ann")
    stack.inject(0)
    stack.expect_place("student-age-again")
    stack.command("swipe begin")
    stack.command("swipe commit")
    check(stack.expect_place("swipe-committed") == ann, "the swipe went back to Ann")
    stack.command("key alt+left")
    stack.expect_place("back-to-list")
    stack.inject(2)  # Back to menu
    menu = stack.expect_place("menu-again")
    stack.inject(5)  # Contacts and events: a modal with a tab bar
    contacts = stack.expect_place("contacts-modal", modal=True)
    stack.command(f"click {WIDTH * 3 // 4} {HEIGHT - INSET - TABBAR // 2}")  # the second tab of the modal's tab bar
    events = stack.expect_place("events-tab", modal=True)
    check(events != contacts, "tab 1 shows the other tab's screen")
    stack.inject(0)  # an event's detail, pushed in the tab's stack
    stack.expect_place("event-detail", modal=True)
    stack.command("tab 0")
    check(stack.expect_place("contacts-tab", modal=True) == contacts, "tab 0 shows the first tab's screen again")
    stack.command("key escape")  # at the root of the modal's tab: closes the modal
    check(stack.expect_place("modal-closed") == menu, "escape closed the modal")


def test_walk(options):
    stack = Stack(options, "walk")
    try:
        stack.start_shell()
        stack.start_flowd()
        walk(stack)
    finally:
        stack.close()


def test_kills(options):
    stack = Stack(options, "kills")
    try:
        stack.start_flowd()  # flowd first: the shell connects to it; its screens wait for the display
        stack.start_shell()
        stack.expect_place("menu")
        stack.inject(4)
        stack.inject(0)
        ann = stack.expect_place("student-ann")

        # A screen process is SIGKILLed: its last frame stays until the restarted process draws.
        tree = stack.tree()

        def screen_pid(node):
            if node.get("kind") == "NODE_KIND_SCREEN" and int(node["id"]) == ann:
                return node["screen"].get("pid")
            for child in (node.get("children") or []) + ([node["presented"]] if node.get("presented") else []):
                found = screen_pid(child)
                if found:
                    return found
        pid = screen_pid(tree["window"])
        check(pid, "the visible screen's process is in the tree")
        os.kill(int(pid), signal.SIGKILL)
        stack.shell_lines.wait("kept: the last frame of screen")
        _, _, pixel = stack.screenshot("screen-killed")
        check(pixel(WIDTH // 2, (HEIGHT + HEADER) // 2) == colour_of(ann), "the killed screen's last frame stays in place")
        stack.shell_lines.wait("drawn: screen", 30)
        check(stack.expect_place("screen-restarted") == ann, "the same screen, drawn by its new process")

        # flowd is SIGKILLed: the shell keeps the picture, reconnects, and the screens come back.
        stack.flowd.kill()
        stack.flowd.wait()
        stack.shell_lines.wait("flowd: gone")
        _, _, pixel = stack.screenshot("flowd-killed")
        check(pixel(WIDTH // 2, (HEIGHT + HEADER) // 2) == colour_of(ann), "the picture stays while flowd is away")
        stack.start_flowd()
        stack.shell_lines.wait("flowd: connected", 30)
        check(stack.expect_place("flowd-restored") == ann, "flowd restored the place")

        # The shell is SIGKILLed: its clients lose the display, flowd restarts them, the new shell shows them.
        stack.shell.kill()
        stack.shell.wait()
        stack.start_shell()
        check(stack.expect_place("shell-restarted") == ann, "the user's place is unchanged")
        stack.command("back")
        stack.expect_place("back-after-kills")
    finally:
        stack.close()


def test_claims(options):
    """A forged secret and another client's secret are protocol errors; an unclaimed surface is never shown."""
    stack = Stack(options, "claims")
    try:
        stack.start_shell()
        stack.start_flowd()
        menu = stack.expect_place("menu")
        environment = dict(stack.environment, WAYLAND_DISPLAY=stack.wayland)
        forger = os.path.join(stack.bin, "colour-screen")
        forged = subprocess.run(stack.prefix + [forger, "--forge", "0123456789abcdef0123456789abcdef"], capture_output=True,
                                text=True, env=environment, timeout=30)
        check(forged.returncode == 3, f"a forged secret is refused with a protocol error: {forged.returncode} {forged.stderr}")
        stack.shell_lines.wait("refused claim: no screen has the secret")
        token = next(line.split("token ")[1].split()[0] for line in stack.flowd_lines.all if "claims screen" in line)
        stolen = subprocess.run(stack.prefix + [forger, "--forge", token], capture_output=True, text=True, env=environment, timeout=30)
        check(stolen.returncode == 3, f"another client's secret is refused: {stolen.returncode} {stolen.stderr}")
        stack.shell_lines.wait("refused claim: screen")
        # A claim for a surface whose toplevel was destroyed: refused, and the shell lives on.
        gone = subprocess.run(stack.prefix + [forger, "--forge", token], capture_output=True, text=True, timeout=30,
                              env=dict(environment, COLOUR_SCREEN_DESTROY_ROLE="1"))
        check(gone.returncode == 3, f"a claim on a destroyed toplevel is refused: {gone.returncode} {gone.stderr}")
        check(stack.shell.poll() is None, "the shell survived it")
        unclaimed = subprocess.Popen(stack.prefix + [forger, "--unclaimed"], stdout=subprocess.PIPE, text=True, env=environment)
        check(unclaimed.stdout.readline().startswith("drawn"), "the unclaimed client drew")
        check(stack.expect_place("unclaimed-not-shown") == menu, "the unclaimed surface is not shown")
        unclaimed.kill()
        unclaimed.wait()
    finally:
        stack.close()


def test_held(options):
    """A pushed screen that has not drawn yet: the shell keeps the old picture (nothing slides in empty),
    and slides the new one in once it draws; one that never draws moves in empty after --hold."""
    stack = Stack(options, "held")
    try:
        stack.start_shell(extra=["--hold", "60000"])
        stack.start_flowd(environment={"COLOUR_SCREEN_HOLD_KIND": "students"})
        menu = stack.expect_place("menu")
        stack.inject(4)
        claimed = stack.shell_lines.wait("claim: screen")
        while "(students)" not in claimed:
            claimed = stack.shell_lines.wait("claim: screen")
        students, pid = int(claimed.split()[2]), int(claimed.split("pid ")[1])
        check(stack.visible() == students, "flowd placed the students list")
        state = stack.command("state", "state:")
        check(f"visible {students} " in state and "motion held" in state and f" {students}=claimed" in state, f"held: {state}")
        width, height, pixel = stack.screenshot("held")
        centre = pixel(WIDTH // 2, (HEIGHT + HEADER) // 2)
        check(centre == colour_of(menu), f"while the list has not drawn, the menu stays: #{bytes(centre).hex()}")
        right = pixel(WIDTH - 4, (HEIGHT + HEADER) // 2)
        check(right == colour_of(menu), f"nothing has slid in at the right edge: #{bytes(right).hex()}")
        os.kill(pid, signal.SIGUSR1)
        check(stack.expect_place("drawn-slides-in") == students, "the list drew and shows")
    finally:
        stack.close()
    stack = Stack(options, "held-timeout")
    try:
        stack.start_shell(extra=["--hold", "50"])
        stack.start_flowd(environment={"COLOUR_SCREEN_HOLD_KIND": "students"})
        stack.expect_place("menu")
        stack.inject(4)
        line = stack.shell_lines.wait("motion:")
        check("has drawn nothing in 50 ms; it moves in empty" in line, line)
    finally:
        stack.close()


def test_windows(options):
    """The till under a shell with two outputs: the cashier's screen on the first, the customer's window
    on the second (--displays customer); the Pay prompt rises there only; the customer's screen process,
    flowd and the shell are SIGKILLed and both windows come back in their places."""
    stack = Stack(options, "windows")
    try:
        stack.start_flowd("till")
        stack.start_shell({"WLR_HEADLESS_OUTPUTS": "2"}, extra=["--displays", "customer"])
        middle = (HEIGHT + HEADER) // 2

        def both(label):
            """After a sync: the main output shows flowctl tree's visible screen, the second the customer
            window's visible screen (the shell's state, checked against the tree's window)."""
            shown = stack.sync()
            tree = stack.tree()
            check(shown == stack.visible(tree), f"{label}: the shell shows {shown}, the tree {stack.visible(tree)}")
            windows = tree.get("otherWindows") or []
            check(len(windows) == 1 and windows[0].get("display") == "customer", f"{label}: the tree's windows: {windows}")
            customer = int(windows[0].get("visibleScreen", 0))
            # The shell told flowd the displays it draws: main and customer, by connector, with their sizes.
            displays = [(d.get("id"), d.get("name"), d.get("width"), d.get("height")) for d in (tree.get("displays") or {}).get("displays", [])]
            check([(d[0], d[2], d[3]) for d in displays] == [("customer", WIDTH, HEIGHT), ("main", WIDTH, HEIGHT)]
                  and all(d[1].startswith("HEADLESS-") for d in displays) and displays[0][1] != displays[1][1],
                  f"{label}: the displays flowd knows: {displays}")
            state = stack.command("state", "state:")
            check(f"output2=customer:{customer} " in state + " ", f"{label}: the second output shows {customer}: {state}")
            width, height, pixel = stack.screenshot(label)
            check((width, height) == (2 * WIDTH, HEIGHT), f"{label}: a {width}x{height} screenshot of both outputs")
            check(pixel(WIDTH // 2, middle) == colour_of(shown), f"{label}: the main output shows #{bytes(pixel(WIDTH // 2, middle)).hex()}")
            check(pixel(WIDTH + WIDTH // 2, HEIGHT // 2) == colour_of(customer),
                  f"{label}: the customer's output shows #{bytes(pixel(WIDTH + WIDTH // 2, HEIGHT // 2)).hex()}, screen {customer}")
            title_bar = pixel(WIDTH + WIDTH // 2, 4)
            check(title_bar != colour_of(customer) and max(title_bar) < 0x60, f"{label}: the customer's output has its title bar: #{bytes(title_bar).hex()}")
            print(f"  ok  {label}: screen {shown} and, on the customer's display, screen {customer}")
            return shown, customer

        till, welcome = both("till-and-welcome")
        stack.flowctl("inject", str(till), json.dumps({"didPressButton": {"index": 0}}))  # scan an apple
        stack.flowctl("inject", str(till), json.dumps({"didPressButton": {"index": 3}}))  # take payment
        till_again, pay = both("pay-prompt-on-the-customer-display")
        check(till_again == till and pay != welcome, "the prompt rose on the customer's display only")
        stack.flowctl("inject", str(pay), json.dumps({"didPressButton": {"index": 0}}))  # the customer pays
        check(both("paid-and-idle") == (till, welcome), "paid: the customer's display is idle again")

        # The customer's screen process is SIGKILLed: restarted, drawn again on its output.
        claim = next(line for line in reversed(stack.shell_lines.all) if line.startswith(f"claim: screen {welcome} "))
        os.kill(int(claim.split("pid ")[1]), signal.SIGKILL)
        stack.shell_lines.wait("kept: the last frame of screen")
        stack.shell_lines.wait("drawn: screen", 30)
        check(both("customer-screen-restarted") == (till, welcome), "both windows in their places")
        # flowd, then the shell, SIGKILLed: both windows come back in their places.
        stack.flowd.kill()
        stack.flowd.wait()
        stack.shell_lines.wait("flowd: gone")
        stack.start_flowd("till")
        stack.shell_lines.wait("flowd: connected", 30)
        check(both("flowd-restored") == (till, welcome), "flowd restored both windows")
        stack.shell.kill()
        stack.shell.wait()
        stack.start_shell({"WLR_HEADLESS_OUTPUTS": "2"}, extra=["--displays", "customer"])
        check(both("shell-restarted") == (till, welcome), "the new shell shows both windows")
        # A tap on the customer's title bar away from its close button changes nothing.
        stack.command(f"click {WIDTH + WIDTH // 2} 20")
        check(stack.sync() == till and len(stack.tree().get("otherWindows") or []) == 1, "a tap on the title itself closes nothing")
        # The user closes the customer's window with its title bar's close button: the window goes, the till stays.
        stack.command(f"click {2 * WIDTH - 28} 28")
        deadline = time.monotonic() + 10
        while stack.tree().get("otherWindows") and time.monotonic() < deadline:
            time.sleep(0.05)
        check(not stack.tree().get("otherWindows"), "the customer's window is closed")
        check(stack.sync() == till, "the till is still shown")
        state = stack.command("state", "state:")
        check("output2=customer:0 " in state + " ", f"the second output shows no window: {state}")
        _, _, pixel = stack.screenshot("customer-window-closed")
        check(pixel(WIDTH + WIDTH // 2, HEIGHT // 2) != colour_of(welcome), "the closed window's screen is gone from its output")
        print("  ok  customer-window-closed: the till stays, the customer's output is empty")
    finally:
        stack.close()


def test_gtk(options):
    """flowd-gtk spawned for every screen under the shell: one undecorated toplevel per screen, claimed;
    each step's visible screen is the tree's and its GTK surface has drawn (sync waits for that)."""
    if not options.gtk:
        print("  skipped: no --gtk binary")
        return
    stack = Stack(options, "gtk")
    try:
        stack.start_shell()
        stack.start_flowd(screen=os.path.basename(options.gtk),
                          environment=GTK_ENVIRONMENT)
        # A click on the GTK menu's "Student editor" button (the fifth, 46 px apart from y = 127).
        for label, step in [("gtk-menu", None), ("gtk-students", lambda: stack.command(f"click {WIDTH // 2} {127 + 4 * 46}")), ("gtk-ann", lambda: stack.inject(0)),
                            ("gtk-back", lambda: stack.command("back")), ("gtk-escape", lambda: stack.command("key escape"))]:
            before = stack.visible()
            if step:
                step()
            # A click reaches flowd through flowd-gtk, not the shell: wait for the tree to move first.
            deadline = time.monotonic() + 10
            while step and stack.visible() == before and time.monotonic() < deadline:
                time.sleep(0.05)
            shown = stack.sync()
            visible = stack.visible()
            check(shown == visible, f"{label}: the shell shows {shown}, the tree says {visible}")
            check(any(line.startswith(f"claim: screen {visible} ") for line in stack.shell_lines.all), f"{label}: screen {visible} was claimed")
            _, _, pixel = stack.screenshot(label)
            check(pixel(WIDTH // 2, HEIGHT - 20) != (0x14, 0x14, 0x17), f"{label}: the content area is empty")
            print(f"  ok  {label}: screen {visible} drawn by flowd-gtk")
        check(not any("refused claim" in line for line in stack.shell_lines.all), "no claim was refused")
    finally:
        stack.close()
    gtk_updates(options)


def gtk_updates(options):
    """A GTK screen redraws for every Update: the till (flowd-gtk spawned for it) scans three items,
    and after each scan the content area's picture changes. A headless output that told clients a
    1 mHz refresh made GTK wait 1000 s between frames once its surface was on that output: no scan
    was drawn."""
    stack = Stack(options, "gtk-updates")
    try:
        stack.start_shell()
        stack.start_flowd("till", screen=os.path.basename(options.gtk),
                          environment=GTK_ENVIRONMENT)
        till = stack.sync()
        check(till == stack.visible(), f"the shell shows {till}, the tree says {stack.visible()}")

        def content(label):
            _, _, pixel = stack.screenshot(label)
            return bytes(b for y in range(HEADER, HEIGHT) for x in range(WIDTH) for b in pixel(x, y))

        pictures = [content("gtk-till")]
        for index, item in enumerate(["apple", "bread", "milk"]):
            stack.inject(index)  # scan: an Update of the same screen, which stays visible
            # The shell's sync does not wait for a client's next buffer: the picture is polled.
            deadline = time.monotonic() + 5
            while True:
                picture = content(f"gtk-till-{item}")
                if picture not in pictures or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            check(picture not in pictures, f"scan {item}: flowd-gtk drew nothing new in 5 s (its picture is an earlier one)")
            pictures.append(picture)
            print(f"  ok  gtk-till-{item}: screen {till} redrawn by flowd-gtk after its Update")
        check(stack.visible() == till, "the till stayed the visible screen")
    finally:
        stack.close()


def screen_node(tree, screen):
    """The tree's node of screen `screen`, in any window."""
    nodes = [tree["window"]] + [window.get("window", {}) for window in tree.get("otherWindows") or []]
    while nodes:
        node = nodes.pop()
        if node.get("kind") == "NODE_KIND_SCREEN" and int(node["id"]) == screen:
            return node
        nodes += (node.get("children") or []) + ([node["presented"]] if node.get("presented") else [])
    raise AssertionError(f"screen {screen} is not in the tree")


def program_of(pid):
    """The executable's name of process `pid`, as the kernel has it."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return open(f"/proc/{pid}/comm").read().strip()


def test_mixed(options):
    """Two toolkits in one app on one display: flowd spawns flowd-qt for the launcher's login kinds and
    flowd-gtk for every other kind (--spawn-screens flowd-gtk --spawn-screens login,login-success=flowd-qt).
    After every step the screen the shell shows is the tree's visible one; the process that claimed its
    surface is the tree's host of it, and is flowd-qt for a login screen and flowd-gtk for the others;
    the content area has that toolkit's own background (Qt's and GTK's differ), a modal's presenter is
    dimmed. The pushes and the modal are animated by the shell alike; the Qt login process SIGKILLed
    keeps its last frame and is restarted in place; the shell SIGKILLed, the Qt and GTK processes are
    restarted, wait for the new shell and show the same place; no Qt or GTK warning, no refused claim."""
    if not options.gtk or not options.qt:
        print("  skipped: no --gtk and --qt binaries")
        return
    stack = Stack(options, "mixed")
    try:
        stack.start_shell(extra=["--hold", "10000"])  # a cold toolkit process on a loaded machine may take over 500 ms
        qt = os.path.join(stack.bin, os.path.basename(options.qt))
        stack.start_flowd(screen=os.path.basename(options.gtk), extra=["--spawn-screens", f"login,login-success={qt}"],
                          environment=GTK_ENVIRONMENT)
        backgrounds = {}  # toolkit host -> the colour of its window's background, from its first screen

        def claimant(screen):
            """The pid of the client whose surface the shell last took as `screen`."""
            line = next((line for line in reversed(stack.shell_lines.all) if line.startswith(f"claim: screen {screen} ")), None)
            check(line, f"screen {screen} was never claimed")
            return int(line.split("pid ")[1])

        def step(label, host, modal=False, transition=None):
            shown = stack.sync()
            tree = stack.tree()
            visible = stack.visible(tree)
            check(shown == visible, f"{label}: the shell shows screen {shown}, flowctl tree says {visible}")
            info = screen_node(tree, visible)["screen"]
            pid = claimant(visible)
            check(info.get("hostName") == host, f"{label}: screen {visible} ({info.get('kind')}) is hosted by {info.get('hostName')}, not {host}")
            check(int(info.get("pid", 0)) == pid, f"{label}: the tree's host of screen {visible} is pid {info.get('pid')}, its surface is pid {pid}'s")
            check(program_of(pid) == host, f"{label}: the surface of screen {visible} is drawn by {program_of(pid)}, not {host}")
            if transition:
                check(any(line.startswith("scene: ") and f" visible {visible} transition {transition} animated" in line for line in stack.shell_lines.all),
                      f"{label}: the shell had no animated transition {transition} to screen {visible}")
            _, _, pixel = stack.screenshot(label)
            background = pixel(WIDTH // 2, HEIGHT - (INSET if modal else 0) - 12)
            backgrounds.setdefault(host, background)
            check(background == backgrounds[host], f"{label}: the content area's background is #{bytes(background).hex()}, "
                  f"{host}'s is #{bytes(backgrounds[host]).hex()}")
            check(all(colour != background for other, colour in backgrounds.items() if other != host),
                  f"{label}: {host}'s background #{bytes(background).hex()} is another toolkit's too: {backgrounds}")
            if modal:
                edge = pixel(8, HEADER + 8)
                check(max(edge) < 0x80, f"{label}: the modal's presenter is not dimmed around it (#{bytes(edge).hex()})")
            print(f"  ok  {label}: screen {visible} ({info.get('kind')}) drawn by {host} pid {pid}, background #{bytes(background).hex()}")
            return visible, pid, pixel

        def click(x, y):
            """A click the shell routes to the visible surface; its toolkit tells flowd, and the tree moves."""
            before = stack.visible()
            stack.command(f"click {x} {y}")
            deadline = time.monotonic() + 10
            while stack.visible() == before and time.monotonic() < deadline:
                time.sleep(0.05)

        menu, menu_pid, _ = step("mixed-menu", "flowd-gtk")
        click(WIDTH // 2, 127 + 6 * 46)  # the GTK menu's "Log in", the seventh button
        login, login_pid, pixel = step("mixed-login", "flowd-qt", modal=True, transition=3)
        presenter = pixel(8, HEADER + 8)  # the GTK menu, dimmed around the modal
        stack.flowctl("inject", str(login), json.dumps({"didEnterText": {"text": "ann"}}))
        # The Qt process SIGKILLed: its last frame stays in the modal, and flowd's restart policy
        # starts another flowd-qt that claims the same place.
        seen = len(stack.shell_lines.all)
        os.kill(login_pid, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while not any(line == f"kept: the last frame of screen {login}" for line in stack.shell_lines.all[seen:]):
            check(time.monotonic() < deadline, "the shell did not keep the killed login screen's last frame")
            time.sleep(0.02)
        _, _, pixel = stack.screenshot("mixed-login-killed")
        kept = pixel(WIDTH // 2, HEIGHT - INSET - 12)
        check(kept == backgrounds["flowd-qt"], f"the killed Qt screen's last frame stays in place: #{bytes(kept).hex()}")
        while not any(line == f"drawn: screen {login} by its new surface" for line in stack.shell_lines.all[seen:]):
            check(time.monotonic() < deadline, "the restarted login screen did not draw")
            time.sleep(0.02)
        restarted, restarted_pid, _ = step("mixed-login-restarted", "flowd-qt", modal=True)
        check(restarted == login and restarted_pid != login_pid, f"the same screen {login}, a new process ({login_pid} -> {restarted_pid})")
        check(int(screen_node(stack.tree(), login)["screen"].get("restarts", 0)) == 1, "flowd counts one restart")
        # The shell SIGKILLed and back 2 s later: the Qt and the GTK process lose their display and
        # exit; flowd restarts each once, and the new processes wait for the new shell (a process that
        # failed without a display would be restarted again and again), which shows the same place.
        stack.shell.kill()
        stack.shell.wait()
        time.sleep(2)
        stack.start_shell(extra=["--hold", "10000"])
        again, again_pid, _ = step("mixed-shell-restarted", "flowd-qt", modal=True)
        check(again == login and again_pid != restarted_pid, f"the same screen {login}, a new process ({restarted_pid} -> {again_pid})")
        deadline = time.monotonic() + 10
        while True:  # the shell's sync waits for the visible screen's frame, not for the menu under it
            _, _, pixel = stack.screenshot("mixed-shell-restarted-menu")
            if pixel(8, HEADER + 8) == presenter or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        check(pixel(8, HEADER + 8) == presenter, f"the GTK menu is drawn under the modal again: #{bytes(pixel(8, HEADER + 8)).hex()}")
        node = screen_node(stack.tree(), menu)["screen"]
        check(node.get("hostName") == "flowd-gtk" and int(node.get("pid", 0)) not in (0, menu_pid) and program_of(claimant(menu)) == "flowd-gtk",
              f"the menu has a new flowd-gtk process: {node}")
        restarts = {screen: int(screen_node(stack.tree(), screen)["screen"].get("restarts", 0)) for screen in (menu, login)}
        # One restart each for the shell's kill (the login had one before); one more only if the shell took
        # longer than flowd's handshake timeout (5 s) to come back on a loaded machine. A host that failed
        # without a display would have been restarted every few hundred ms.
        check(1 <= restarts[menu] <= 2 and 2 <= restarts[login] <= 3, f"restarts for the shell's kill: {restarts}")
        click(WIDTH // 2, 183)  # the Qt form's "Log in" button: the new process has the name typed before the kill
        success = step("mixed-login-success", "flowd-qt", modal=True, transition=1)[0]
        check(success != login, "the login succeeded: its next screen is pushed")
        click(WIDTH // 2, 149)  # Continue: the login finishes and its modal is dismissed
        check(step("mixed-menu-again", "flowd-gtk", transition=4)[0] == menu, "back at the menu")
        click(WIDTH // 2, 127 + 4 * 46)  # the GTK menu's "Student editor"
        step("mixed-students", "flowd-gtk", transition=1)
        check(not any("refused claim" in line or "moves in empty" in line for line in stack.shell_lines.all),
              "no claim was refused and no screen moved in empty (each drew within --hold, 10 s)")
        complaints = [line for line in stack.flowd_lines.all
                      if ("flowd-qt: Qt warning" in line or "flowd-qt: Qt critical" in line or "Gtk-WARNING" in line or "Gtk-CRITICAL" in line)
                      and "The Wayland connection broke" not in line]  # the shell's kill
        check(not complaints, f"the toolkits complained: {complaints[:3]}")
    finally:
        stack.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the folder of flowd and flowctl")
    parser.add_argument("--shell-build", required=True, help="the folder of flowd-shell and colour-screen")
    parser.add_argument("--keep", help="copy the screenshots here")
    parser.add_argument("--gtk", help="flowd-gtk, for the tests under the shell")
    parser.add_argument("--qt", help="flowd-qt, for the test of two toolkits under the shell (with --gtk)")
    parser.add_argument("--logs", default=os.path.join(tempfile.gettempdir(), "flowd-shell-tests"), help="the processes' logs")
    parser.add_argument("tests", nargs="*", help="walk, kills, claims, held, windows, gtk, mixed (default: all)")
    options = parser.parse_args()
    tests = {"walk": test_walk, "kills": test_kills, "claims": test_claims, "held": test_held, "windows": test_windows, "gtk": test_gtk,
             "mixed": test_mixed}
    failed = 0
    for name in options.tests or list(tests):
        print(f"shell test: {name}")
        started = time.monotonic()
        try:
            tests[name](options)
            print(f"  passed in {time.monotonic() - started:.1f} s")
        except Exception:
            failed += 1
            traceback.print_exc()
            print(f"  FAILED (logs in {options.logs}/{name})")
    print(f"shell tests: {len(options.tests or tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
