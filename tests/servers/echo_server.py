#!/usr/bin/env python3
"""A minimal MCP-style stdio server for the proxy tests: answers every request with
{"echo": <method>}, ignores notifications, and misbehaves on request:

- request "pollute": prints a non-JSON line first;
- request "unknown": answers with a wrong id;
- request "twice": answers twice;
- request "slow": answers after 0.5 s;
- request "noreply": is never answered;
- request "progress": sends a notifications/progress on the request's
  params._meta.progressToken, answers, then sends one more on that token (after the result);
- request "ask": first sends the client a request {"id":"srv-1","method":"roots/list"}, then
  answers once the client's reply to it has arrived;
- request "initialize": its result is a valid InitializeResult naming the version asked for
  (2025-03-26, the one version with batches, makes the session negotiate batches), beside
  "echo";
- notification "answer_notification": gets an error reply with id null;
- notification "exit": ends the server with status 3.

A batch (a JSON array, JSON-RPC 2.0 section 6) is answered with one array of the replies to its
elements, in order, or with nothing when none calls for a reply: "slow" waits 0.5 s, "unknown"
answers with a wrong id, "noreply" is not answered, notifications and responses get nothing,
and an element that is not a request gets a -32600 error with id null.

At end of input it sends the notification "notifications/stdin_closed" and exits 0. On SIGTERM
it sends the notification "notifications/sigterm" and exits with status 42.

Options: --record-in FILE / --record-out FILE write every line received / sent, byte for byte.
"""
import json
import signal
import sys
import time

record_in = record_out = None
args = sys.argv[1:]
while args:
    opt, path = args[0], args[1]
    args = args[2:]
    if opt == "--record-in":
        record_in = open(path, "wb", buffering=0)
    elif opt == "--record-out":
        record_out = open(path, "wb", buffering=0)
    else:
        sys.exit(f"unknown option {opt}")


def send(line):
    data = (line + "\n").encode()
    if record_out:
        record_out.write(data)
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def reply(msg_id, method):
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": {"echo": method}})


def on_sigterm(_signum, _frame):
    send(json.dumps({"jsonrpc": "2.0", "method": "notifications/sigterm"}))
    sys.exit(42)


signal.signal(signal.SIGTERM, on_sigterm)

def batch_reply(elements):
    """The replies to the elements of a batch, as a list of JSON objects."""
    replies = []
    for element in elements:
        is_object = isinstance(element, dict)
        method = element.get("method") if is_object else None
        if is_object and method is None and ("result" in element or "error" in element):
            continue  # a response
        if not is_object or not isinstance(method, str):
            replies.append({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
            continue
        if "id" not in element or method == "noreply":
            continue
        if method == "slow":
            time.sleep(0.5)
        reply_id = "no-such-id" if method == "unknown" else element["id"]
        replies.append({"jsonrpc": "2.0", "id": reply_id, "result": {"echo": method}})
    return replies


waiting_for_roots = None  # the id of an "ask" request waiting for the client's reply
for raw in sys.stdin.buffer:
    if record_in:
        record_in.write(raw)
    line = raw.strip()
    if not line:
        continue
    msg = json.loads(line)
    if isinstance(msg, list):
        replies = batch_reply(msg)
        if replies:
            send(json.dumps(replies))
        continue
    method = msg.get("method")
    if method is None:  # a response from the client
        if msg.get("id") == "srv-1" and waiting_for_roots is not None:
            send(reply(waiting_for_roots, "ask"))
            waiting_for_roots = None
        continue
    if "id" not in msg:
        if method == "answer_notification":
            send(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "Method not found"}}))
        if method == "exit":
            sys.exit(3)
        continue
    if method == "noreply":
        continue
    if method == "progress":
        token = msg["params"]["_meta"]["progressToken"]
        for n in (1, 2):
            send(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": n}}))
            if n == 1:
                send(reply(msg["id"], method))
        continue
    if method == "ask":
        waiting_for_roots = msg["id"]
        send(json.dumps({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list", "params": {}}))
        continue
    if method == "pollute":
        send("debug: handling pollute")
    if method == "slow" or (method == "initialize" and (msg.get("params") or {}).get("slow")):
        time.sleep(0.5)
    reply_id = "no-such-id" if method == "unknown" else msg["id"]
    if method == "initialize":
        asked = (msg.get("params") or {}).get("protocolVersion")
        result = {"echo": method, "protocolVersion": asked if isinstance(asked, str) else "2025-11-25",
                  "capabilities": {}, "serverInfo": {"name": "echo_server", "version": "1"}}
        send(json.dumps({"jsonrpc": "2.0", "id": reply_id, "result": result}))
        continue
    send(reply(reply_id, method))
    if method == "twice":
        send(reply(reply_id, method))

send(json.dumps({"jsonrpc": "2.0", "method": "notifications/stdin_closed"}))
