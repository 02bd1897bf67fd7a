#!/usr/bin/env python3
"""An hour (or any length) of traffic from a short recording (docs/simulations.md, speed):
the recording's sessions played again every `every` seconds, each copy with sessions of its
own, until `minutes` of recorded time are filled. For measuring how fast the replay runs.

    simulations/repeat_recording.py traffic.jsonl hour.jsonl [minutes=60] [every=10]
"""
import json
import sys
from datetime import datetime, timedelta, timezone

FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def when(text):
    return datetime.strptime(text, FORMAT).replace(tzinfo=timezone.utc)


def main():
    source, target = sys.argv[1], sys.argv[2]
    minutes = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    every = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    lines = [json.loads(l) for l in open(source) if l.strip()]
    start = min(when(l["at"]) for l in lines)
    copies = int(minutes * 60 / every)
    seq_span = max((l.get("seq", 0) for l in lines), default=0)
    with open(target, "w") as out:
        for copy in range(copies):
            shift = timedelta(seconds=copy * every)
            for l in lines:
                l = dict(l)
                l["at"] = (when(l["at"]) + shift).strftime(FORMAT)
                if l["kind"] == "request":
                    l["seq"] += copy * seq_span
                    if "session" in l:
                        l["session"] = f"{l['session']}-{copy}"
                elif l.get("request"):
                    l["request"] += copy * seq_span
                out.write(json.dumps(l, separators=(",", ":")) + "\n")
    print(f"{copies} copies, {copies * sum(1 for l in lines if l['kind'] == 'request')} messages "
          f"over {minutes} min from {start.strftime(FORMAT)}", file=sys.stderr)


main()
