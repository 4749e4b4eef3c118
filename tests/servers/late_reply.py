#!/usr/bin/env python3
"""A stdio JSON-RPC server that answers late, and answers its latest request first.

A request of method "hold" is held, unanswered; so is one of method "later", whose late reply
comes inside an array, as the reply to a batch's element (§6); one of method "never" is never
answered. A request of any other method first answers every held request (late: its reply
carries the held request's id, as the server read it, and "late" as its result, each alone, or
alone in an array for "later"), then itself,
with "<method>" as its result and the id it read. A batch (an array of requests) is read the
same way, element by element: its held elements go unanswered, the late replies go first,
alone, then one array answers its others.
`--record-in FILE` records what it read."""
import json
import sys

record = None
if len(sys.argv) > 2 and sys.argv[1] == "--record-in":
    record = open(sys.argv[2], "wb", buffering=0)


def write(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")


held = []
for raw in sys.stdin.buffer:
    if record:
        record.write(raw)
    if not raw.strip():
        continue
    message = json.loads(raw)
    batch = isinstance(message, list)
    requests = message if batch else [message]
    held.extend(r for r in requests if r["method"] in ("hold", "later"))
    answered = [r for r in requests if r["method"] not in ("hold", "later", "never")]
    if not answered:
        continue
    for r in held:
        late = {"jsonrpc": "2.0", "id": r["id"], "result": "late"}
        write([late] if r["method"] == "later" else late)
    held = []
    replies = [{"jsonrpc": "2.0", "id": r["id"], "result": r["method"]} for r in answered]
    write(replies if batch else replies[0])
    sys.stdout.flush()
