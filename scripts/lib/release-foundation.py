#!/usr/bin/env python3
"""Which of our objects pull full Foundation (and with it CoreFoundation and ICU's data) into a
program linked with --static-swift-stdlib, read from the linker's map (scripts/release foundation).

    release-foundation.py [--none] MAP

--none: exit 1, after the list, if the program took anything of full Foundation, CoreFoundation,
FoundationInternationalization or ICU (scripts/release quick checks flowd, flowctl and demo-screens
so: they link FoundationEssentials alone).

A static program takes from each archive only the members something refers to. FoundationEssentials
(JSON, Data, Date, URL, FileManager, ProcessInfo) needs no ICU; a member of libFoundation.a
(DateFormatter, String(format:), FileHandle, CharacterSet, JSONSerialization, ...) brings
CoreFoundation, and that ICU (lib_FoundationICU.a, its data about 30 MB). Prints each member of
libFoundation.a and libFoundationInternationalization.a that an object outside the toolchain
asked for, with the object and the symbol, and the bytes of ICU and CoreFoundation taken in.
"""
import collections
import os
import subprocess
import sys


def members(map_path):
    """(archive member, the file that asked for it, the symbol) from the map's first section."""
    lines = open(map_path).read().splitlines()
    out = []
    i = 1
    while i < len(lines):
        line = lines[i]
        if line.startswith(("Allocating common", "Discarded", "Memory Configuration", "Linker script")):
            break
        if line and not line.startswith(" "):
            member = line.split()[0]
            rest = line[len(member):].strip()
            if not rest and i + 1 < len(lines) and lines[i + 1].startswith(" "):
                rest = lines[i + 1].strip()
                i += 1
            source = rest.split(" (")[0]
            out.append((member, source, rest[len(source):].strip(" ()")))
        i += 1
    return out


def demangle(symbol):
    try:
        return subprocess.run(["swift", "demangle", "--simplified", "--compact", symbol],
                              capture_output=True, text=True, timeout=10).stdout.strip() or symbol
    except (OSError, subprocess.TimeoutExpired):
        return symbol


FULL = ("libFoundation.a", "libCoreFoundation.a", "libFoundationInternationalization.a", "lib_FoundationICU.a")


def main(argv):
    none = argv[:1] == ["--none"]
    if none:
        argv = argv[1:]
    if len(argv) != 1:
        sys.exit(__doc__.strip())
    taken = members(argv[0])
    count = collections.Counter(m.split("(")[0].rsplit("/", 1)[-1] for m, _, _ in taken)
    ours = [(m, s, sym) for m, s, sym in taken
            if ("/libFoundation.a(" in m or "/libFoundationInternationalization.a(" in m) and ".a(" not in s]
    for member, source, symbol in ours:
        archive, name = member.rsplit("/", 1)[-1].split("(")
        print(f"{os.path.basename(os.path.dirname(source))}/{os.path.basename(source)}: "
              f"{archive}({name} for {demangle(symbol)}")
    print(f"archive members taken: " + ", ".join(f"{k} {v}" for k, v in sorted(count.items())))
    full = sorted(k for k in count if k in FULL)
    if none and full:
        print(f"release-foundation: the program takes {', '.join(full)}: full Foundation (and ICU's data, "
              f"about 37 MB) where FoundationEssentials should do; the lines above name what asked first",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
