#!/usr/bin/env python3
"""Every code example in docs/native.md, built as the page says and run against flowd.

Each C, C++ and Rust block starts with a comment naming its file and its build line
(`/* first-host.c: cc ... -o first-host */`); a block without one fails the test, so no example
goes unbuilt. The files are written into a scratch folder and built with their own lines against
libflowd-screen installed in --prefix (found by pkg-config). Then they run:

- first-host presses "Next" on the tutorial; display, a display connection, sees screen 4 and
  swipes back to screen 2; flowd's stop ends the host;
- glib-host is placed the tutorial's first screen and ends with flowd;
- qt-host runs with QT_FATAL_WARNINGS=1 (a Qt warning aborts it): flowd is SIGKILLed and started
  again on the same socket, twice; the host reconnects (a new descriptor each time, none between
  the tries), is placed the screen again, and exits 0 when flowd stops;
- card-json (cJSON) and card-json-qt (QJsonDocument) decode the tutorial contract's example state
  from `flowd describe --json`;
- the Rust package (Cargo.toml, build.rs, src/main.rs) builds with cargo, and runs, when cargo, its crates (bindgen,
  pkg-config) and libclang are there; otherwise the test says it skipped them and why.

    python3 Tests/Docs/native_examples.py --bin .build/debug --prefix .build/c/prefix-docs
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
import threading
import time
import traceback

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from flowd_process import FlowdProcess  # noqa: E402

PAGE = os.path.join(ROOT, "docs", "native.md")
BLOCK = re.compile(r"^```(c|cpp|rust|toml)\n(.*?)^```$", re.S | re.M)
HEADER = re.compile(r"^(?:/\*|//|#) ([\w./-]+): (.*?)(?: \*/)?$")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def examples():
    """[(language, file name, build line, text)] of the page's blocks."""
    found = []
    for language, text in BLOCK.findall(open(PAGE, encoding="utf-8").read()):
        header = HEADER.match(text.splitlines()[0])
        check(header, f"a {language} block of docs/native.md does not start with 'FILE: BUILD LINE':\n{text[:200]}")
        found.append((language, header[1], header[2], text))
    return found


class Lines:
    """A process whose standard output is collected as it comes (a thread reads it)."""

    def __init__(self, command, environment, cwd):
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, cwd=cwd, text=True)
        self.out = ""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.out += line

    def wait_for(self, text, count=1, timeout=15):
        deadline = time.monotonic() + timeout
        while self.out.count(text) < count:
            if self.process.poll() is not None:
                status, out, err = self.finish()
                raise AssertionError(f"ended ({status}) before {text!r}:\n{out}\n{err}")
            check(time.monotonic() < deadline, f"no {text!r} (x{count}) in:\n{self.out}")
            time.sleep(0.05)

    def finish(self, timeout=15):
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(5)
        return self.process.returncode, self.out, self.process.stderr.read()


def run_hosts(context):
    environment = dict(os.environ, LD_LIBRARY_PATH=os.path.join(context.prefix, "lib"), QT_FATAL_WARNINGS="1")
    scratch = context.scratch

    def flowd(directory):
        os.makedirs(directory, exist_ok=True)
        return FlowdProcess(context.flowd, ["serve", "--app", "tutorial"], directory, environment={"FLOWD_PYTHON_SCREENS": "0"})

    # The first host, and the display's back swipe.
    daemon = flowd(os.path.join(scratch, "f1"))
    try:
        with_socket = dict(environment, FLOWD_SOCKET=daemon.socket_path)
        host = Lines([os.path.join(scratch, "first-host")], with_socket, scratch)
        host.wait_for("screen 4: tutorial")
        display = subprocess.run([os.path.join(scratch, "display"), "back"], env=with_socket, capture_output=True, text=True, timeout=15)
        check(display.returncode == 0 and display.stdout == "visible screen 4\nvisible screen 2\n", f"display: {display}")
        daemon.terminate()
        status, out, err = host.finish()
        check(status == 0 and "screen 2: tutorial" in out and "ended:" in out, f"first-host: {status}\n{out}\n{err}")
        print("  first-host pressed Next (screen 4); display swiped back to screen 2; both ended cleanly")
    finally:
        daemon.close()

    daemon = flowd(os.path.join(scratch, "f2"))
    try:
        host = Lines([os.path.join(scratch, "glib-host")], dict(environment, FLOWD_SOCKET=daemon.socket_path), scratch)
        host.wait_for("screen 2: tutorial")
        daemon.terminate()
        status, out, err = host.finish()
        check(status == 0 and "ended:" in out, f"glib-host: {status}\n{out}\n{err}")
        print("  glib-host was placed screen 2 and ended with flowd")
    finally:
        daemon.close()

    # The Qt host through two restarts of flowd: each a reconnect onto a new descriptor.
    directory = os.path.join(scratch, "f3")
    daemon = flowd(directory)
    try:
        host = Lines([os.path.join(scratch, "qt-host")], dict(environment, FLOWD_SOCKET=daemon.socket_path), scratch)
        host.wait_for("screen 2: tutorial")
        for restart in (2, 3):
            daemon.kill()
            daemon.close()
            daemon = flowd(directory)
            host.wait_for("screen 2: tutorial", count=restart)
            check(host.process.poll() is None, "qt-host is still running")
        daemon.terminate()
        status, out, err = host.finish()
        check(status == 0 and "ended:" in out, f"qt-host under QT_FATAL_WARNINGS: exit {status}\n{out}\n{err}")
        check("QSocketNotifier" not in err and "fresh" in err, f"qt-host: {err}")
        print("  qt-host came back after two SIGKILLed flowds, without a Qt warning (QT_FATAL_WARNINGS=1), and ended with flowd")
    finally:
        daemon.close()


def run_json(context):
    contract = json.loads(subprocess.run([context.flowd, "describe", "tutorial", "--json"], check=True, capture_output=True,
                                         text=True).stdout)
    example = contract["screens"][0]["state"]["example"]
    expected = f"title: {example['title']}\n" + "".join(f"button: {b}\n" for b in example["buttons"]) + f"field: {example['field']}\n"
    for name in ("card-json", "card-json-qt"):
        run = subprocess.run([os.path.join(context.scratch, name)], input=json.dumps(example), capture_output=True, text=True,
                             env=dict(os.environ, LD_LIBRARY_PATH=os.path.join(context.prefix, "lib")), timeout=15)
        check(run.returncode == 0 and run.stdout == expected, f"{name}: {run}\nexpected:\n{expected}")
        bad = subprocess.run([os.path.join(context.scratch, name)], input="not json", capture_output=True, text=True,
                             env=dict(os.environ, LD_LIBRARY_PATH=os.path.join(context.prefix, "lib")), timeout=15)
        check(bad.returncode == 1, f"{name} refuses what is not JSON: {bad}")
    print(f"  card-json and card-json-qt decoded the contract's example state {json.dumps(example)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the folder with flowd")
    parser.add_argument("--prefix", required=True, help="libflowd-screen installed here (scripts/libflowd-screen install)")
    arguments = parser.parse_args()

    class Context:
        pass

    context = Context()
    context.flowd = os.path.join(os.path.abspath(arguments.bin), "flowd")
    context.prefix = os.path.abspath(arguments.prefix)
    context.scratch = tempfile.mkdtemp(prefix="fdx-", dir="/tmp")
    environment = dict(os.environ, PKG_CONFIG_PATH=os.path.join(context.prefix, "lib", "pkgconfig"))
    failed, cargo = 0, None
    try:
        blocks = list(examples())
        for language, name, build, text in blocks:
            path = os.path.join(context.scratch, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
        # One cargo package, its build line Cargo.toml's, built while the C and C++ examples are
        # (without crates.io, cargo spends ~10 s retrying before it says so).
        rust = [(name, build) for language, name, build, _ in blocks if language in ("rust", "toml")]
        cargo = start_rust(context, rust, environment) if rust else None
        for language, name, build, text in blocks:
            if language in ("rust", "toml"):
                continue
            result = subprocess.run(build, shell=True, cwd=context.scratch, env=environment, capture_output=True, text=True)
            if result.returncode != 0:
                failed += 1
                print(f"FAIL {name}: {build}\n{result.stdout}{result.stderr}")
            else:
                print(f"ok   built {name}: {build}")
        if rust:
            failed += build_rust(context, rust, environment, cargo)
        for test in (run_hosts, run_json):
            try:
                test(context)
                print(f"ok   {test.__name__}")
            except Exception:  # noqa: BLE001 - every failure is reported, then the next test runs
                failed += 1
                print(f"FAIL {test.__name__}")
                traceback.print_exc()
    finally:
        if cargo and cargo.poll() is None:
            cargo.kill()
        shutil.rmtree(context.scratch, ignore_errors=True)
    print("docs/native.md: every example built and ran" if not failed else f"docs/native.md: {failed} failures")
    return 1 if failed else 0


def run_rust(context, environment):
    """The Rust host is placed the tutorial's first screen."""
    directory = os.path.join(context.scratch, "f4")
    os.makedirs(directory)
    daemon = FlowdProcess(context.flowd, ["serve", "--app", "tutorial"], directory, environment={"FLOWD_PYTHON_SCREENS": "0"})
    try:
        host = Lines([os.path.join(context.scratch, "target", "debug", "rust-screens")],
                     dict(environment, FLOWD_SOCKET=daemon.socket_path, LD_LIBRARY_PATH=os.path.join(context.prefix, "lib")),
                     context.scratch)
        host.wait_for("screen 2: tutorial")
        daemon.terminate()
        host.finish()
        print("  rust-screens was placed screen 2")
        return 0
    except AssertionError:
        traceback.print_exc()
        return 1
    finally:
        daemon.close()


def start_rust(context, blocks, environment):
    """The cargo build of the Rust blocks, started; None without cargo."""
    if not shutil.which("cargo"):
        return None
    return subprocess.Popen(dict(blocks)["Cargo.toml"], shell=True, cwd=context.scratch, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def build_rust(context, blocks, environment, cargo):
    """The Rust blocks as one cargo package (its build from start_rust); 0 when built or skipped (saying why), 1 when it failed."""
    names = [name for name, _ in blocks]
    if cargo is None:
        print(f"skip {', '.join(names)}: no cargo on this machine")
        return 0
    build = dict(blocks)["Cargo.toml"]
    stdout, stderr = cargo.communicate()
    result = subprocess.CompletedProcess(build, cargo.returncode, stdout, stderr)
    if result.returncode == 0:
        print(f"ok   built {', '.join(names)}: {build}")
        return run_rust(context, environment)
    offline = re.search(r"(failed to (download|get|query)|Unable to find libclang|couldn't find any valid shared libraries)", result.stderr)
    if offline:
        print(f"skip {', '.join(names)}: {offline[0]} (cargo needs crates.io and libclang)")
        return 0
    print(f"FAIL {', '.join(names)}: {build}\n{result.stderr[-3000:]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
