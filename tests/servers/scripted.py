#!/usr/bin/env python3
"""A scripted stdio server. argv[1] is a JSON object mapping the index of an input line
(0-based, blank lines skipped) to the steps run after reading it: {"sleep": seconds},
{"send": "a raw line"} or {"close_stdout": true} (the server goes on reading its input); the
key "eof" holds the steps run at end of input.
`--record-in FILE` records what it read."""
import json
import os
import sys
import time

script = json.loads(sys.argv[1])
record = None
if len(sys.argv) > 3 and sys.argv[2] == "--record-in":
    record = open(sys.argv[3], "wb", buffering=0)


def run(steps):
    for step in steps:
        if "sleep" in step:
            time.sleep(step["sleep"])
        elif "close_stdout" in step:
            # (sys.stdout.close() leaves the descriptor open.)
            sys.stdout.flush()
            os.close(1)
        else:
            sys.stdout.buffer.write((step["send"] + "\n").encode())
            sys.stdout.buffer.flush()


n = 0
for raw in sys.stdin.buffer:
    if record:
        record.write(raw)
    if not raw.strip():
        continue
    run(script.get(str(n), []))
    n += 1
run(script.get("eof", []))
