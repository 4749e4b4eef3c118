#!/usr/bin/env python3
"""A minimal MCP-style stdio server for the proxy tests: answers every request with
{"echo": <method>}, ignores notifications, and misbehaves on request: method "pollute" makes it
print a non-JSON line first, "unknown" makes it answer with a wrong id, "twice" answers twice,
"answer_notification" (a notification) gets an error reply with id null, "slow" answers after
0.5 s, "exit" ends the server with status 3."""
import json
import sys
import time

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method = msg.get("method")
    if "id" not in msg:
        if method == "answer_notification":
            print(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "Method not found"}}), flush=True)
        if method == "exit":
            sys.exit(3)
        continue
    if method == "pollute":
        print("debug: handling pollute", flush=True)
    if method == "slow":
        time.sleep(0.5)
    reply_id = "no-such-id" if method == "unknown" else msg["id"]
    reply = json.dumps({"jsonrpc": "2.0", "id": reply_id, "result": {"echo": method}})
    print(reply, flush=True)
    if method == "twice":
        print(reply, flush=True)
