#!/usr/bin/env python3
"""The binaries of a release (or of installed packages) at work, run by scripts/release inside a
mount namespace where the Swift toolchain's folder is hidden.

    release-check.py [--c-host PROGRAM] BIN_DIR TOOLCHAIN_DIR|- VERSION

Checks, for the binaries BIN_DIR holds (flowd and flowctl always; flowd-web and demo-screens when
there): the toolchain is really hidden; each binary's --version is VERSION; flowd starts and
flowctl ping and tree reach it; demo-screens walks the whole demo (scripts/demo-walkthrough.txt)
against flowd's launcher to its end, both exiting 0; flowd-web serves its screens page. With
--c-host, PROGRAM (libflowd-screen's examples/print-screens.c, built against the installed -dev
package) hosts the tutorial's screens: a button press pushes the next one. Exits 1 on the first
difference, saying what it was.
"""
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


sys.stdout.reconfigure(line_buffering=True)


def fail(message):
    print(f"release-check: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"release-check: ok: {message}")


def run(argv, timeout=60, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)


class Daemon:
    """A flowd serving APP on a socket in a fresh folder; stopped (SIGTERM, then SIGKILL) on exit."""

    def __init__(self, flowd, app, folder):
        self.socket = os.path.join(folder, "flowd.sock")
        self.log_path = os.path.join(folder, "flowd.log")
        self.log = open(self.log_path, "w")
        env = dict(os.environ, FLOWD_PYTHON_SCREENS="0", XDG_RUNTIME_DIR=folder, XDG_STATE_HOME=folder)
        self.process = subprocess.Popen([flowd, "--app", app, "--socket", self.socket, "--no-state"],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while "listening on" not in self.text():
            if self.process.poll() is not None:
                fail(f"flowd --app {app} exited with {self.process.returncode} before listening:\n{self.text()}")
            if time.monotonic() > deadline:
                fail(f"flowd --app {app} did not listen within 30 s:\n{self.text()}")
            time.sleep(0.05)

    def text(self):
        with open(self.log_path) as log:
            return log.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def main(argv):
    c_host = None
    if argv[:1] == ["--c-host"]:
        c_host, argv = argv[1], argv[2:]
    if len(argv) != 3:
        sys.exit(__doc__.strip())
    bin_dir, toolchain, version = argv
    if toolchain != "-":  # "-": run where the toolchain is (scripts/release cross-c)
        if not os.path.isdir(toolchain) or os.listdir(toolchain) or shutil.which("swift"):
            fail(f"the toolchain's folder {toolchain} is not hidden (swift: {shutil.which('swift')})")
        ok(f"the toolchain's folder {toolchain} is empty here")
    binary = {name: os.path.join(bin_dir, name) for name in ("flowd", "flowctl", "flowd-web", "demo-screens")}
    present = [name for name, path in binary.items() if os.access(path, os.X_OK)]
    for name in ("flowd", "flowctl"):
        if name not in present:
            fail(f"no {name} in {bin_dir}")
    for name in present:
        result = run([binary[name], "--version"])
        if result.returncode != 0 or result.stdout.strip() != version:
            fail(f"{binary[name]} --version: exit {result.returncode}, printed {result.stdout.strip()!r} "
                 f"(expected {version!r}); stderr: {result.stderr.strip()}")
    ok(f"--version is {version} for {', '.join(present)}")

    folder = tempfile.mkdtemp(prefix="flowd-release-")
    try:
        if c_host:
            check_c_host(binary, c_host, folder)
            return
        daemon = Daemon(binary["flowd"], "tutorial", folder)
        try:
            env = dict(os.environ, FLOWD_SOCKET=daemon.socket)
            ping = run([binary["flowctl"], "ping"], env=env)
            if ping.returncode != 0 or "pong from flowd" not in ping.stdout:
                fail(f"flowctl ping: exit {ping.returncode}: {ping.stdout}{ping.stderr}")
            ok(f"flowd started; flowctl ping: {ping.stdout.strip()}")
            tree = run([binary["flowctl"], "tree"], env=env)
            if tree.returncode != 0 or "tutorial" not in tree.stdout:
                fail(f"flowctl tree: exit {tree.returncode}: {tree.stdout}{tree.stderr}")
            ok("flowctl tree shows the tutorial's flows")
            if "flowd-web" in present:
                check_web(binary["flowd-web"], daemon.socket)
        finally:
            daemon.stop()
        if "demo-screens" in present:
            check_walk(binary, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check_web(flowd_web, socket):
    """flowd-web on a free port serves its screens page (the token from the URL it prints)."""
    process = subprocess.Popen([flowd_web, "--socket", socket, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"(http://\S+/\?token=\S+)", line)
        if not match:
            process.kill()
            fail(f"flowd-web printed no URL: {line!r} {process.stderr.read()}")
        with urllib.request.urlopen(match.group(1), timeout=20) as response:
            page = response.read().decode()
        if response.status != 200 or "<html" not in page.lower():
            fail(f"flowd-web's page: status {response.status}: {page[:200]!r}")
        ok(f"flowd-web serves its screens page ({len(page)} bytes)")
    finally:
        process.terminate()
        process.wait(10)


def check_walk(binary, folder):
    """demo-screens walks every demo app against flowd's launcher to the end (exit 0 both)."""
    walk_folder = os.path.join(folder, "walk")
    os.makedirs(walk_folder)
    daemon = Daemon(binary["flowd"], "launcher", walk_folder)
    try:
        walk = os.path.join(ROOT, "scripts", "demo-walkthrough.txt")
        screens = run([binary["demo-screens"], "--socket", daemon.socket, "--script", walk, "--step-timeout", "20"],
                      timeout=300)
        if screens.returncode != 0:
            fail(f"demo-screens' walk: exit {screens.returncode}:\n{screens.stdout[-2000:]}{screens.stderr[-2000:]}")
        try:
            status = daemon.process.wait(30)
        except subprocess.TimeoutExpired:
            fail("flowd did not exit at the end of the walk")
        if status != 0 or "app launcher finished with Login: logged in as ann" not in daemon.text():
            fail(f"flowd's end of the walk: exit {status}:\n{daemon.text()[-2000:]}")
        ok(f"demo-screens walked the demo to its end against flowd's launcher "
           f"({screens.stdout.count('updated:')} results; both exited 0)")
    finally:
        daemon.stop()


def check_c_host(binary, c_host, folder):
    """The C host built against the installed -dev package: the tutorial's Next pushes screen 4."""
    daemon = Daemon(binary["flowd"], "tutorial", folder)
    try:
        env = dict(os.environ, FLOWD_SOCKET=daemon.socket)
        host = subprocess.Popen([c_host, "tutorial"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        # Each line is typed once the screen it names is shown; the host, which does not end at the
        # end of its input, is stopped at "- screen 4" (or after 13 s).
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in host.stdout] + [lines.put(None)],
                         daemon=True).start()
        steps = [("+ screen 2 tutorial", '2 {"didPressButton":{"index":1}}\n'), ("+ screen 4 tutorial", "4 back\n"),
                 ("- screen 4", None)]
        out, deadline = "", time.monotonic() + 13
        while steps:
            try:
                line = lines.get(timeout=max(0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            out += line
            if steps[0][0] in line:
                typed = steps.pop(0)[1]
                if typed:
                    host.stdin.write(typed)
                    host.stdin.flush()
        host.kill()
        host.wait()
        err = host.stderr.read()
        for line in ("+ screen 2 tutorial", "+ screen 4 tutorial", "- screen 4"):
            if line not in out:
                fail(f"{c_host} did not print {line!r}:\n{out}{err}")
        ok(f"the C host {c_host} hosted the tutorial: a press pushed screen 4, back popped it")
    finally:
        daemon.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
