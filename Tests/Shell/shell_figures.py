#!/usr/bin/env python3
"""flowd-shell's figures (docs/shell.md, "Figures"), never a timed test:

- from a tap to the next screen's first frame on the output: colour screens of the deep-stack app
  tap (push, then back from the pushed one, FLOWD_SHELL_FIGURES) and log the tap's CLOCK_MONOTONIC
  time; the shell logs the time of the first frame it commits with the new visible screen's own
  surface (`presented:`). p50 and p99 over N navigations each for an attached host, spawned screens
  with a warm pool, and spawned cold;
- the shell idle with the launcher open (strace -c over 5 s): its syscalls;
- its memory (VmRSS, VmHWM) with the launcher's screens open.

    python3 Tests/Shell/shell_figures.py --bin .build/release --shell-build .build/c/flowd-shell [--navigations 200]
"""

import argparse
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shell_tests import Stack  # noqa: E402

TIME = re.compile(r"(\d+)\.(\d{6})")


def seconds(text):
    match = TIME.search(text)
    return int(match.group(1)) + int(match.group(2)) / 1e6


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


TRACE = re.compile(r"trace: (\w+) screen (\d+) at (\d+\.\d{6})")


def breakdown(taps, frames, lines, count):
    """Where a navigation's time goes: for each step of the path, p50 and p99 of the time from the
    tap to the first time it happened for the next screen (the screen's own trace lines, the shell's
    FLOWD_SHELL_TRACE lines)."""
    events = {}
    for line in lines:
        match = TRACE.search(line)
        if match:
            events.setdefault(match.group(1), []).append((int(match.group(2)), float(match.group(3))))
    steps = {name: [] for name in ("placed", "scene", "claim", "painted", "granted", "drawn")}
    for screen, tapped in taps[:count]:
        shown = next((shown for shown, at in frames if at > tapped and shown != screen), None)
        if shown is None:
            continue
        for name in steps:
            at = next((at for who, at in events.get(name, []) if at > tapped and who in (shown, 0)), None)
            if at is not None:
                steps[name].append((at - tapped) * 1000)
    return "          from the tap to: " + ", ".join(
        f"{name} {percentile(values, 0.5):.1f}/{percentile(values, 0.99):.1f}" for name, values in steps.items() if values) + " ms (p50/p99)"


def tap_to_frame(options, mode):
    stack = Stack(options, f"figures-{mode}")
    attached = None
    try:
        stack.start_shell({"FLOWD_SHELL_TRACE": "1"})
        environment = {"FLOWD_SHELL_FIGURES": str(options.tap_after)}
        if mode == "attached":
            stack.start_flowd("deep-stack", spawned=False)
            log = open(os.path.join(stack.logs, "attached.log"), "w")
            attached = subprocess.Popen(stack.prefix + [os.path.join(stack.bin, "colour-screen"), "--socket", stack.socket, "--provide", "item"],
                                        stdout=subprocess.DEVNULL, stderr=log,
                                        env=dict(stack.environment, WAYLAND_DISPLAY=stack.wayland, **environment))
            taps_from = lambda: open(os.path.join(stack.logs, "attached.log")).read().splitlines()  # noqa: E731
        else:
            stack.start_flowd("deep-stack", extra=["--spawn-pool", "2"] if mode == "pool" else [], environment=environment)
            taps_from = lambda: stack.flowd_lines.all  # noqa: E731
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            presented = [line for line in stack.shell_lines.all if line.startswith("presented:")]
            if len(presented) > options.navigations + 2:
                break
            time.sleep(0.2)
        taps = [(int(line.split("tap: screen ")[1].split()[0]), seconds(line.split(" at ")[-1]))
                for line in taps_from() if "tap: screen" in line]
        frames = [(int(line.split()[2]), seconds(line)) for line in stack.shell_lines.all if line.startswith("presented:")]
        latencies = []
        for screen, tapped in taps:
            following = next((at for shown, at in frames if at > tapped and shown != screen), None)
            if following is not None:
                latencies.append((following - tapped) * 1000)
        latencies = latencies[:options.navigations]
        if len(latencies) < 10:
            return f"{mode}: only {len(latencies)} navigations measured (logs in {stack.logs})"
        return (f"{mode:9} {len(latencies):4} navigations, taps {options.tap_after} ms after the Place  p50 {percentile(latencies, 0.5):6.1f} ms  "
                f"p99 {percentile(latencies, 0.99):6.1f} ms  max {max(latencies):6.1f} ms\n"
                + breakdown(taps, frames, taps_from() + stack.shell_lines.all, options.navigations))
    finally:
        if attached:
            attached.kill()
            attached.wait()
        stack.close()


def idle_and_memory(options):
    stack = Stack(options, "figures-idle")
    try:
        stack.start_shell()
        stack.start_flowd()
        stack.expect_place("menu")
        stack.inject(4)
        stack.inject(0)
        stack.expect_place("student-ann")
        time.sleep(1)
        pid = stack.shell.pid
        if stack.prefix:  # setpriv execs the shell: same pid
            pass
        trace = subprocess.run(["timeout", "-s", "INT", "5", "strace", "-c", "-f", "-p", str(pid)], capture_output=True, text=True)
        summary = [line for line in trace.stderr.splitlines() if line.strip().endswith("total")]
        calls = summary[0].split()[3] if summary and len(summary[0].split()) >= 5 else "0"
        status = open(f"/proc/{pid}/status").read()
        rss = re.search(r"VmRSS:\s+(\d+)", status).group(1)
        peak = re.search(r"VmHWM:\s+(\d+)", status).group(1)
        return (f"idle      {calls} syscalls in 5 s (strace -c -f, the student editor open, 3 screen processes)\n"
                f"memory    VmRSS {int(rss) / 1024:.1f} MiB, peak {int(peak) / 1024:.1f} MiB")
    finally:
        stack.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--shell-build", required=True)
    parser.add_argument("--navigations", type=int, default=200)
    parser.add_argument("--tap-after", type=int, default=300,
                        help="ms from a screen's Place to its tap: 300 taps at rest (the motion, 220 ms, is over), 30 in the middle of it")
    parser.set_defaults(gtk=None)
    parser.add_argument("--keep")
    parser.add_argument("--logs", default="/tmp/flowd-shell-figures")
    parser.add_argument("modes", nargs="*", default=["attached", "pool", "cold"])
    options = parser.parse_args()
    print(idle_and_memory(options))
    for mode in options.modes:
        print(tap_to_frame(options, mode), flush=True)


if __name__ == "__main__":
    main()
