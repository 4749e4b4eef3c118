#!/usr/bin/env python3
"""A stdio JSON-RPC server that answers late, and answers its latest request first.

A request of method "hold" is held, unanswered. A request of any other method first answers
every held request (late: its reply carries the held request's id, as the server read it, and
"late" as its result), then itself, with "<method>" as its result and the id it read.
`--record-in FILE` records what it read."""
import json
import sys

record = None
if len(sys.argv) > 2 and sys.argv[1] == "--record-in":
    record = open(sys.argv[2], "wb", buffering=0)

held = []
for raw in sys.stdin.buffer:
    if record:
        record.write(raw)
    if not raw.strip():
        continue
    request = json.loads(raw)
    if request["method"] == "hold":
        held.append(request)
        continue
    replies = [{"jsonrpc": "2.0", "id": r["id"], "result": "late"} for r in held]
    held = []
    replies.append({"jsonrpc": "2.0", "id": request["id"], "result": request["method"]})
    for reply in replies:
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
    sys.stdout.flush()
