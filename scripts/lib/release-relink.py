#!/usr/bin/env python3
"""Prints the command that links a SwiftPM product again from the objects of an existing build,
with the Swift runtime linked in (--static) or from the toolchain's shared libraries (--dynamic).

    release-relink.py [--static | --dynamic] BIN_PATH PRODUCT OUTPUT

BIN_PATH is the build's `swift build --show-bin-path` (e.g. .build/x86_64-unknown-linux-gnu/debug);
its plan (.build/debug.yaml) holds the link command SwiftPM ran. scripts/release uses it for
`quick` (scripts/test's debug objects linked with -static-stdlib, in seconds instead of a release
build of minutes) and `footprint` (the release objects of the static build linked to the
toolchain, so that dynamic and static differ in the link alone).
"""
import json
import os
import shlex
import sys


def main(argv):
    mode = "--static"
    if argv and argv[0] in ("--static", "--dynamic"):
        mode, argv = argv[0], argv[1:]
    if len(argv) != 3:
        sys.exit(__doc__.strip())
    bin_path, product, output = argv
    bin_path = os.path.abspath(bin_path)
    configuration = os.path.basename(bin_path)
    triple = os.path.basename(os.path.dirname(bin_path))
    scratch = os.path.dirname(os.path.dirname(bin_path))
    plan = os.path.join(scratch, f"{configuration}.yaml")
    key = f'"C.{product}-{triple}-{configuration}.exe":'
    try:
        lines = open(plan).read().splitlines()
    except OSError as error:
        sys.exit(f"release-relink: cannot read the build plan {plan}: {error.strerror}; build {product} first")
    for index, line in enumerate(lines):
        if line.strip() == key:
            break
    else:
        sys.exit(f"release-relink: {plan} has no link command for {product}")
    for line in lines[index + 1:index + 8]:
        if line.strip().startswith("args: "):
            args = json.loads(line.strip()[len("args: "):])
            break
    else:
        sys.exit(f"release-relink: the link command of {product} in {plan} has no args")
    # The same link, into OUTPUT, with or without the runtime linked in.
    args = [a for a in args if a != "-static-stdlib"]
    args[args.index("-o") + 1] = os.path.abspath(output)
    if mode == "--dynamic":
        # Objects compiled with -static-stdlib ask for CoreFoundation, _FoundationCShims and
        # _FoundationCollections, which the shared toolchain has inside libFoundation*.so: empty
        # archives of those names satisfy the request.
        stubs = os.path.join(os.path.dirname(os.path.abspath(output)), "stub-libraries")
        os.makedirs(stubs, exist_ok=True)
        for name in ("CoreFoundation", "_FoundationCShims", "_FoundationCollections"):
            with open(os.path.join(stubs, f"lib{name}.a"), "wb") as f:
                f.write(b"!<arch>\n")
        args += ["-L", stubs]
    if mode == "--static":
        args.insert(args.index("-emit-executable"), "-static-stdlib")
        # Objects compiled without -static-stdlib name only the shared runtime in their autolink
        # entries: Foundation's static archives (and CoreFoundation, ICU under them) are named
        # here, in one group since they refer to each other.
        group = ["Foundation", "FoundationEssentials", "FoundationInternationalization", "_FoundationICU",
                 "CoreFoundation", "_FoundationCShims", "_FoundationCollections", "swiftSynchronization",
                 "swiftDispatch", "dispatch", "BlocksRuntime", "swiftCore", "stdc++"]
        args += ["-Xlinker", "--start-group"]
        for library in group:
            args += ["-Xlinker", "-l" + library]
        args += ["-Xlinker", "--end-group"]
    print(shlex.join(args))


if __name__ == "__main__":
    main(sys.argv[1:])
