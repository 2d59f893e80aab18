#!/usr/bin/env python3
"""The Qt 6 host of the demo (Sources/c/flowd-qt, docs/native.md) on Qt's offscreen platform: it
walks the whole demo walkthrough (the tutorial, the profiles, the student editor, the tabbed
contacts and events, the login) by pressing its widgets, and after every step its widget tree must
say what `flowctl tree --json` says, as flowd-gtk's tests (Tests/GTK/gtk_tests.py, whose walk and
comparison it uses). Then: a cut connection resumes onto the same screen, a killed spawned flowd-qt
is restarted with its screen, a restarted flowd restores its screens into the same windows, and a
state that is not a card is refused. No test passes if flowd-qt's log has a Qt warning in it.
scripts/test runs it (scripts/libflowd-screen test-qt).

    python3 Tests/Qt/qt_tests.py --bin .build/debug --qt .build/c/flowd-qt/flowd-qt [--screenshots docs/native]
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "GTK"))
import gtk_tests  # noqa: E402
from gtk_tests import ROOT, WALK, agree, check, flowd, open_editor_of_ann, walk  # noqa: E402

QT_WARNING = re.compile(r"^flowd-qt: Qt (warning|critical|fatal): .*$", re.M)


def qt_environment(runtime):
    """Qt's offscreen platform (no display at all), and a runtime directory of the test's own."""
    return {"QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": runtime}


def no_qt_warnings(text, where):
    warnings = QT_WARNING.findall(text) and QT_WARNING.search(text)[0]
    check(not warnings, f"{where}: Qt warned: {warnings}")


class Qt(gtk_tests.Gtk):
    """flowd-qt with its test channel (--control), which is flowd-gtk's: one command, one answer."""

    def __init__(self, binary, socket_path, runtime, log_path):  # noqa: super().__init__ starts flowd-gtk's way
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.process = subprocess.Popen([binary, "--socket", socket_path, "--control"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, env=dict(os.environ, **qt_environment(runtime)),
                                        text=True, bufsize=1)

    def logged(self):
        with open(self.log_path, encoding="utf-8") as file:
            return file.read()

    def close(self):
        super().close()
        no_qt_warnings(self.logged(), "flowd-qt's log")


SHOTS = {
    'on tutorial "Welcome" press "Next"': "qt-tutorial.png",
    'on student-name "Edit Ann" press "Edit age"': "qt-student-editor.png",
    'on directory-detail "Party" body "In Events" tab 1': "qt-contacts-events-tab.png",
    'on directory "Contacts" press "Ann"': "qt-contacts-modal-tabs.png",
    'on menu press "Onboarding tutorial"': "qt-menu.png",
}


def test_walk(context):
    with flowd(context, ["serve", "--app", "launcher"], {"FLOWD_PYTHON_SCREENS": "0"}) as daemon:
        qt = Qt(context.qt, daemon.socket_path, context.runtime, os.path.join(daemon.directory, "qt.log"))
        try:
            agree(qt, context.bin, daemon.socket_path, "at the start")
            shots = dict(SHOTS) if context.screenshots else {'on tutorial "Welcome" press "Next"': "qt-tutorial.png"}
            target = context.screenshots or daemon.directory
            steps = walk(qt, context.bin, daemon.socket_path, target, shots)
            check(steps > 50, f"only {steps} steps walked")
            check(daemon.process.wait(15) == 0, "flowd exits 0 after the launcher's Quit")
            check(qt.process.wait(10) == 0, "flowd-qt exits 0 when flowd ends the session")
            slid = re.search(r"slid (\d+) pushes and (\d+) pops", qt.logged())
            check(slid and int(slid[1]) >= 10 and int(slid[2]) >= 3, f"the animated pushes and pops slid: {slid and slid[0]}")
            png = os.path.join(target, "qt-tutorial.png")
            with open(png, "rb") as file:
                header = file.read(24)
            check(header[:8] == b"\x89PNG\r\n\x1a\n", f"{png} is a PNG")
            width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
            check(width >= 300 and height >= 300, f"{png} is the whole window: {width}x{height}")
            print(f"  walked {steps} steps of {os.path.relpath(WALK, ROOT)}; the widgets agreed with flowctl tree after each; {slid[0]}")
        finally:
            qt.close()


def test_a_cut_connection_resumes_onto_the_same_screen_without_a_qt_warning(context):
    """The socket shut down under the host: the library reconnects on a new descriptor, and the old
    one's notifiers go quietly (no "QSocketNotifier: Invalid socket")."""
    with flowd(context, ["serve", "--app", "launcher"], {"FLOWD_PYTHON_SCREENS": "0"}) as daemon:
        qt = Qt(context.qt, daemon.socket_path, context.runtime, os.path.join(daemon.directory, "qt.log"))
        try:
            before = open_editor_of_ann(qt)
            for cut in range(1, 3):
                qt.send("cut")
                deadline = time.monotonic() + 10
                while daemon.log.count("screen host resumed") < cut:
                    daemon.wait_for_log("screen host resumed", 0.1)
                    check(time.monotonic() < deadline, "flowd did not log the resume")
                after = qt.front()
                check(after == before, f"after cut {cut}: {after}, before: {before}")
                agree(qt, context.bin, daemon.socket_path, f"after resume {cut}")
            check(qt.logged().count("resumed, its screens follow") == 2, qt.logged())
            qt.send("escape")  # Escape on a pushed screen is back
            check(qt.front()[1:3] == ("students", "Students"), "Escape went back to the list")
            print("  two cut connections resumed: the same screen in front, the widgets as flowd's tree, no Qt warning")
        finally:
            qt.close()


def test_a_killed_spawned_qt_host_comes_back_with_its_screen(context):
    # A spawned screen gets only what flowd is told to pass (docs/daemon.md, Screen factories).
    with flowd(context, ["serve", "--app", "tutorial", "--spawn-screens", context.qt,
                         "--screen-env", "QT_QPA_PLATFORM,XDG_RUNTIME_DIR"], qt_environment(context.runtime)) as daemon:
        deadline = time.monotonic() + 20
        while "drew screen 2 (tutorial) 'Welcome'" not in daemon.log:
            check(time.monotonic() < deadline, f"the spawned flowd-qt did not draw its screen:\n{daemon.log}")
            time.sleep(0.05)
        tree = json.loads(subprocess.run([os.path.join(context.bin, "flowctl"), "tree", "--json", "--socket", daemon.socket_path],
                                         check=True, capture_output=True, text=True).stdout)
        pids = [int(c["pid"]) for c in tree.get("connections", []) if c.get("role") == "screen-host"]
        check(len(pids) == 1, f"one spawned host: {tree.get('connections')}")
        os.kill(pids[0], signal.SIGKILL)
        while daemon.log.count("drew screen 2 (tutorial) 'Welcome'") < 2:
            check(time.monotonic() < deadline, f"no new process drew the screen:\n{daemon.log}")
            time.sleep(0.05)
        check("restart" in daemon.log, daemon.log)
        no_qt_warnings(daemon.log, "the spawned flowd-qt")
        print("  a SIGKILLed spawned flowd-qt was restarted by flowd and drew screen 2 again")


def test_a_crashed_daemon_comes_back_with_the_same_screens(context):
    """flowd SIGKILLed with the student editor open and started again on its journal: flowd-qt's
    token is refused (another run), it connects again fresh, the restored screens come back."""
    directory = tempfile.mkdtemp(prefix="fqt-", dir="/tmp")
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
    qt = Qt(context.qt, socket_path, context.runtime, os.path.join(directory, "qt.log"))
    second = None
    try:
        before = open_editor_of_ann(qt)
        qt.send("sync")  # the press is journaled once its Pong came (docs/protocol.md section 10)
        first.kill()
        first.wait()
        if os.path.exists(socket_path):
            os.unlink(socket_path)
        second, log = start("flowd-2.log")
        deadline = time.monotonic() + 15
        while (after := qt.front()) != before:
            check(time.monotonic() < deadline, f"after the restart in front: {after}, before: {before}")
            time.sleep(0.1)
        check("restored the app" in open(log, encoding="utf-8").read(), "the new flowd restored from the journal")
        agree(qt, context.bin, socket_path, "after flowd's restart")
        check("refused to resume" in qt.logged() and "a fresh start" in qt.logged(), qt.logged())
        print("  flowd SIGKILLed and restarted on its journal: flowd-qt came back to the same screen, with the same id")
    finally:
        for process in (first, second):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        try:
            qt.close()  # after flowd is gone: it raises on a Qt warning
        finally:
            shutil.rmtree(directory, ignore_errors=True)


def test_a_state_that_is_not_a_card_is_refused_and_the_host_carries_on(context):
    # flowd-gtk's test, on flowd-qt: the test plays flowd on a socket pair.
    saved = os.environ.copy()
    os.environ.update(qt_environment(context.runtime))
    try:
        gtk_tests.test_a_state_that_is_not_a_card_is_refused_and_the_host_carries_on(type("C", (), {"gtk": context.qt, "display": ""}))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_each_flowd_window_is_a_window(context):
    """The till with flowd-qt attached: one Qt window per flowd window, each as flowctl tree; the Pay
    prompt in the customer's window; its close button closes it (flowd-gtk's test, gtk_tests.till_windows)."""
    with flowd(context, ["serve", "--app", "till"], {}) as daemon:
        qt = Qt(context.qt, daemon.socket_path, context.runtime, os.path.join(daemon.directory, "qt.log"))
        try:
            gtk_tests.till_windows(qt, context.bin, daemon.socket_path)
            print("  the till's two flowd windows were two Qt windows, each as flowctl tree; closing the customer's closed it")
        finally:
            qt.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the folder with flowd and flowctl")
    parser.add_argument("--qt", required=True, help="the flowd-qt binary")
    parser.add_argument("--screenshots", help="save the walk's screenshots into this folder (docs/native)")
    arguments = parser.parse_args()

    class Context:
        pass

    context = Context()
    context.bin = os.path.abspath(arguments.bin)
    context.flowd = os.path.join(context.bin, "flowd")
    context.qt = os.path.abspath(arguments.qt)
    context.screenshots = os.path.abspath(arguments.screenshots) if arguments.screenshots else None
    if context.screenshots:
        os.makedirs(context.screenshots, exist_ok=True)
    context.runtime = tempfile.mkdtemp(prefix="fqt-run-", dir="/tmp")
    os.chmod(context.runtime, 0o700)
    failed = 0
    tests = [test_walk, test_a_cut_connection_resumes_onto_the_same_screen_without_a_qt_warning,
             test_a_killed_spawned_qt_host_comes_back_with_its_screen, test_a_crashed_daemon_comes_back_with_the_same_screens,
             test_a_state_that_is_not_a_card_is_refused_and_the_host_carries_on, test_each_flowd_window_is_a_window]
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
        shutil.rmtree(context.runtime, ignore_errors=True)
    print(f"{len(tests) - failed} of {len(tests)} Qt tests passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
