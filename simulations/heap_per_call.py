#!/usr/bin/env python3
"""What a proxied call allocates, and what of it a call holds while it waits on its upstream.

Reads a valgrind DHAT profile of gate under simulations/load_driver
(`GATE_BENCH_HEAP=1 simulations/bench_instructions.sh`) and keeps the allocation sites that
allocate at least once every other call (the call's own, not the startup's or a session's).
A block's lifetime is counted in instructions; divided by the instructions of one call it says
how many calls' worth of gate's work the block outlives. A block held across the upstream wait
outlives the other calls in flight while it waits (under valgrind, gate's slowness keeps some
of the driver's requests queued in their sockets, so fewer than the sessions: 40 to 50 of 256);
a scratch block, a fraction of one call or a few; a block counts as held when it outlives a
sixteenth of the sessions' calls. With many sessions the held blocks are the part of
the working set a call brings back from memory when its answer comes (docs/benchmarks.md,
"At 256 sessions a call waits on memory"). Sites allocating at startup more blocks than the
run made calls (OpenSSL loading the system's certificates) show as scratch; a longer run
dilutes them.

    simulations/heap_per_call.py <dhat.json> <calls> <sessions>
"""
import json
import sys


def short(name):
    """A function's name without its template arguments, parameters or return type."""
    out, depth = "", 0
    for c in name.split("(")[0]:
        depth += c == "<"
        if depth == 0:
            out += c
        depth -= c == ">"
    return out.split()[-1] if out.split() else name[:60]


def site_name(frames, table):
    """The first three frames of gate's own code, or the first frames when there are none."""
    names = [table[i].split(": ", 1)[-1] for i in frames]
    names = [n for n in names if "vgpreload" not in n and "jemalloc" not in n]
    own = [n for n in names if "gate::" in n] or names
    return " <- ".join(short(n) for n in own[:3])


def main():
    path, calls, sessions = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    # In calls' worth: at 256 sessions the held blocks live 40 and more, scratch 8 at most.
    held_life = sessions / 16
    profile = json.load(open(path))
    per_call_instructions = profile["te"] / calls  # startup included: a bound, not a count
    sites = []
    for p in profile["pps"]:
        if p["tbk"] * 2 < calls:
            continue
        life = p["tl"] / p["tbk"] / per_call_instructions
        sites.append((p["tb"] / calls, p["tbk"] / calls, life, site_name(p["fs"], profile["ftbl"])))
    held = [s for s in sites if s[2] >= held_life]
    print(f"{sum(s[0] for s in sites):,.0f} bytes in {sum(s[1] for s in sites):.1f} blocks "
          f"allocated per call; held across the upstream wait (outliving {held_life:g} calls "
          f"or more): {sum(s[0] for s in held):,.0f} bytes in {sum(s[1] for s in held):.1f} "
          "blocks")
    print(f"{'bytes/call':>10} {'blocks':>6} {'life':>7}  site")
    for size, blocks, life, name in sorted(sites, key=lambda s: -s[0])[:30]:
        print(f"{size:10,.0f} {blocks:6.2f} {life:7.1f}  {name}")


if __name__ == "__main__":
    main()
