#!/usr/bin/env python3
"""Builds flowd's Debian packages with dpkg-deb (scripts/release deb; docs/daemon.md, "Debian packages").

    FLOWD_VERSION=X release-deb.py --bin DIR --out DIR --work DIR --man full|quick

--bin holds the release binaries (flowd, flowctl, demo-screens; flowd-web when built). Writes into
--out: flowd (daemon, flowctl, the demo's host, systemd user units, man pages, completions),
flowd-web, libflowd-screen0 and libflowd-screen-dev (libflowd-screen built here with make, PREFIX
/usr), and flowd-shell when wlroots' development files are installed (it is built with
scripts/libflowd-screen shell). Dependencies on shared libraries come from dpkg-shlibdeps.
--man full: a man page per command and subcommand (scripts/generate-cli-docs, which builds
swift-argument-parser's generate-manual once); quick: one page per tool from its --help.
The maintainer is $DEBFULLNAME <$DEBEMAIL> when set.
"""
import argparse
import email.utils
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION = os.environ.get("FLOWD_VERSION", "")
ARCH = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
MULTIARCH = subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], capture_output=True, text=True,
                           check=True).stdout.strip()
LIBDIR = f"lib/{MULTIARCH}"
MAINTAINER = "%s <%s>" % (os.environ.get("DEBFULLNAME", "flowd developers"),
                          os.environ.get("DEBEMAIL", "flowd-developers@lists.flowd.dev"))
# Reproducible: every file's time and the changelog's date are the last commit's.
EPOCH = int(subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True)
            .stdout.strip() or time.time())


# The years of the repository's history, for the copyright notice.
_first = subprocess.run(["git", "-C", ROOT, "log", "--reverse", "--format=%cd", "--date=format:%Y"],
                        capture_output=True, text=True).stdout.split()
_last = time.strftime("%Y", time.gmtime(EPOCH))
YEARS = _last if not _first or _first[0] == _last else f"{_first[0]}-{_last}"


def fail(message):
    sys.exit(f"release-deb: {message}")


def sh(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        fail(f"{' '.join(argv)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout


class Package:
    """One binary package being staged in WORK/NAME: files under it, DEBIAN/ for control."""

    def __init__(self, work, name, section, summary, description, depends=(), binaries=()):
        self.name, self.section, self.summary, self.description = name, section, summary, description
        self.depends = list(depends)
        self.binaries = list(binaries)  # paths (in the package) whose libraries dpkg-shlibdeps reads
        self.root = os.path.join(work, name)
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(os.path.join(self.root, "DEBIAN"))
        self.control_files = {}
        self.doc()

    def path(self, inside):
        return os.path.join(self.root, inside.lstrip("/"))

    def install(self, source, inside, mode=0o644):
        target = self.path(inside)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
        os.chmod(target, mode)
        return target

    def write(self, inside, data, mode=0o644):
        target = self.path(inside)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(data if isinstance(data, bytes) else data.encode())
        os.chmod(target, mode)

    def write_gzip(self, inside, data):
        target = self.path(inside)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=EPOCH) as out:
                out.write(data if isinstance(data, bytes) else data.encode())
        os.chmod(target, 0o644)

    def link(self, inside, target):
        at = self.path(inside)
        os.makedirs(os.path.dirname(at), exist_ok=True)
        os.symlink(target, at)

    def doc(self):
        """copyright and the Debian changelog, which every package carries."""
        self.write(f"/usr/share/doc/{self.name}/copyright", COPYRIGHT.replace("@YEARS@", YEARS))
        date = email.utils.formatdate(EPOCH, usegmt=False, localtime=False).replace("-0000", "+0000")
        self.write_gzip(f"/usr/share/doc/{self.name}/changelog.gz",
                        f"flowd ({VERSION}) unstable; urgency=medium\n\n"
                        f"  * flowd {VERSION}, built from the flowd repository by scripts/release deb;\n"
                        f"    its changes are in docs/CHANGELOG.md.\n\n -- {MAINTAINER}  {date}\n")

    def build(self, out, compression):
        depends = list(self.depends)
        if self.binaries:
            depends[:0] = shlibdeps([self.path(b) for b in self.binaries], self.root)
        size = 0
        sums = []
        for folder, _, files in sorted(os.walk(self.root)):
            if folder.startswith(os.path.join(self.root, "DEBIAN")):
                continue
            for name in sorted(files):
                full = os.path.join(folder, name)
                if os.path.islink(full):
                    continue
                size += os.path.getsize(full)
                with open(full, "rb") as f:
                    sums.append(f"{hashlib.md5(f.read()).hexdigest()}  {os.path.relpath(full, self.root)}\n")
        paragraphs = [textwrap.fill(" ".join(p.split()), 72) for p in self.description.strip().split("\n\n")]
        description = "\n .\n".join("\n".join(" " + line for line in p.split("\n")) for p in paragraphs)
        control = (f"Package: {self.name}\nSource: flowd\nVersion: {VERSION}\nArchitecture: {ARCH}\n"
                   f"Maintainer: {MAINTAINER}\nInstalled-Size: {(size + 1023) // 1024}\n"
                   + (f"Depends: {', '.join(depends)}\n" if depends else "")
                   + f"Section: {self.section}\nPriority: optional\nDescription: {self.summary}\n{description}\n")
        self.control_files["control"] = control
        self.control_files["md5sums"] = "".join(sums)
        for name, text in self.control_files.items():
            with open(os.path.join(self.root, "DEBIAN", name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(self.root, "DEBIAN", name), 0o644)
        for folder, dirs, files in os.walk(self.root):
            for name in dirs + files:
                full = os.path.join(folder, name)
                if not os.path.islink(full):
                    os.utime(full, (EPOCH, EPOCH))
        os.makedirs(out, exist_ok=True)
        deb = os.path.join(out, f"{self.name}_{VERSION}_{ARCH}.deb")
        sh(["dpkg-deb", "--root-owner-group"] + compression + ["--build", self.root, deb],
           env=dict(os.environ, SOURCE_DATE_EPOCH=str(EPOCH)))
        print(f"release-deb: {os.path.basename(deb)}  {os.path.getsize(deb):>10} bytes  Depends: {', '.join(depends)}")


def shlibdeps(binaries, root):
    """The Depends of BINARIES' shared libraries, from dpkg-shlibdeps (it wants a debian/control)."""
    scratch = os.path.join(os.path.dirname(root), ".shlibdeps")
    os.makedirs(os.path.join(scratch, "debian"), exist_ok=True)
    with open(os.path.join(scratch, "debian", "control"), "w") as f:
        f.write("Source: flowd\n\nPackage: flowd\nArchitecture: any\n")
    out = sh(["dpkg-shlibdeps", "-O", "-l" + os.path.join(os.path.dirname(root), "libflowd-screen0", "usr", LIBDIR)]
             + binaries, cwd=scratch)
    match = re.search(r"shlibs:Depends=(.*)", out)
    return [d.strip() for d in match.group(1).split(",")] if match else []


COPYRIGHT = """flowd: the Flow pattern daemon, its tools, and libflowd-screen.

Copyright (C) @YEARS@ the flowd developers.

The flowd repository declares no licence of its own yet; until it does, ask the
flowd developers before you redistribute these packages.

The Swift programs (flowd, flowctl, demo-screens, flowd-web) are linked with the
Swift runtime, its standard library, Dispatch and Foundation (including ICU
data), from the Swift toolchain (https://swift.org), and with these Swift
packages: swift-argument-parser, swift-log, swift-collections, swift-protobuf
and, in flowd-web, Hummingbird, hummingbird-websocket, SwiftNIO and its
extensions (swift-nio-ssl includes BoringSSL). The Swift toolchain, its
libraries and these packages are licensed under the Apache License 2.0 (the
Swift runtime with the Runtime Library Exception); ICU under the Unicode
License; BoringSSL under the OpenSSL/ISC licences. On Debian systems the
Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.
"""


def man_page(tool, name):
    """One man page from TOOL's --help, for --man quick (no generate-manual)."""
    text = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
    summary = next((l.split(":", 1)[1].strip() for l in text.splitlines() if l.startswith("OVERVIEW:")), name)
    body = text.replace("\\", "\\e").replace("\n.", "\n\\&.").replace("\n'", "\n\\&'")
    return (f'.TH {name.upper()} 1 "" "flowd {VERSION}" "flowd"\n.SH NAME\n{name} \\- {summary.rstrip(".")}\n'
            f".SH DESCRIPTION\n.nf\n{body}\n.fi\n")


def cli_docs(tools, mode, work):
    """Man pages and completions for TOOLS: {name: {"man": [paths], "bash"/"zsh"/"fish": path}}."""
    out = os.path.join(work, "cli-docs")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    if mode == "full":
        sh([os.path.join(ROOT, "scripts", "generate-cli-docs"), "--out", out] + tools)
    else:
        sh([os.path.join(ROOT, "scripts", "generate-cli-docs"), "--completions-only", "--out", out] + tools)
        os.makedirs(os.path.join(out, "man", "man1"))
        for tool in tools:
            name = os.path.basename(tool)
            with open(os.path.join(out, "man", "man1", name + ".1"), "w") as f:
                f.write(man_page(tool, name))
    result = {}
    for tool in tools:
        name = os.path.basename(tool)
        pages = sorted(p for p in os.listdir(os.path.join(out, "man", "man1"))
                       if p == name + ".1" or p.startswith(name + "."))
        result[name] = {
            "man": [os.path.join(out, "man", "man1", p) for p in pages],
            "bash": os.path.join(out, "completions", "bash", name),
            "zsh": os.path.join(out, "completions", "zsh", "_" + name),
            "fish": os.path.join(out, "completions", "fish", name + ".fish"),
        }
    return result


def tidy_mdoc(text):
    """generate-manual's mdoc, as lintian wants it: the NAME entry unquoted and, for a subcommand,
    named as its page (flowd.serve; `man flowd.serve`) so that whatis can read it
    (bad-whatis-entry), the SYNOPSIS still saying `flowd serve`; a blank line a .Pp between text
    and dropped elsewhere (groff's "Empty input line")."""
    if not text.startswith(".\\\" ") and ".Dd " not in text[:200]:
        return text
    lines = text.split("\n")
    out = []
    name = None
    for index, line in enumerate(lines):
        match = re.fullmatch(r'\.N([md]) "(.*)"', line)
        if match and name is None and match.group(1) == "m":
            name = match.group(2)
            out.append(".Nm " + name.replace(" ", "."))
            continue
        if match and match.group(1) == "d":
            out.append(".Nd " + match.group(2))
            continue
        if line == ".Nm" and name and " " in name:
            out.append(f'.Nm "{name}"')
            continue
        if line == "":
            before = out[-1] if out else "."
            after = lines[index + 1] if index + 1 < len(lines) else "."
            if not before.startswith(".") and after and not after.startswith("."):
                out.append(".Pp")
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def add_tool(package, name, binary, docs):
    package.install(binary, f"/usr/bin/{name}", 0o755)
    package.binaries.append(f"/usr/bin/{name}")
    for page in docs[name]["man"]:
        with open(page) as f:
            package.write_gzip(f"/usr/share/man/man1/{os.path.basename(page)}.gz", tidy_mdoc(f.read()))
    # Sourced by bash-completion, not run: without the #! line swift-argument-parser writes.
    with open(docs[name]["bash"]) as f:
        bash = f.read()
    package.write(f"/usr/share/bash-completion/completions/{name}", re.sub(r"\A#!.*\n", "", bash))
    package.install(docs[name]["zsh"], f"/usr/share/zsh/vendor-completions/_{name}")
    package.install(docs[name]["fish"], f"/usr/share/fish/vendor_completions.d/{name}.fish")


def unit(path, binary):
    """A unit of scripts/systemd for a package: the binary in /usr/bin, PATH without ~/.local/bin."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"^ExecStart=%h/\.local/bin/(\S+)", r"ExecStart=/usr/bin/\1", text, flags=re.M)
    text = text.replace("Environment=PATH=%h/.local/bin:/usr/local/bin:/usr/bin:/bin",
                        "Environment=PATH=/usr/local/bin:/usr/bin:/bin")
    if f"ExecStart=/usr/bin/{binary}" not in text:
        fail(f"{path}: no ExecStart=%h/.local/bin/{binary} to point at /usr/bin/{binary}")
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--man", choices=["full", "quick"], required=True)
    args = parser.parse_args()
    if not re.fullmatch(r"[0-9][0-9A-Za-z.+~]*", VERSION):
        fail(f"FLOWD_VERSION {VERSION!r} is not a Debian version (from Sources/FlowWire/FlowdVersion.swift)")
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(work)
    binary = {n: os.path.join(args.bin, n) for n in ("flowd", "flowctl", "demo-screens", "flowd-web")}
    tools = [binary[n] for n in ("flowd", "flowctl", "demo-screens", "flowd-web") if os.access(binary[n], os.X_OK)]
    for needed in ("flowd", "flowctl", "demo-screens"):
        if binary[needed] not in tools:
            fail(f"no {needed} in {args.bin}")
    docs = cli_docs(tools, args.man, work)

    # libflowd-screen, built for /usr, staged with make install.
    stage = os.path.join(work, "c-stage")
    build = os.path.join(work, "c-build")
    make = ["make", "-s", "-C", os.path.join(ROOT, "Sources/c/flowd-screen"), f"BUILD={build}", "PREFIX=/usr", f"LIBDIR={LIBDIR}"]
    sh(make + ["all"])
    sh(make + [f"DESTDIR={stage}", "install"])
    staged = os.path.join(stage, "usr", LIBDIR)
    library = sorted(n for n in os.listdir(staged) if re.fullmatch(r"libflowd-screen\.so\.\d+\.\d+\.\d+", n))
    if library != [f"libflowd-screen.so.{VERSION}"]:
        fail(f"libflowd-screen's shared library is {library}, not libflowd-screen.so.{VERSION}: "
             "its Makefile must read the version from Sources/FlowWire/FlowdVersion.swift")
    soname = re.search(r"SONAME\s+(\S+)", sh(["objdump", "-p", os.path.join(staged, library[0])])).group(1)
    major = soname.rsplit(".", 1)[1]
    lib_name = f"libflowd-screen{major}"

    lib = Package(work, lib_name, "libs", "C library for screen hosts of flowd (shared library)",
                  "libflowd-screen speaks flowd's wire protocol from C or any toolkit: a screen host\n"
                  "shows the screens flowd places and sends back what the user did. It needs only\n"
                  "the C library and never blocks.\n\nThis package holds the shared library.")
    lib.install(os.path.join(staged, library[0]), f"/usr/{LIBDIR}/{library[0]}")
    sh(["strip", "--strip-unneeded", "--remove-section=.comment", "--remove-section=.note", lib.path(f"/usr/{LIBDIR}/{library[0]}")])
    lib.link(f"/usr/{LIBDIR}/{soname}", library[0])
    lib.binaries.append(f"/usr/{LIBDIR}/{library[0]}")
    lib.control_files["shlibs"] = f"libflowd-screen {major} {lib_name} (>= {VERSION})\n"
    lib.control_files["triggers"] = "activate-noawait ldconfig\n"

    dev = Package(work, "libflowd-screen-dev", "libdevel", "C library for screen hosts of flowd (development files)",
                  "libflowd-screen speaks flowd's wire protocol from C or any toolkit: a screen host\n"
                  "shows the screens flowd places and sends back what the user did.\n\n"
                  "This package holds the header, the static library, the pkg-config file\n"
                  "flowd-screen.pc and the manual flowd-screen(3).",
                  depends=[f"{lib_name} (= {VERSION})"])
    dev.install(os.path.join(stage, "usr/include/flowd/screen.h"), "/usr/include/flowd/screen.h")
    dev.install(os.path.join(staged, "libflowd-screen.a"), f"/usr/{LIBDIR}/libflowd-screen.a")
    sh(["strip", "--strip-debug", "--remove-section=.comment", dev.path(f"/usr/{LIBDIR}/libflowd-screen.a")])
    dev.link(f"/usr/{LIBDIR}/libflowd-screen.so", soname)
    dev.install(os.path.join(staged, "pkgconfig/flowd-screen.pc"), f"/usr/{LIBDIR}/pkgconfig/flowd-screen.pc")
    with open(os.path.join(stage, "usr/share/man/man3/flowd-screen.3"), "rb") as f:
        dev.write_gzip("/usr/share/man/man3/flowd-screen.3.gz", f.read())

    flowd = Package(work, "flowd", "misc", "Flow pattern daemon: app flows and screen hosts over a socket",
                    "flowd runs an app's flows and tells screen hosts, over a Unix socket, which screens\n"
                    "to show where; hosts send back what the user did. flowctl inspects and drives a\n"
                    "running flowd; demo-screens hosts the built-in demo's screens in a terminal.\n\n"
                    "The programs carry the Swift runtime: no Swift toolchain is needed. systemd user\n"
                    "units start flowd on the first connection to its socket:\n"
                    "systemctl --user enable --now flowd.socket")
    for name in ("flowd", "flowctl", "demo-screens"):
        add_tool(flowd, name, binary[name], docs)
    flowd.write("/usr/lib/systemd/user/flowd.service", unit(os.path.join(ROOT, "scripts/systemd/flowd.service"), "flowd"))
    flowd.install(os.path.join(ROOT, "scripts/systemd/flowd.socket"), "/usr/lib/systemd/user/flowd.socket")
    packages = [lib, dev, flowd]

    if binary["flowd-web"] in tools:
        web = Package(work, "flowd-web", "web", "flowd's screens and live inspector in a browser",
                      "flowd-web serves a running flowd's screens to browser tabs (each tab a screen host)\n"
                      "and a live inspector of its flows, over HTTP or HTTPS with a token.",
                      depends=[f"flowd (= {VERSION})"])
        add_tool(web, "flowd-web", binary["flowd-web"], docs)
        packages.append(web)

    shell_binary = os.path.join(ROOT, ".build/c/flowd-shell/flowd-shell")
    if subprocess.run(["pkg-config", "--exists", "wlroots"]).returncode == 0:
        sh([os.path.join(ROOT, "scripts/libflowd-screen"), "shell"])
        shell = Package(work, "flowd-shell", "x11", "Wayland compositor that shows flowd's screens",
                        "flowd-shell is a Wayland compositor (wlroots) whose scene is flowd's navigation\n"
                        "model: each screen host's window is placed where flowd says. A systemd user unit\n"
                        "runs it beside flowd's.",
                        depends=[f"flowd (= {VERSION})"])
        shell.install(shell_binary, "/usr/bin/flowd-shell", 0o755)
        sh(["strip", "--strip-unneeded", shell.path("/usr/bin/flowd-shell")])
        shell.binaries.append("/usr/bin/flowd-shell")
        shell.write("/usr/lib/systemd/user/flowd-shell.service",
                    unit(os.path.join(ROOT, "scripts/systemd/flowd-shell.service"), "flowd-shell"))
        shell.write_gzip("/usr/share/man/man1/flowd-shell.1.gz", SHELL_MAN.replace("@VERSION@", VERSION))
        packages.append(shell)
    else:
        print("release-deb: no flowd-shell package (wlroots' development files are not installed; "
              "scripts/libflowd-screen shell installs them)")

    # quick: fast to write (scripts/test); full: as small as dpkg-deb makes them.
    compression = ["-Zgzip", "-z1"] if args.man == "quick" else ["-Zxz"]
    for package in packages:
        package.build(args.out, compression)


SHELL_MAN = r""".TH FLOWD-SHELL 1 "" "flowd @VERSION@" "flowd"
.SH NAME
flowd-shell \- Wayland compositor that shows flowd's screens
.SH SYNOPSIS
.B flowd-shell
.SH DESCRIPTION
.B flowd-shell
is a Wayland compositor whose scene is flowd's navigation model: it connects to
flowd as a display, and places each screen host's window where flowd says.
It finds flowd's socket as flowctl does ($FLOWD_SOCKET, else
$XDG_RUNTIME_DIR/flowd/flowd.sock). Run it with
.B systemctl --user enable --now flowd-shell
(the unit flowd-shell.service), or from a seat session on a device with DRM/KMS.
.SH SEE ALSO
.BR flowd (1),
.BR flowctl (1),
.BR flowd-screen (3)
"""

if __name__ == "__main__":
    main()
