#!/usr/bin/env python3
"""flowd's footprint on a device, static against dynamic (scripts/release footprint; the figures
are in docs/performance.md, "On a device").

    release-footprint.py STATIC_DIR DYNAMIC_DIR TOOLCHAIN_DIR [RUNS]

STATIC_DIR and DYNAMIC_DIR hold the same stripped programs (flowd, flowctl, demo-screens, flowd-web),
linked with the Swift runtime in and to the toolchain's shared libraries. Prints, for each:
- the size of each program, and for dynamic the toolchain libraries it loads (what a device would
  have to carry besides);
- idle RSS (VmRSS) of flowd serving the demo's launcher with demo-screens attached and showing its
  menu, 2 s after the menu was shown;
- start-up to the first accept: from exec to the first connect(2) to flowd's socket that succeeds,
  with a cold page cache (sync; echo 3 > /proc/sys/vm/drop_caches before each run) and warm;
  the median of RUNS (default 5) runs, alternating static and dynamic.
As root (drop_caches).
"""
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def toolchain_libraries(binary, toolchain):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    paths = [line.split("=>")[1].split("(")[0].strip() for line in out.splitlines() if "=>" in line]
    return [p for p in paths if p.startswith(toolchain + "/")]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start_flowd(flowd, folder, app="launcher"):
    sock = os.path.join(folder, "flowd.sock")
    env = dict(os.environ, FLOWD_PYTHON_SCREENS="0", XDG_RUNTIME_DIR=folder)
    process = subprocess.Popen([flowd, "--app", app, "--socket", sock, "--no-state"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return process, sock


def time_to_accept(flowd, cold):
    """Seconds from exec to the first successful connect to flowd's socket."""
    folder = tempfile.mkdtemp(prefix="fp-")
    if cold:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    start = time.monotonic()
    process, sock = start_flowd(flowd, folder)
    try:
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(sock)
                return time.monotonic() - start
            except OSError:
                if process.poll() is not None:
                    sys.exit(f"release-footprint: {flowd} exited with {process.returncode}")
                if time.monotonic() - start > 60:
                    sys.exit(f"release-footprint: {flowd} did not accept within 60 s")
                time.sleep(0.0005)
            finally:
                s.close()
    finally:
        process.terminate()
        process.wait()
        subprocess.run(["rm", "-rf", folder])


def idle_rss(bin_dir):
    """flowd (launcher) and demo-screens attached, showing the menu: their VmRSS in KiB."""
    folder = tempfile.mkdtemp(prefix="fp-")
    script = os.path.join(folder, "menu.txt")
    with open(script, "w") as f:
        f.write('on menu "flowd demos" body "Choose a demo." expect\n')
    process, sock = start_flowd(os.path.join(bin_dir, "flowd"), folder)
    screens = None
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(sock) and time.monotonic() < deadline:
            time.sleep(0.05)
        screens = subprocess.Popen([os.path.join(bin_dir, "demo-screens"), "--socket", sock, "--script", script],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = ""
        while "script done" not in line:
            line = screens.stdout.readline()
            if not line:
                sys.exit("release-footprint: demo-screens ended before showing the menu")
        time.sleep(2)
        return rss_kb(process.pid), rss_kb(screens.pid)
    finally:
        for p in (screens, process):
            if p:
                p.terminate()
                p.wait()
        subprocess.run(["rm", "-rf", folder])


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__.strip())
    static, dynamic, toolchain = argv[:3]
    runs = int(argv[3]) if len(argv) == 4 else 5
    mb = lambda n: f"{n / 1e6:.1f} MB"
    print("## sizes (stripped)")
    print(f"| program | static | dynamic | dynamic + the toolchain libraries it loads |")
    print("|---|---|---|---|")
    for name in ("flowd", "flowctl", "demo-screens", "flowd-web"):
        s, d = os.path.join(static, name), os.path.join(dynamic, name)
        if not (os.path.exists(s) and os.path.exists(d)):
            continue
        libraries = toolchain_libraries(d, toolchain)
        loaded = sum(os.path.getsize(p) for p in libraries)
        print(f"| {name} | {mb(os.path.getsize(s))} | {mb(os.path.getsize(d))} | "
              f"{mb(os.path.getsize(d) + loaded)} ({len(libraries)} libraries, {mb(loaded)}) |")
    print("\n## idle RSS: flowd --app launcher, demo-screens attached showing the menu")
    for label, folder in (("static", static), ("dynamic", dynamic)):
        flowd_kb, screens_kb = idle_rss(folder)
        print(f"{label}: flowd {flowd_kb / 1024:.1f} MiB, demo-screens {screens_kb / 1024:.1f} MiB")
    print(f"\n## start-up to the first accept (flowd --app launcher), median of {runs}")
    for cold in (True, False):
        times = {"static": [], "dynamic": []}
        for _ in range(runs):
            for label, folder in (("static", static), ("dynamic", dynamic)):
                times[label].append(time_to_accept(os.path.join(folder, "flowd"), cold))
        for label in ("static", "dynamic"):
            t = sorted(times[label])
            print(f"{'cold' if cold else 'warm'} {label}: median {statistics.median(t) * 1000:.0f} ms "
                  f"(min {t[0] * 1000:.0f}, max {t[-1] * 1000:.0f})")


if __name__ == "__main__":
    main(sys.argv[1:])
