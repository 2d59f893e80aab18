#!/usr/bin/env python3
"""Lists the compiler warnings of the package's last build, and exits 1 if there are any.

Usage: compiler-warnings.py BIN_PATH   (the build's `swift build --show-bin-path`)
       compiler-warnings.py --read FILE.dia...   (the warnings of these diagnostics files only)

The Swift compiler writes each source file's diagnostics, serialized, next to its object
(BIN_PATH/<Target>.build/<File>.dia, clang's format) and keeps them until it compiles that
file again. So they hold every warning of the last compile of every file, also of the files an
incremental build did not recompile, whose warnings its output no longer shows. They are read
with the toolchain's libclang (clang_loadDiagnostics), the format's reader.

Which files: every Swift source of the package's own targets (Sources/ and Tests/), as
`swift package describe --type json` lists them. A file whose .dia is missing is an error, not a
pass: the check must never pass because it found nothing to read (a build without --build-tests,
or a SwiftPM that keeps its diagnostics elsewhere).

The C sources of the package's C targets (CBenchRelay): SwiftPM keeps no diagnostics for them,
so each is compiled again, syntax only, with the build's own command (read from the build's
manifest, .build/debug.yaml beside BIN_PATH) plus -Wall -Wextra, the warnings the C libraries of
Sources/c build with -Werror, and --serialize-diagnostics into a temporary .dia read the same
way. A C source without a command in the manifest is an error, as a missing .dia is.

Exit codes: 0 no warning, 1 warnings (listed on stdout as file:line:column: warning: message),
2 the check could not run (said on stderr). scripts/test runs it after the build;
CompilerWarningsCheckTests feeds it diagnostics files with one known warning each.
"""

import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile

WARNING = 2  # CXDiagnostic_Warning; 3 and 4 are errors
DISPLAY_SOURCE_LOCATION = 0x1
DISPLAY_COLUMN = 0x2


def fail(message):
    print(f"compiler-warnings: {message}", file=sys.stderr)
    sys.exit(2)


def libclang():
    """The toolchain's libclang: $FLOWD_LIBCLANG, else usr/lib/libclang.so beside `swift`."""
    path = os.environ.get("FLOWD_LIBCLANG")
    if not path:
        swift = shutil.which("swift")
        if swift is None:
            fail("swift is not on PATH")
        path = os.path.join(os.path.dirname(os.path.realpath(swift)), "..", "lib", "libclang.so")
    try:
        return ctypes.CDLL(path)
    except OSError as error:
        fail(f"cannot load libclang ({error}); it comes with the Swift toolchain (usr/lib/libclang.so): "
             "set FLOWD_LIBCLANG to its path")


class CXString(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("flags", ctypes.c_uint)]


def reader(clang):
    """A function from a .dia path to its diagnostics of warning severity or worse, formatted."""
    clang.clang_loadDiagnostics.restype = ctypes.c_void_p
    clang.clang_loadDiagnostics.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(CXString)]
    clang.clang_getNumDiagnosticsInSet.restype = ctypes.c_uint
    clang.clang_getNumDiagnosticsInSet.argtypes = [ctypes.c_void_p]
    clang.clang_getDiagnosticInSet.restype = ctypes.c_void_p
    clang.clang_getDiagnosticInSet.argtypes = [ctypes.c_void_p, ctypes.c_uint]
    clang.clang_getDiagnosticSeverity.restype = ctypes.c_int
    clang.clang_getDiagnosticSeverity.argtypes = [ctypes.c_void_p]
    clang.clang_formatDiagnostic.restype = CXString
    clang.clang_formatDiagnostic.argtypes = [ctypes.c_void_p, ctypes.c_uint]
    clang.clang_getCString.restype = ctypes.c_char_p
    clang.clang_getCString.argtypes = [CXString]
    clang.clang_disposeString.argtypes = [CXString]
    clang.clang_disposeDiagnostic.argtypes = [ctypes.c_void_p]
    clang.clang_disposeDiagnosticSet.argtypes = [ctypes.c_void_p]

    def read(path):
        error = ctypes.c_int()
        message = CXString()
        diagnostics = clang.clang_loadDiagnostics(path.encode(), ctypes.byref(error), ctypes.byref(message))
        if not diagnostics:
            text = clang.clang_getCString(message).decode(errors="replace")
            clang.clang_disposeString(message)
            fail(f"cannot read {path}: {text}")
        found = []
        for index in range(clang.clang_getNumDiagnosticsInSet(diagnostics)):
            diagnostic = clang.clang_getDiagnosticInSet(diagnostics, index)
            if clang.clang_getDiagnosticSeverity(diagnostic) >= WARNING:
                text = clang.clang_formatDiagnostic(diagnostic, DISPLAY_SOURCE_LOCATION | DISPLAY_COLUMN)
                found.append(clang.clang_getCString(text).decode(errors="replace"))
                clang.clang_disposeString(text)
            clang.clang_disposeDiagnostic(diagnostic)
        clang.clang_disposeDiagnosticSet(diagnostics)
        return found

    return read


def package_targets():
    """The package's own targets, as `swift package describe --type json` lists them."""
    described = subprocess.run(["swift", "package", "describe", "--type", "json"],
                               capture_output=True, text=True)
    if described.returncode != 0:
        fail(f"swift package describe failed: {described.stderr.strip()}")
    return json.loads(described.stdout)["targets"]


def expected_files(bin_path, targets):
    """The .dia of every Swift source of the package's targets, and of each target's module."""
    files = []
    for target in targets:
        if target.get("module_type") != "SwiftTarget":
            continue
        folder = os.path.join(bin_path, f"{target['c99name']}.build")
        files.append(os.path.join(folder, f"{target['c99name']}.emit-module.dia"))
        for source in target["sources"]:
            if source.endswith(".swift"):
                files.append(os.path.join(folder, os.path.splitext(os.path.basename(source))[0] + ".dia"))
    return files


C_SOURCE = (".c", ".m", ".cc", ".cpp", ".cxx", ".mm")
C_WARNINGS = ["-Wall", "-Wextra"]


def build_commands(bin_path):
    """Each object's compile command in the build's manifest (`<config>.yaml` in the build folder):
    {object path: arguments}. SwiftPM writes every command's `args` as one JSON array."""
    real = os.path.realpath(bin_path)
    manifest = os.path.join(os.path.dirname(os.path.dirname(real)), os.path.basename(real) + ".yaml")
    if not os.path.exists(manifest):
        fail(f"the build's manifest {manifest} is missing: build first with `swift build --build-tests`")
    commands, current = {}, None
    with open(manifest) as f:
        for line in f:
            if line.startswith('  "') and line.rstrip().endswith('":'):
                current = line.strip()[1:-2]
            elif current and line.startswith("    args: "):
                commands[current] = json.loads(line[len("    args: "):])
    return commands


def syntax_only(arguments, diagnostics):
    """A compile command made to check only: no object, no dependency file, no index; the C
    warnings on, and the diagnostics serialized to `diagnostics`."""
    kept, skip = [], 0
    for argument in arguments:
        if skip:
            skip -= 1
        elif argument in ("-MT", "-MF", "-o", "-index-store-path"):
            skip = 1
        elif argument not in ("-MD", "-c"):
            kept.append(argument)
    return kept + C_WARNINGS + ["-fsyntax-only", "--serialize-diagnostics", diagnostics]


def c_warnings(bin_path, targets, read):
    """The warnings of every C source of the package's C targets, compiled again to check."""
    sources = [(target, source) for target in targets if target.get("module_type") == "ClangTarget"
               for source in target["sources"] if source.endswith(C_SOURCE)]
    if not sources:
        return []
    commands = build_commands(bin_path)
    real = os.path.realpath(bin_path)
    found = []
    with tempfile.TemporaryDirectory(prefix="compiler-warnings.") as scratch:
        for index, (target, source) in enumerate(sources):
            obj = os.path.join(real, f"{target['c99name']}.build", os.path.basename(source) + ".o")
            if obj not in commands:
                fail(f"no compile command for {target['name']}'s {source} ({obj}) in the build's manifest: "
                     "build first with `swift build --build-tests` (scripts/test does)")
            diagnostics = os.path.join(scratch, f"{index}.dia")
            checked = subprocess.run(syntax_only(commands[obj], diagnostics), capture_output=True, text=True)
            if not os.path.exists(diagnostics):
                fail(f"compiling {source} again to check it wrote no diagnostics (exit {checked.returncode}): "
                     f"{checked.stderr.strip()}")
            found += read(diagnostics)
    return found


def report(lines):
    """Prints each warning once, its path relative to here, and exits 1 if there is any."""
    root = os.getcwd() + os.sep
    warnings = []
    for line in lines:
        line = line[len(root):] if line.startswith(root) else line
        if line not in warnings:
            warnings.append(line)
    for line in warnings:
        print(line)
    sys.exit(1 if warnings else 0)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--read":
        read = reader(libclang())
        report([line for path in sys.argv[2:] for line in read(path)])
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        fail("usage: compiler-warnings.py BIN_PATH | --read FILE.dia...")
    bin_path = sys.argv[1]
    targets = package_targets()
    files = expected_files(bin_path, targets)
    # A module's emit-module job may not exist (a module built in one job); its sources' files must.
    missing = [path for path in files if not os.path.exists(path) and not path.endswith(".emit-module.dia")]
    if missing:
        fail(f"{len(missing)} of the compiler's diagnostics files are missing, e.g. {missing[0]}: "
             "build first with `swift build --build-tests` (scripts/test does)")
    read = reader(libclang())
    lines = [line for path in files if os.path.exists(path) for line in read(path)]
    report(lines + c_warnings(bin_path, targets, read))


if __name__ == "__main__":
    main()
