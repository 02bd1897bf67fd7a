#!/usr/bin/env python3
"""The coroutine frames a gate binary allocates, largest first.

A coroutine's ramp (the function called, not its `.resume` or `.destroy` clone) allocates its
frame with one call of operator new whose size is a constant: clang loads it into %edi just
before the call. With many calls in flight, each call's suspended frames are touched again only
after the others' (docs/benchmarks.md, "At 256 sessions a call waits on memory"), so their sizes
are part of the working set per call.

    simulations/frame_sizes.py [binary] [substring ...]   (default build/gate; every gate::
                                                            coroutine, or those whose name
                                                            holds a substring)
Needs objdump (binutils). Sizes are the frame's allocation, not what a resumption touches.
"""
import os
import re
import subprocess
import sys


def frames(binary):
    """Yields (size, function) for each ramp that calls operator new with a constant size."""
    dump = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", "-C", binary],
                            stdout=subprocess.PIPE, text=True, errors="replace")
    function, size, seen = None, None, set()
    header = re.compile(r"^[0-9a-f]+ <(.*)>:$")
    load = re.compile(r"mov\s+\$0x([0-9a-f]+),%edi")
    for line in dump.stdout:
        if m := header.match(line):
            function, size = m.group(1), None
            continue
        if function is None or "gate::" not in function or function in seen:
            continue
        if any(clone in function for clone in (".resume", ".destroy", ".cleanup")):
            continue
        if m := load.search(line):
            size = int(m.group(1), 16)
        elif "operator new(unsigned long)" in line and size:
            seen.add(function)
            yield size, function
    dump.wait()


def main():
    args = sys.argv[1:]
    binary = args.pop(0) if args and os.path.isfile(args[0]) else "build/gate"
    rows = sorted(((s, f) for s, f in frames(binary) if not args or any(a in f for a in args)),
                  reverse=True)
    if not rows:
        sys.exit(f"no coroutine frame found in {binary}")
    for size, function in rows:
        print(f"{size:7} {re.sub(r'[(].*', '', function)}")


if __name__ == "__main__":
    main()
